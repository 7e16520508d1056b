-- +goose Up
-- A webhook event (the outbox): written in the transaction of the state change that caused it,
-- only when an endpoint of the account subscribes to its type. body is the exact JSON sent on
-- every attempt of every delivery of the event.
CREATE TABLE webhook_events (
    id         uuid        PRIMARY KEY,
    account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    type       text        NOT NULL CHECK (type IN ('job.created', 'job.completed', 'job.failed', 'job.review', 'usage.threshold')),
    body       bytea       NOT NULL,
    created_at timestamptz NOT NULL
);

-- The delivery of an event to one endpoint, written with the event; its id is the
-- X-Service-Delivery-Id of every attempt. Its work is a queue job of its own. first_attempt_at
-- anchors the retry schedule; next_attempt_at is when a pending delivery is due.
CREATE TABLE webhook_deliveries (
    id               uuid        PRIMARY KEY,
    event_id         uuid        NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id      uuid        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    status           text        NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
    status_reason    text,
    attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    first_attempt_at timestamptz,
    next_attempt_at  timestamptz,
    created_at       timestamptz NOT NULL,
    completed_at     timestamptz,
    UNIQUE (event_id, endpoint_id),
    CHECK ((status = 'pending') = (completed_at IS NULL)),
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
    CHECK ((status IN ('failed', 'cancelled')) = (status_reason IS NOT NULL))
);
-- An endpoint's deliveries are listed newest first; deleting or disabling it finds its pending ones.
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id) WHERE status = 'pending';

-- Every attempt of a delivery: when, the endpoint's answer (status_code NULL when none came),
-- how long it took and why it failed.
CREATE TABLE webhook_attempts (
    delivery_id  uuid        NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt      integer     NOT NULL CHECK (attempt >= 1),
    attempted_at timestamptz NOT NULL,
    success      boolean     NOT NULL,
    status_code  integer,
    duration_ms  integer     NOT NULL CHECK (duration_ms >= 0),
    error        text,
    PRIMARY KEY (delivery_id, attempt),
    CHECK (success = (error IS NULL))
);

-- When the endpoint's current run of failed attempts began (NULL after a success); an endpoint
-- failing for days is disabled.
ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz;

-- The usage thresholds an account reached in a quota period, so each is announced once.
CREATE TABLE usage_thresholds (
    account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    scope      text        NOT NULL,
    period     date        NOT NULL,
    percent    integer     NOT NULL CHECK (percent BETWEEN 1 AND 100),
    reached_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, scope, period, percent)
);

-- +goose Down
DROP TABLE usage_thresholds;
ALTER TABLE webhook_endpoints DROP COLUMN failing_since;
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
