-- +goose Up
-- An optional second factor for dashboard users: a TOTP authenticator (RFC 6238, 30-second
-- steps, six digits). Its shared secret must be read back to check a code, so it is kept sealed
-- (AES-256-GCM with the service's secret key, as webhook signing secrets are), never in clear.
-- totp_pending holds a secret being set up until a first code proves the authenticator has it;
-- totp_last_step is the time step of the last code accepted, so that no code works twice.
ALTER TABLE users ADD COLUMN totp_secret bytea;
ALTER TABLE users ADD COLUMN totp_pending bytea;
ALTER TABLE users ADD COLUMN totp_since timestamptz;
ALTER TABLE users ADD COLUMN totp_last_step bigint NOT NULL DEFAULT 0;
ALTER TABLE users ADD CONSTRAINT users_totp CHECK ((totp_secret IS NULL) = (totp_since IS NULL));

COMMENT ON COLUMN users.totp_secret IS 'The sealed TOTP secret of the user''s second factor; NULL: the user signs in with a password alone.';

-- A sign-in whose password was right and whose code is due: the browser holds the token (a
-- cookie), the table its SHA-256. It lasts five minutes and allows five codes.
CREATE TABLE sign_in_challenges (
    hash       bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    attempts   integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    address    text        NOT NULL DEFAULT ''
);

CREATE INDEX sign_in_challenges_user_id ON sign_in_challenges (user_id);
CREATE INDEX sign_in_challenges_expires_at ON sign_in_challenges (expires_at);

COMMENT ON TABLE sign_in_challenges IS 'Sign-ins waiting for the second factor''s code, kept as the SHA-256 of the token in the browser''s cookie; five minutes and five codes at most.';

-- +goose Down
DROP TABLE sign_in_challenges;
ALTER TABLE users DROP CONSTRAINT users_totp;
ALTER TABLE users DROP COLUMN totp_last_step;
ALTER TABLE users DROP COLUMN totp_since;
ALTER TABLE users DROP COLUMN totp_pending;
ALTER TABLE users DROP COLUMN totp_secret;
