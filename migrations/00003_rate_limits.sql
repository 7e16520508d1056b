-- +goose Up
-- Requests per account, API and one-minute window. UNLOGGED: a crash may lose the counts of the
-- current minute, which only lets a few requests through again, and every request writes here, so
-- skipping the write-ahead log halves its cost. Rows older than an hour are deleted by the
-- servers as they go.
CREATE UNLOGGED TABLE rate_limit_windows (
    account_id   uuid        NOT NULL,
    api          text        NOT NULL CHECK (api IN ('recon', 'parse')),
    window_start timestamptz NOT NULL,
    count        integer     NOT NULL CHECK (count > 0),
    PRIMARY KEY (account_id, api, window_start)
);
CREATE INDEX rate_limit_windows_window_start ON rate_limit_windows (window_start);

COMMENT ON TABLE rate_limit_windows IS 'Request counts per account, API and calendar minute, shared by every statementd process so limits are exact.';

-- +goose Down
DROP TABLE rate_limit_windows;
