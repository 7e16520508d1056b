package contracttests

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// The Idempotency-Key rows of the reliability matrix at full size, for both APIs' POST
// /api/v1/jobs: I3 (concurrent requests with one key) with I1 (replay) and I2 (reuse with another
// request) checked in every round, I5 (expiry) through the key's record in the database, and the
// keys the service cannot keep (not UTF-8).

const (
	// idemRounds keys are raced, each by idemRacers requests released together (matrix row I3).
	idemRounds = 100
	idemRacers = 50
	// idemRoundsPerAccount rounds go to one account, so that an account's requests stay well under
	// its plan's rate limit (1,000 a minute: 10 rounds of 50 racers and 3 checks are 530) and a
	// 429 can only be a bug, not the limit at work.
	idemRoundsPerAccount = 10
)

// idemAPI is one API's POST /api/v1/jobs as the idempotency tests see it: raw requests, so that
// both APIs go through one race, and each API's own error body and quota.
type idemAPI struct {
	name string
	spec *api
	base string
	// scope is the quota and Idempotency-Key scope of the API's jobs in the database; table the
	// table of its jobs; filesPerJob how many uploads each job stores.
	scope, table string
	filesPerJob  int
	// newAccount creates an account and its credential on the API's top plan.
	newAccount func(t testing.TB) idemAccount
	// request is round r's upload: content type and body. other is a different request.
	request, other func(t testing.TB, r int) (string, []byte)
	// jobID reads the job id of a 202 answer.
	jobID func(t testing.TB, body []byte) uuid.UUID
	// requireError checks an error answer: status, code, and the API's error body.
	requireError func(t testing.TB, resp *http.Response, body []byte, status int, code string)
}

// idemAccount is an account with a credential of one API.
type idemAccount struct {
	id, credential string
	// charged returns the jobs the API reports charged to the account this month.
	charged func(t testing.TB) int
	// listed returns the account's jobs as the API lists them, or checks each of ids can be read
	// where the API has no listing.
	listed func(t testing.TB, ids []uuid.UUID) []uuid.UUID
}

// pooledClient is api's validating client with enough idle connections per host for every racer,
// so that a round's requests start on warm connections and reach the server together.
func pooledClient(t testing.TB, a *api) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * idemRacers
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Timeout: 60 * time.Second, Transport: validatingTransport{t: t, api: a, base: tr}}
}

// idemAnswer is one answer to POST /api/v1/jobs.
type idemAnswer struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// post sends one job request with an Idempotency-Key.
func (a idemAPI) post(ctx context.Context, hc *http.Client, acct idemAccount, key, contentType string, body []byte) idemAnswer {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/api/v1/jobs", bytes.NewReader(body))
	if err != nil {
		return idemAnswer{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+acct.credential)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Idempotency-Key", key)
	resp, err := hc.Do(req)
	if err != nil {
		return idemAnswer{err: err}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return idemAnswer{status: resp.StatusCode, header: resp.Header, body: out, err: err}
}

func parsingIdemAPI(t testing.TB, s *server) idemAPI {
	return idemAPI{
		name: "Parsing API", spec: parse(t), base: s.ParseURL, scope: "parse", table: "parse_jobs", filesPerJob: 1,
		newAccount: func(t testing.TB) idemAccount {
			id := s.newAccount(t, "Idem")
			c := s.parseCaller(t, id)
			return idemAccount{id: id, credential: c.key,
				charged: func(t testing.TB) int { return c.usage(t).JobsCreated },
				listed: func(t testing.TB, _ []uuid.UUID) []uuid.UUID {
					var ids []uuid.UUID
					params := &parseclient.ListJobsParams{Limit: ptrTo(100)}
					for {
						page := c.listed(t, params)
						for _, j := range page.Jobs {
							ids = append(ids, j.JobId)
						}
						if page.NextCursor == nil {
							return ids
						}
						params.Cursor = page.NextCursor
					}
				}}
		},
		request: func(t testing.TB, r int) (string, []byte) {
			return fileUpload(t, fmt.Sprintf("round-%03d.csv", r), fmt.Appendf(nil, "Date,Description,Amount\n2024-03-01,ROUND %d,%d.00\n", r, r+1))
		},
		other: func(t testing.TB, r int) (string, []byte) {
			return fileUpload(t, fmt.Sprintf("round-%03d.csv", r), fmt.Appendf(nil, "Date,Description,Amount\n2024-03-01,ROUND %d,%d.01\n", r, r+1))
		},
		jobID: func(t testing.TB, body []byte) uuid.UUID {
			var e parseclient.JobEnvelope
			require.NoError(t, json.Unmarshal(body, &e), "%s", body)
			require.True(t, bool(e.Ok))
			return e.Data.JobId
		},
		requireError: func(t testing.TB, resp *http.Response, body []byte, status int, code string) {
			requireParseError(t, resp, body, status, parseclient.ErrorCode(code))
		},
	}
}

func reconIdemAPI(t testing.TB, s *server) idemAPI {
	return idemAPI{
		name: "Reconciliation API", spec: recon(t), base: s.ReconURL, scope: "recon:production", table: "recon_jobs", filesPerJob: 2,
		newAccount: func(t testing.TB) idemAccount {
			id := s.newAccount(t, "Idem")
			clientID, secret := s.newClient(t, id)
			c := s.reconCaller(t, s.ReconURL, clientID, secret)
			return idemAccount{id: id, credential: c.token,
				charged: func(t testing.TB) int { return c.limits(t).JobsUsed },
				// The Reconciliation API lists no jobs: each job is read by its id instead, and
				// the database count below finds any job no answer named.
				listed: func(t testing.TB, ids []uuid.UUID) []uuid.UUID {
					for _, id := range ids {
						r, err := c.rc.GetJobWithResponse(context.Background(), id, bearer(c.token))
						require.NoError(t, err)
						require.Equal(t, http.StatusOK, r.StatusCode(), "%s", r.Body)
						require.Equal(t, id, r.JSON200.JobId)
					}
					return ids
				}}
		},
		request: func(t testing.TB, r int) (string, []byte) {
			return jobUpload(t, "bank.csv", bankCSV([]bankLine{{"2024-03-01", fmt.Sprintf("ROUND %d INV-2024-001", r), "1250.50"}}),
				"expected.csv", []byte(reconExpectedCSV))
		},
		other: func(t testing.TB, r int) (string, []byte) {
			return jobUpload(t, "bank.csv", bankCSV([]bankLine{{"2024-03-01", fmt.Sprintf("ROUND %d INV-2024-001", r), "1250.51"}}),
				"expected.csv", []byte(reconExpectedCSV))
		},
		jobID: func(t testing.TB, body []byte) uuid.UUID {
			var j reconclient.JobAccepted
			require.NoError(t, json.Unmarshal(body, &j), "%s", body)
			return j.JobId
		},
		requireError: func(t testing.TB, resp *http.Response, body []byte, status int, code string) {
			require.Equal(t, status, resp.StatusCode, "body: %s", body)
			var e reconclient.Error
			require.NoError(t, json.Unmarshal(body, &e), "body: %s", body)
			require.Equal(t, reconclient.ErrorCode(code), e.Error, "body: %s", body)
			require.Equal(t, e.Error, e.Detail.Code)
			require.NotEmpty(t, e.Detail.Message)
		},
	}
}

// TestIdempotencyConcurrentSameKey is matrix row I3 at full size, on both APIs: 100 rounds, each
// of 50 requests with one fresh Idempotency-Key and one body, released together by a barrier.
// Every round creates exactly one job: one answer is the 202 that created it, every other is the
// byte-identical 202 replay (Idempotent-Replayed: true) or 409 IDEMPOTENCY_CONFLICT in the API's
// error body, as PRODUCT.md and both specs say for a key whose first request is still in
// progress. After the race the key replays the winner (I1) and refuses another body with 422
// IDEMPOTENCY_KEY_REUSED (I2), and the quota the API reports has grown by exactly one. At the end
// the API's listing and the database hold exactly the winners: no duplicate job, no stray upload,
// one done key record per round naming its winner, and one quota charge per round. It takes
// about 20 s (both APIs side by side on two cores), so it runs in `make test`.
func TestIdempotencyConcurrentSameKey(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, a := range []idemAPI{parsingIdemAPI(t, s), reconIdemAPI(t, s)} {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			raceSameKey(t, s, a)
		})
	}
}

// TestIdempotencyKeyExpiry is matrix row I5 without moving the server's clock: the key's record
// is aged in the database instead. A key used 23 h 59 min ago still replays its job and still
// refuses another request; one used 24 h 1 min ago is forgotten, as both specs document (24 hours
// from first use): the same request creates a new job, charged, which the key then replays, and
// another request is accepted instead of 422.
func TestIdempotencyKeyExpiry(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	db, err := sql.Open("pgx", s.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	for _, a := range []idemAPI{parsingIdemAPI(t, s), reconIdemAPI(t, s)} {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			hc := pooledClient(t, a.spec)
			ctx := context.Background()
			acct := a.newAccount(t)
			age := func(key string, by time.Duration) {
				t.Helper()
				res, err := db.Exec(`UPDATE idempotency_keys SET created_at = $3 WHERE account_id = $1 AND key = $2`,
					acct.id, key, time.Now().Add(-by))
				require.NoError(t, err)
				n, err := res.RowsAffected()
				require.NoError(t, err)
				require.EqualValues(t, 1, n)
			}
			post := func(key, ct string, body []byte, wantReplay bool) idemAnswer {
				t.Helper()
				ans := a.post(ctx, hc, acct, key, ct, body)
				require.NoError(t, ans.err)
				require.Equal(t, http.StatusAccepted, ans.status, "%s", ans.body)
				replayed := map[bool]string{true: "true", false: ""}[wantReplay]
				require.Equal(t, replayed, ans.header.Get("Idempotent-Replayed"))
				return ans
			}
			ct, body := a.request(t, 0)
			otherCT, other := a.other(t, 0)

			key := uuid.NewString()
			first := post(key, ct, body, false)
			age(key, 24*time.Hour-time.Minute)
			require.Equal(t, string(first.body), string(post(key, ct, body, true).body), "23 h 59 min on, the key replays its job")
			reused := a.post(ctx, hc, acct, key, otherCT, other)
			require.NoError(t, reused.err)
			a.requireError(t, &http.Response{StatusCode: reused.status, Header: reused.header}, reused.body,
				http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
			require.Equal(t, 1, acct.charged(t))

			age(key, 24*time.Hour+time.Minute)
			second := post(key, ct, body, false)
			require.NotEqual(t, a.jobID(t, first.body), a.jobID(t, second.body), "24 h 1 min on, the same request creates a new job")
			require.Equal(t, 2, acct.charged(t), "and is charged")
			require.Equal(t, string(second.body), string(post(key, ct, body, true).body), "which the key now replays")

			key2 := uuid.NewString()
			post(key2, ct, body, false)
			age(key2, 24*time.Hour+time.Minute)
			post(key2, otherCT, other, false)
			require.Equal(t, 4, acct.charged(t), "an expired key takes another request")

			var jobs int
			require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+a.table+` WHERE account_id = $1`, acct.id).Scan(&jobs))
			require.Equal(t, 4, jobs)
		})
	}
}

func raceSameKey(t *testing.T, s *server, a idemAPI) {
	started := time.Now()
	hc := pooledClient(t, a.spec)
	ctx := context.Background()
	var (
		accounts  []idemAccount
		winners   = map[string][]uuid.UUID{} // account id -> its rounds' jobs
		conflicts int                        // 409 answers over all rounds
		replays   int                        // replayed 202 answers of the racers
	)
	for round := range idemRounds {
		if round%idemRoundsPerAccount == 0 {
			accounts = append(accounts, a.newAccount(t))
		}
		acct := accounts[len(accounts)-1]
		key := uuid.NewString()
		ct, body := a.request(t, round)

		answers := make([]idemAnswer, idemRacers)
		barrier := make(chan struct{})
		var ready, done sync.WaitGroup
		for i := range idemRacers {
			ready.Add(1)
			done.Go(func() {
				ready.Done()
				<-barrier
				answers[i] = a.post(ctx, hc, acct, key, ct, body)
			})
		}
		ready.Wait()
		close(barrier)
		done.Wait()

		var (
			created  []int
			firstJob uuid.UUID
		)
		for i, ans := range answers {
			require.NoError(t, ans.err, "round %d, request %d", round, i)
			resp := &http.Response{StatusCode: ans.status, Header: ans.header}
			switch ans.status {
			case http.StatusAccepted:
				if ans.header.Get("Idempotent-Replayed") == "" {
					created = append(created, i)
				} else {
					require.Equal(t, "true", ans.header.Get("Idempotent-Replayed"))
					replays++
				}
			case http.StatusConflict:
				a.requireError(t, resp, ans.body, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
				conflicts++
			default:
				t.Fatalf("%s round %d, request %d: %d (neither 202 nor 409) %s", a.name, round, i, ans.status, ans.body)
			}
		}
		require.Len(t, created, 1, "round %d: exactly one request creates the job", round)
		winner := answers[created[0]]
		firstJob = a.jobID(t, winner.body)
		for i, ans := range answers {
			if ans.status != http.StatusAccepted || i == created[0] {
				continue
			}
			require.Equal(t, string(winner.body), string(ans.body), "round %d, request %d: a replay is the winner's answer, byte for byte", round, i)
			require.Equal(t, winner.header.Get("Location"), ans.header.Get("Location"))
		}

		// I1: once the race is over the key replays the winner's answer.
		again := a.post(ctx, hc, acct, key, ct, body)
		require.NoError(t, again.err)
		require.Equal(t, http.StatusAccepted, again.status, "round %d: %s", round, again.body)
		require.Equal(t, "true", again.header.Get("Idempotent-Replayed"))
		require.Equal(t, string(winner.body), string(again.body), "round %d: the replay is the winner's answer", round)
		require.Equal(t, winner.header.Get("Location"), again.header.Get("Location"))

		// I2: the key with another body is refused and creates nothing.
		otherCT, other := a.other(t, round)
		reused := a.post(ctx, hc, acct, key, otherCT, other)
		require.NoError(t, reused.err)
		a.requireError(t, &http.Response{StatusCode: reused.status, Header: reused.header}, reused.body,
			http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")

		winners[acct.id] = append(winners[acct.id], firstJob)
		require.Equal(t, len(winners[acct.id]), acct.charged(t),
			"round %d: the account is charged once per round; the replays and the refused request charge nothing", round)
	}

	// The jobs the API shows are the winners, each once.
	var all []uuid.UUID
	for _, acct := range accounts {
		want := winners[acct.id]
		require.ElementsMatch(t, want, acct.listed(t, want), "the account's jobs are its rounds' winners, each once")
		all = append(all, want...)
	}
	require.Len(t, all, idemRounds)
	requireIdemRows(t, s, a, accounts, all)
	t.Logf("%s: %d rounds of %d concurrent requests with one key in %s: %d jobs, %d answers 409 IDEMPOTENCY_CONFLICT, %d replays during the races",
		a.name, idemRounds, idemRacers, time.Since(started).Round(time.Millisecond), len(all), conflicts, replays)
}

// requireIdemRows counts, in the server's database, what the accounts' requests left: exactly the
// jobs in want, their uploads and nothing more, one done Idempotency-Key record per job naming
// it, and one quota charge per job.
func requireIdemRows(t *testing.T, s *server, a idemAPI, accounts []idemAccount, want []uuid.UUID) {
	t.Helper()
	db, err := sql.Open("pgx", s.DatabaseURL)
	require.NoError(t, err)
	defer db.Close()
	ids := make([]string, len(accounts))
	for i, acct := range accounts {
		ids[i] = acct.id
	}
	column := func(query string, args ...any) []uuid.UUID {
		t.Helper()
		rows, err := db.Query(query, append([]any{ids}, args...)...)
		require.NoError(t, err)
		defer rows.Close()
		var out []uuid.UUID
		for rows.Next() {
			var id uuid.UUID
			require.NoError(t, rows.Scan(&id))
			out = append(out, id)
		}
		require.NoError(t, rows.Err())
		return out
	}
	count := func(query string, args ...any) int {
		t.Helper()
		var n int
		require.NoError(t, db.QueryRow(query, append([]any{ids}, args...)...).Scan(&n))
		return n
	}
	jobs := column(`SELECT id FROM ` + a.table + ` WHERE account_id = ANY($1::uuid[])`)
	require.Len(t, jobs, len(want), "job rows: one per round, no duplicates")
	require.ElementsMatch(t, want, jobs)
	require.Equal(t, len(want)*a.filesPerJob, count(`SELECT count(*) FROM uploads WHERE account_id = ANY($1::uuid[])`),
		"uploads: the winners' files only")
	keys := column(`SELECT resource_id FROM idempotency_keys WHERE account_id = ANY($1::uuid[]) AND scope = $2 AND state = 'done'`, a.scope)
	require.Equal(t, len(want), count(`SELECT count(*) FROM idempotency_keys WHERE account_id = ANY($1::uuid[])`),
		"one key record per round, none left pending")
	require.Len(t, keys, len(want))
	require.ElementsMatch(t, want, keys, "each round's key names its winner")
	require.Equal(t, len(want), count(`SELECT coalesce(sum(used), 0) FROM job_quota WHERE account_id = ANY($1::uuid[]) AND scope = $2`, a.scope),
		"the quota table charged once per round")
}

// TestIdempotencyKeyThatIsNotUTF8: a key with a byte that is not UTF-8 (HTTP lets a header carry
// one) is 400 INVALID_REQUEST on both APIs and creates nothing. The Reconciliation API's spec asks
// only for 1 to 255 characters, and such a key used to reach the database: 500 SERVER_ERROR.
func TestIdempotencyKeyThatIsNotUTF8(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, a := range []idemAPI{parsingIdemAPI(t, s), reconIdemAPI(t, s)} {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			hc := pooledClient(t, a.spec)
			acct := a.newAccount(t)
			ct, body := a.request(t, 0)
			for _, key := range []string{"\xb4", "key-\xff\xfe", "\xed\xa0\x80"} {
				ans := a.post(context.Background(), hc, acct, key, ct, body)
				require.NoError(t, ans.err)
				a.requireError(t, &http.Response{StatusCode: ans.status, Header: ans.header}, ans.body, http.StatusBadRequest, "INVALID_REQUEST")
			}
			require.Zero(t, acct.charged(t))
			ans := a.post(context.Background(), hc, acct, "key-\u00e9", ct, body)
			require.NoError(t, ans.err)
			if a.scope == "parse" {
				a.requireError(t, &http.Response{StatusCode: ans.status, Header: ans.header}, ans.body, http.StatusBadRequest, "INVALID_REQUEST")
				return // the Parsing API's keys are printable ASCII
			}
			require.Equal(t, http.StatusAccepted, ans.status, "a UTF-8 key is a key: %s", ans.body)
			require.Equal(t, 1, acct.charged(t))
		})
	}
}
