-- +goose Up
-- The account dashboard: the people of an account, their sessions, the one-time links that
-- let them set a password, and the audit log of every change to an account's credentials.
-- Secrets are kept as elsewhere: passwords as argon2id hashes (PHC string), session tokens and
-- set-password links as the SHA-256 of a 256-bit random value, never usable as stored.

CREATE TABLE users (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id    uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    -- email is kept as given and compared lower-cased: one address is one user everywhere.
    email         text        NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254 AND email LIKE '%_@_%'),
    role          text        NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
    -- NULL until the user sets a password through an invitation link.
    password_hash text        CHECK (password_hash LIKE '$argon2id$%'),
    created_at    timestamptz NOT NULL DEFAULT now(),
    disabled_at   timestamptz
);

CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_account_id ON users (account_id);

COMMENT ON TABLE users IS 'People who sign in to the account dashboard. role: owner manages users and the signing secret; developer also manages API clients, keys and webhooks and creates jobs; viewer reads. password_hash is argon2id (PHC string), NULL until set through an invitation.';

CREATE TABLE user_invitations (
    hash       bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);

CREATE INDEX user_invitations_user_id ON user_invitations (user_id);

COMMENT ON TABLE user_invitations IS 'One-time links to set a password (an invitation, or a reset), kept as the SHA-256 of the token in the link. A link works once (used_at) and until expires_at (72 hours).';

CREATE TABLE dashboard_sessions (
    hash         bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
    user_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- csrf is the token every form of the session carries (not a secret from the user; a secret
    -- from other sites).
    csrf         text        NOT NULL CHECK (char_length(csrf) >= 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    address      text        NOT NULL DEFAULT ''
);

CREATE INDEX dashboard_sessions_user_id ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expires_at ON dashboard_sessions (expires_at);

COMMENT ON TABLE dashboard_sessions IS 'Signed-in dashboard sessions, kept as the SHA-256 of the cookie''s token. A session ends at expires_at (12 hours after sign-in), after 30 minutes without a request, at sign-out, or when its user signs out everywhere.';

CREATE TABLE audit_events (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    at          timestamptz NOT NULL DEFAULT now(),
    -- actor_user_id is the dashboard user who acted; NULL for the operator's statementd admin.
    actor_user_id uuid      REFERENCES users (id) ON DELETE SET NULL,
    -- actor is who acted as shown (the user's email, "statementd admin"), kept if the user goes.
    actor       text        NOT NULL,
    address     text        NOT NULL DEFAULT '',
    action      text        NOT NULL CHECK (action ~ '^[a-z_]+\.[a-z_]+$'),
    -- target names what the action was on: a client id, a key prefix, a user's email.
    target      text        NOT NULL DEFAULT ''
);

CREATE INDEX audit_events_account_at ON audit_events (account_id, at DESC, id DESC);

COMMENT ON TABLE audit_events IS 'Who created, revoked, rotated, invited or signed in, from which address, when: one row per change, written by the statement that makes the change.';

ALTER TABLE api_clients ADD COLUMN created_by text NOT NULL DEFAULT '';
ALTER TABLE api_clients ADD COLUMN last_used_at timestamptz;
ALTER TABLE api_keys ADD COLUMN created_by text NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

COMMENT ON COLUMN api_clients.last_used_at IS 'When the client last got a token (updated at most once a minute).';
COMMENT ON COLUMN api_keys.last_used_at IS 'When the key last authenticated a request (updated at most once a minute).';

-- +goose Down
ALTER TABLE api_keys DROP COLUMN last_used_at;
ALTER TABLE api_keys DROP COLUMN created_by;
ALTER TABLE api_clients DROP COLUMN last_used_at;
ALTER TABLE api_clients DROP COLUMN created_by;
DROP TABLE audit_events;
DROP TABLE dashboard_sessions;
DROP TABLE user_invitations;
DROP TABLE users;
