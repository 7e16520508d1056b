-- +goose Up
-- An account is the tenant that owns statements; both plan columns live here
-- because billing for reconciliation and for parsing is independent.
CREATE TABLE accounts (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    recon_plan text        NOT NULL DEFAULT 'standard' CHECK (recon_plan IN ('standard', 'pro')),
    parse_plan text        NOT NULL DEFAULT 'free' CHECK (parse_plan IN ('free', 'starter', 'pro', 'business')),
    created_at timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE accounts IS 'Tenants of statementd; every statement and match belongs to exactly one account. recon_plan and parse_plan are billed independently.';

-- +goose Down
DROP TABLE accounts;
