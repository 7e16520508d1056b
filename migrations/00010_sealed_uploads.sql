-- +goose Up
-- A statement its owner protected with a password is stored decrypted (the password is never
-- kept), so it is stored sealed instead: each chunk encrypted with the service's secret key
-- (secretbox), which never enters the database. size and sha256 stay those of the content.
ALTER TABLE uploads ADD COLUMN sealed boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN uploads.sealed IS 'Each chunk is sealed with the service key (secretbox): the decrypted content of a password-protected file.';

-- +goose Down
ALTER TABLE uploads DROP COLUMN sealed;
