-- +goose Up
-- A parsing job (the Parsing API). Its file is an upload (00005). attempt is the fencing token,
-- as for reconciliation jobs: only the worker attempt that claimed the job last may finish it.
-- request_id is the id of the upload request, which an idempotent replay repeats.
CREATE TABLE parse_jobs (
    id                 uuid        PRIMARY KEY,
    account_id         uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    status             text        NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'review', 'failed')),
    upload_id          uuid        NOT NULL REFERENCES uploads (id),
    file_name          text        NOT NULL,
    format             text        NOT NULL,
    bank_name          text,
    account            text,
    currency           text,
    period_start       date,
    period_end         date,
    opening_balance    numeric,
    closing_balance    numeric,
    transactions_count integer     NOT NULL DEFAULT 0 CHECK (transactions_count >= 0),
    review_reasons     jsonb       NOT NULL DEFAULT '[]',
    error_code         text        CHECK (error_code IN ('unsupported_format', 'file_corrupt', 'file_encrypted',
                                       'no_text_layer', 'no_transactions', 'too_many_rows', 'resource_limit',
                                       'timeout', 'internal_error')),
    error_message      text,
    request_id         text        NOT NULL,
    attempt            integer     NOT NULL DEFAULT 0,
    queue_job_id       bigint,
    created_at         timestamptz NOT NULL,
    completed_at       timestamptz,
    CHECK ((status = 'failed') = (error_code IS NOT NULL AND error_message IS NOT NULL)),
    CHECK ((status IN ('queued', 'processing')) = (completed_at IS NULL))
);
-- Lists are newest first, keyset-paginated on (created_at, id), with or without a status filter.
CREATE INDEX parse_jobs_account_created ON parse_jobs (account_id, created_at DESC, id DESC);
CREATE INDEX parse_jobs_account_status_created ON parse_jobs (account_id, status, created_at DESC, id DESC);
-- Unfinished jobs: the status check's oldest waiting job, and the sweep of abandoned ones.
CREATE INDEX parse_jobs_unfinished ON parse_jobs (created_at) WHERE status IN ('queued', 'processing');
CREATE INDEX parse_jobs_unfinished_queue ON parse_jobs (queue_job_id) WHERE status IN ('queued', 'processing');

-- The transactions of a completed or review job, in statement order (seq from 0), written in
-- the transaction that finishes the job. Pages and exports read them by (job_id, seq) ranges.
CREATE TABLE parse_transactions (
    job_id               uuid    NOT NULL REFERENCES parse_jobs (id) ON DELETE CASCADE,
    seq                  integer NOT NULL CHECK (seq >= 0),
    id                   uuid    NOT NULL,
    booking_date         date    NOT NULL,
    value_date           date,
    amount               numeric NOT NULL,
    currency             text,
    description          text    NOT NULL,
    reference            text,
    counterparty_name    text,
    counterparty_account text,
    balance              numeric,
    type                 text    NOT NULL CHECK (type IN ('credit', 'debit')),
    raw                  text    NOT NULL,
    PRIMARY KEY (job_id, seq)
);

-- +goose Down
DROP TABLE parse_transactions;
DROP TABLE parse_jobs;
