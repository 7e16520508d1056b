-- +goose Up
-- Uploaded files live in the database, so that any worker on any machine can read them, and so
-- that a job row and its files are committed together or not at all. A file is stored in chunks
-- of at most 1 MiB: it is written and read a chunk at a time, never as one 25 MiB value.
CREATE TABLE uploads (
    id         uuid        PRIMARY KEY,
    account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    file_name  text        NOT NULL,
    size       bigint      NOT NULL CHECK (size >= 0),
    sha256     bytea       NOT NULL CHECK (octet_length(sha256) = 32),
    created_at timestamptz NOT NULL
);
CREATE INDEX uploads_account_id ON uploads (account_id);

CREATE TABLE upload_chunks (
    upload_id uuid    NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    seq       integer NOT NULL CHECK (seq >= 0),
    data      bytea   NOT NULL,
    PRIMARY KEY (upload_id, seq)
);
-- Chunks are compressed statement text already read once; TOAST compression would only cost
-- CPU on every write of a file that is mostly read once.
ALTER TABLE upload_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- A reconciliation job. attempt is the fencing token: the worker attempt that claimed the job
-- last; only that attempt may finish it, so a stale worker whose job was rescued and run again
-- cannot overwrite the newer attempt's outcome.
CREATE TABLE recon_jobs (
    id              uuid        PRIMARY KEY,
    account_id      uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    env             text        NOT NULL CHECK (env IN ('production', 'sandbox')),
    status          text        NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
    bank_upload     uuid        NOT NULL REFERENCES uploads (id),
    expected_upload uuid        NOT NULL REFERENCES uploads (id),
    bank_file       text        NOT NULL,
    expected_file   text        NOT NULL,
    error_code      text        CHECK (error_code IN ('FILE_INVALID', 'FILE_TOO_LARGE', 'SERVER_ERROR')),
    error_message   text,
    attempt         integer     NOT NULL DEFAULT 0,
    queue_job_id    bigint,
    created_at      timestamptz NOT NULL,
    completed_at    timestamptz,
    CHECK ((status = 'failed') = (error_code IS NOT NULL AND error_message IS NOT NULL)),
    CHECK ((status = 'processing') = (completed_at IS NULL))
);
CREATE INDEX recon_jobs_account ON recon_jobs (account_id, env, created_at DESC);
CREATE INDEX recon_jobs_processing ON recon_jobs (queue_job_id) WHERE status = 'processing';

-- The results of a completed job (JSON), written in the same transaction as its status. bytea
-- rather than jsonb: the document is only ever read whole, and a 1,000,000-line statement's
-- results can pass jsonb's 255 MB limit.
CREATE TABLE recon_results (
    job_id uuid  PRIMARY KEY REFERENCES recon_jobs (id) ON DELETE CASCADE,
    body   bytea NOT NULL
);

-- Jobs accepted per account, quota scope (API and environment) and calendar month (UTC). The
-- upsert that counts a job also checks the limit, under the row's lock, so a quota is exact
-- across every process.
CREATE TABLE job_quota (
    account_id uuid    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    scope      text    NOT NULL,
    period     date    NOT NULL,
    used       integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (account_id, scope, period)
);

-- Idempotency-Key records per account and scope. A key is 'pending' from the moment a request
-- with it is read until its job is committed ('done', with the job) or the request fails (the
-- row is deleted, so the client may retry with the same key).
CREATE TABLE idempotency_keys (
    account_id   uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    scope        text        NOT NULL,
    key          text        NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
    request_hash bytea       NOT NULL,
    state        text        NOT NULL CHECK (state IN ('pending', 'done')),
    job_id       uuid,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (account_id, scope, key),
    CHECK ((state = 'done') = (job_id IS NOT NULL))
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE job_quota;
DROP TABLE recon_results;
DROP TABLE recon_jobs;
DROP TABLE upload_chunks;
DROP TABLE uploads;
