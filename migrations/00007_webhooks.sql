-- +goose Up
-- An Idempotency-Key now creates a job or a webhook endpoint: the record names what it created.
ALTER TABLE idempotency_keys RENAME COLUMN job_id TO resource_id;
ALTER TABLE idempotency_keys RENAME CONSTRAINT idempotency_keys_check TO idempotency_keys_done_has_resource;

-- A webhook endpoint of the Parsing API. events NULL subscribes to every event type, also those
-- added later. Deleting an endpoint only marks it (deleted_at), so an idempotent replay of the
-- request that created it can still repeat the first answer; a deleted endpoint receives nothing
-- and is invisible to the API. enabled turns false for good (410 Gone, days of failures), with
-- the reason.
CREATE TABLE webhook_endpoints (
    id              uuid        PRIMARY KEY,
    account_id      uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url             text        NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
    events          text[]      CHECK (cardinality(events) >= 1),
    description     text        CHECK (char_length(description) <= 500),
    enabled         boolean     NOT NULL DEFAULT true,
    disabled_reason text,
    created_at      timestamptz NOT NULL,
    deleted_at      timestamptz,
    CHECK (enabled = (disabled_reason IS NULL))
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at, id) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE webhook_endpoints;
ALTER TABLE idempotency_keys RENAME CONSTRAINT idempotency_keys_done_has_resource TO idempotency_keys_check;
ALTER TABLE idempotency_keys RENAME COLUMN resource_id TO job_id;
