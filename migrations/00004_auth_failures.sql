-- +goose Up
-- Failed client authentications per client id and calendar minute, for the token endpoint's
-- throttle. UNLOGGED for the same reason as rate_limit_windows; keys are client ids, which are
-- public, never secrets.
CREATE UNLOGGED TABLE auth_failures (
    key          text        NOT NULL CHECK (char_length(key) BETWEEN 1 AND 300),
    window_start timestamptz NOT NULL,
    count        integer     NOT NULL CHECK (count > 0),
    PRIMARY KEY (key, window_start)
);
CREATE INDEX auth_failures_window_start ON auth_failures (window_start);

COMMENT ON TABLE auth_failures IS 'Failed token requests per client id and calendar minute, shared by every statementd process.';

-- +goose Down
DROP TABLE auth_failures;
