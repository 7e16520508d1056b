-- +goose Up
-- Credentials of the accounts. No secret is ever stored in a form that can be used to
-- authenticate: client secrets, access tokens and API keys are 256-bit random values kept only as
-- their SHA-256 (32 bytes), and the webhook signing secret, which the service must read back to
-- sign, is kept encrypted with the service's secret key (AES-256-GCM, outside the database).
-- Every credential row goes with its account (ON DELETE CASCADE), so that deleting an account
-- leaves nothing that could still authenticate.

CREATE TABLE api_clients (
    id          text        PRIMARY KEY CHECK (id ~ '^cli_[0-9A-Za-z]{16,64}$'),
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    permissions text[]      NOT NULL
        CHECK (cardinality(permissions) > 0
               AND permissions <@ ARRAY['jobs:read', 'jobs:write', 'limits:read']::text[]),
    secret_hash bytea       NOT NULL CHECK (octet_length(secret_hash) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE INDEX api_clients_account_id ON api_clients (account_id);

COMMENT ON TABLE api_clients IS 'Reconciliation API clients (OAuth 2.0 client credentials). id is the public client_id; the client_secret is shown once and kept only as its SHA-256 in secret_hash. A client with revoked_at set fails like an unknown one, and so do its tokens.';

CREATE TABLE access_tokens (
    hash        bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
    client_id   text        NOT NULL REFERENCES api_clients (id) ON DELETE CASCADE,
    -- account_id repeats the client's so that authenticating a request needs no second lookup.
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    env         text        NOT NULL CHECK (env IN ('production', 'sandbox')),
    permissions text[]      NOT NULL
        CHECK (cardinality(permissions) > 0
               AND permissions <@ ARRAY['jobs:read', 'jobs:write', 'limits:read']::text[]),
    issued_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL CHECK (expires_at > issued_at)
);

-- Expired tokens are deleted in batches by expiry.
CREATE INDEX access_tokens_expires_at ON access_tokens (expires_at);
CREATE INDEX access_tokens_client_id ON access_tokens (client_id);

COMMENT ON TABLE access_tokens IS 'Reconciliation API bearer tokens, kept only as the SHA-256 of the token (hash). A token works only in its env and only until expires_at, and never once its client is revoked. Rows past expires_at are useless and may be deleted.';

CREATE TABLE api_keys (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    -- prefix is "smk_live_" and the first four random characters: enough to recognise a key in
    -- a list, far too little to guess the rest.
    prefix     text        NOT NULL CHECK (prefix ~ '^smk_live_[0-9A-Za-z]{0,4}$'),
    hash       bytea       NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
    scopes     text[]      NOT NULL
        CHECK (cardinality(scopes) > 0
               AND scopes <@ ARRAY['jobs:read', 'jobs:write', 'webhooks:manage', 'export:read', 'usage:read']::text[]),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

CREATE INDEX api_keys_account_id ON api_keys (account_id);

COMMENT ON TABLE api_keys IS 'Parsing API keys, shown once and kept only as the SHA-256 of the key (hash) with its display prefix. A key with revoked_at set fails like an unknown one.';

CREATE TABLE signing_secrets (
    account_id uuid        PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    -- sealed is nonce || AES-256-GCM ciphertext of "whsec_..." under the service's secret key
    -- (STATEMENTD_SECRET_KEY or the data dir's secret.key), which is never in the database.
    sealed     bytea       NOT NULL CHECK (octet_length(sealed) > 28),
    rotated_at timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE signing_secrets IS 'Each account''s one webhook signing secret, encrypted (sealed) because statementd must read it back to sign deliveries. Rotation replaces the row; the old secret is gone.';

-- +goose Down
DROP TABLE signing_secrets;
DROP TABLE api_keys;
DROP TABLE access_tokens;
DROP TABLE api_clients;
