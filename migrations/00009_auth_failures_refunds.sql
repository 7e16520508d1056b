-- +goose Up
-- The token endpoint counts an authentication attempt before it checks the credentials and
-- takes the count back when they were right (ratelimit.Throttle), so that parallel requests
-- cannot get more failures through than the budget allows. A count taken back to zero is a row
-- of zero until the servers delete old windows. Keys are now "client:" and the SHA-256 of the
-- client id (a secret pasted into client_id must not be stored), or "token-addr:" and a source
-- address.
ALTER TABLE auth_failures DROP CONSTRAINT auth_failures_count_check;
ALTER TABLE auth_failures ADD CONSTRAINT auth_failures_count_check CHECK (count >= 0);

COMMENT ON TABLE auth_failures IS 'Failed token requests per hashed client id, and per source address, and calendar minute, shared by every statementd process.';

-- +goose Down
DELETE FROM auth_failures WHERE count = 0;
ALTER TABLE auth_failures DROP CONSTRAINT auth_failures_count_check;
ALTER TABLE auth_failures ADD CONSTRAINT auth_failures_count_check CHECK (count > 0);
COMMENT ON TABLE auth_failures IS 'Failed token requests per client id and calendar minute, shared by every statementd process.';
