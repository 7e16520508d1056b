-- +goose Up
-- Deletion on request (DELETE /api/v1/jobs/{id}): a job's files, results and transactions go at
-- once, and its row stays as a tombstone, so that its id answers 410 GONE rather than 404. The
-- tombstone keeps what the quota and the lists' order need (account, environment, status, times)
-- and none of the file's contents: its file names and the statement's details are cleared.
ALTER TABLE recon_jobs ALTER COLUMN bank_upload DROP NOT NULL;
ALTER TABLE recon_jobs ALTER COLUMN expected_upload DROP NOT NULL;
ALTER TABLE recon_jobs ADD COLUMN deleted_at timestamptz;
ALTER TABLE recon_jobs ADD CONSTRAINT recon_jobs_files
    CHECK ((deleted_at IS NULL) = (bank_upload IS NOT NULL AND expected_upload IS NOT NULL));

ALTER TABLE parse_jobs ALTER COLUMN upload_id DROP NOT NULL;
ALTER TABLE parse_jobs ADD COLUMN deleted_at timestamptz;
ALTER TABLE parse_jobs ADD CONSTRAINT parse_jobs_file CHECK ((deleted_at IS NULL) = (upload_id IS NOT NULL));

-- +goose Down
ALTER TABLE parse_jobs DROP CONSTRAINT parse_jobs_file;
ALTER TABLE parse_jobs DROP COLUMN deleted_at;
ALTER TABLE parse_jobs ALTER COLUMN upload_id SET NOT NULL;
ALTER TABLE recon_jobs DROP CONSTRAINT recon_jobs_files;
ALTER TABLE recon_jobs DROP COLUMN deleted_at;
ALTER TABLE recon_jobs ALTER COLUMN expected_upload SET NOT NULL;
ALTER TABLE recon_jobs ALTER COLUMN bank_upload SET NOT NULL;
