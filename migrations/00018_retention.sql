-- +goose Up
-- Retention (internal/postgres/retention.go): a job's files are deleted after the file retention
-- period, its results or transactions after the result retention period; the job's row stays,
-- with when each went. A job whose results went answers 410 GONE on them, not on itself.
ALTER TABLE recon_jobs DROP CONSTRAINT recon_jobs_files;
ALTER TABLE recon_jobs ADD COLUMN files_deleted_at timestamptz;
ALTER TABLE recon_jobs ADD COLUMN results_deleted_at timestamptz;
ALTER TABLE recon_jobs ADD CONSTRAINT recon_jobs_files CHECK (
    (bank_upload IS NULL) = (expected_upload IS NULL)
    AND (bank_upload IS NULL) = (deleted_at IS NOT NULL OR files_deleted_at IS NOT NULL));
-- What retention looks for, oldest first: jobs that still have files, and finished jobs that
-- still have results.
CREATE INDEX recon_jobs_files_kept ON recon_jobs (created_at) WHERE bank_upload IS NOT NULL;
CREATE INDEX recon_jobs_results_kept ON recon_jobs (created_at)
    WHERE status = 'completed' AND results_deleted_at IS NULL AND deleted_at IS NULL;

ALTER TABLE parse_jobs DROP CONSTRAINT parse_jobs_file;
ALTER TABLE parse_jobs ADD COLUMN files_deleted_at timestamptz;
ALTER TABLE parse_jobs ADD COLUMN results_deleted_at timestamptz;
ALTER TABLE parse_jobs ADD CONSTRAINT parse_jobs_file
    CHECK ((upload_id IS NULL) = (deleted_at IS NOT NULL OR files_deleted_at IS NOT NULL));
CREATE INDEX parse_jobs_files_kept ON parse_jobs (created_at) WHERE upload_id IS NOT NULL;
CREATE INDEX parse_jobs_results_kept ON parse_jobs (created_at)
    WHERE status IN ('completed', 'review') AND results_deleted_at IS NULL AND deleted_at IS NULL;

-- The parsing jobs whose transactions are being deleted: a job's transactions (up to a million
-- rows) go a few thousand at a time, each batch its own short transaction; the job is marked and
-- listed here at once, so that its results answer 410 from the first batch and a purge that
-- stopped half-way is finished by the next.
CREATE TABLE parse_transactions_purge (
    job_id uuid PRIMARY KEY REFERENCES parse_jobs (id) ON DELETE CASCADE
);

-- Webhook events go 30 days after they were written, with their deliveries and attempts.
CREATE INDEX webhook_events_created_at ON webhook_events (created_at);

-- +goose Down
DROP INDEX webhook_events_created_at;
DROP TABLE parse_transactions_purge;
DROP INDEX parse_jobs_results_kept;
DROP INDEX parse_jobs_files_kept;
ALTER TABLE parse_jobs DROP CONSTRAINT parse_jobs_file;
ALTER TABLE parse_jobs DROP COLUMN results_deleted_at;
ALTER TABLE parse_jobs DROP COLUMN files_deleted_at;
ALTER TABLE parse_jobs ADD CONSTRAINT parse_jobs_file CHECK ((deleted_at IS NULL) = (upload_id IS NOT NULL));
DROP INDEX recon_jobs_results_kept;
DROP INDEX recon_jobs_files_kept;
ALTER TABLE recon_jobs DROP CONSTRAINT recon_jobs_files;
ALTER TABLE recon_jobs DROP COLUMN results_deleted_at;
ALTER TABLE recon_jobs DROP COLUMN files_deleted_at;
ALTER TABLE recon_jobs ADD CONSTRAINT recon_jobs_files
    CHECK ((deleted_at IS NULL) = (bank_upload IS NOT NULL AND expected_upload IS NOT NULL));
