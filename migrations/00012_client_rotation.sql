-- +goose Up
-- An API client's secret can be rotated with an overlap: the new secret works at once and the
-- previous one, kept (as its SHA-256) in previous_secret_hash, until previous_expires_at, so that
-- an integration can switch without downtime. secret_since is when the current secret was made.
ALTER TABLE api_clients ADD COLUMN previous_secret_hash bytea CHECK (octet_length(previous_secret_hash) = 32);
ALTER TABLE api_clients ADD COLUMN previous_expires_at timestamptz;
ALTER TABLE api_clients ADD COLUMN secret_since timestamptz;
ALTER TABLE api_clients ADD CONSTRAINT api_clients_previous_secret
    CHECK ((previous_secret_hash IS NULL) = (previous_expires_at IS NULL));

COMMENT ON COLUMN api_clients.previous_secret_hash IS 'The secret before the last rotation, which still works until previous_expires_at.';
COMMENT ON COLUMN api_clients.secret_since IS 'When the current secret was made (its rotation); NULL: at created_at.';

-- +goose Down
ALTER TABLE api_clients DROP CONSTRAINT api_clients_previous_secret;
ALTER TABLE api_clients DROP COLUMN secret_since;
ALTER TABLE api_clients DROP COLUMN previous_expires_at;
ALTER TABLE api_clients DROP COLUMN previous_secret_hash;
