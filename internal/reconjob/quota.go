package reconjob

import (
	"time"

	"github.com/statementmatch/service/internal/account"
)

// Monthly job quotas of the Reconciliation API, per environment.
const (
	QuotaStandard = 1_000
	QuotaPro      = 20_000
	QuotaSandbox  = 100
)

// QuotaLimit is the jobs a month the plan allows in env: the sandbox has its own, smaller quota
// whatever the plan.
func QuotaLimit(plan account.ReconPlan, env account.Environment) int {
	if env == account.Sandbox {
		return QuotaSandbox
	}
	if plan == account.ReconPro {
		return QuotaPro
	}
	return QuotaStandard
}

// QuotaScope names the quota (and idempotency) scope of the Reconciliation API in env: each
// environment counts its own jobs.
func QuotaScope(env account.Environment) string { return "recon:" + string(env) }

// Quota is an account's job quota in one environment for the current month.
type Quota struct {
	Plan    account.ReconPlan
	Env     account.Environment
	Limit   int
	Used    int
	ResetAt time.Time
}

// Remaining is Limit minus Used, never below zero.
func (q Quota) Remaining() int { return max(q.Limit-q.Used, 0) }
