package contracttests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// TestSchemaFuzz (F1) walks every operation of both specs, as the loaded documents list them,
// and sends it requests generated from its parameters, request body and security: valid ones
// built on data seeded through the API for the caller's own account (completed, review and
// failed jobs, webhook endpoints with deliveries, real pagination cursors), and invalid ones with
// each parameter and body field broken in turn (wrong type, out of range, too long, not in the
// enum, missing, unknown, malformed JSON or multipart, wrong content type, missing or bad
// credentials). Every answer must conform to the spec (status, headers, content type, body),
// never be a 5xx, and be an error body of the API when it is 4xx; an invalid request must get
// the 4xx the spec gives it, a valid one its success status, or another status only where
// fuzzExpect lists it. Every resource a request creates is read back, and where the spec lets
// delete it, deleted and then looked for everywhere (404: no use after free). An operation added
// to a spec without a generator in reconFuzzTarget or parseFuzzTarget fails the test, so new
// operations are fuzzed as they are added.
//
// The run is deterministic for a seed (schemaFuzzSeed, logged): each operation draws from its
// own generator seeded with it and the operation's name. The ids of the seeded data differ from
// run to run; nothing else does. SCHEMAFUZZ_VERBOSE=1 logs every request and its answer.
func TestSchemaFuzz(t *testing.T) {
	t.Parallel()
	start := time.Now()
	t.Logf("schema fuzz seed %d", schemaFuzzSeed)
	// The walk sends dozens of valid webhook tests, more than an account's default 10 a minute.
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*", fmt.Sprintf("STATEMENTD_MAX_UPLOAD_BYTES=%d", fuzzMaxUpload),
		"STATEMENTD_WEBHOOK_TESTS_PER_MINUTE=1000")
	// One account on the top plans: 1,000 requests a minute on each API, more than a run sends
	// (requests without valid credentials are fewer than the 60 a minute an address may send).
	ten := s.newTenant(t, "fuzz")
	receiver := newReceiver(t, http.StatusNoContent)

	prod, sandbox := s.seedReconFuzz(t, ten)
	ps := s.seedParseFuzz(t, ten, receiver.URL)
	t.Logf("seeded in %s", time.Since(start).Round(time.Millisecond))

	targets := []*fuzzTarget{
		reconFuzzTarget(t, "reconciliation production", s.ReconURL, "production", prod, sandbox),
		reconFuzzTarget(t, "reconciliation sandbox", s.SandboxURL, "sandbox", sandbox, prod),
		parseFuzzTarget(t, s.ParseURL, receiver.URL, ps),
	}
	t.Run("walk", func(t *testing.T) {
		for _, ft := range targets {
			t.Run(ft.name, func(t *testing.T) {
				t.Parallel()
				ft.run(t)
			})
		}
	})
	total := 0
	for _, ft := range targets {
		total += ft.sent
	}
	// The run must stay inside the plans' budgets, or valid requests would get 429: 1,000
	// requests a minute per API for the account (production and sandbox share one), 60 refused
	// for credentials per address and API. The seeding adds a few dozen.
	require.Less(t, targets[0].authed+targets[1].authed, 900, "requests to the Reconciliation API")
	require.Less(t, targets[2].authed, 900, "requests to the Parsing API")
	require.Less(t, targets[0].refused+targets[1].refused, 55, "requests refused by the Reconciliation API")
	require.Less(t, targets[2].refused, 55, "requests refused by the Parsing API")
	t.Logf("%d generated requests in %s (seed %d)", total, time.Since(start).Round(time.Millisecond), schemaFuzzSeed)
}

// fuzzVerbose (SCHEMAFUZZ_VERBOSE=1) logs every generated request with its answer's status and
// the start of its body.
var fuzzVerbose = os.Getenv("SCHEMAFUZZ_VERBOSE") != ""

// schemaFuzzSeed makes a run reproducible; change it to explore other inputs.
const schemaFuzzSeed uint64 = 0x5C4E3AF1

const (
	// fuzzMaxCases bounds the requests generated per operation and target; the cases that must
	// run (seeded resources, credentials, stateful sequences) are always kept, the rest sampled.
	fuzzMaxCases = 64
	// fuzzValidBodies is how many valid request bodies an operation gets per media type.
	fuzzValidBodies = 6
	// fuzzCombos is how many requests combine random valid values of several parameters.
	fuzzCombos = 3
	// fuzzAuthVariants is how many kinds of bad credentials each authenticated operation gets;
	// they rotate over the operations so that all are used.
	fuzzAuthVariants = 3
	// fuzzMaxUpload is the server's upload limit, small so the 413 case needs no large body.
	fuzzMaxUpload = 256 << 10
	// fuzzJSONLimit is the limit of every body that is not an upload (BodyTooLarge in the specs).
	fuzzJSONLimit = 1 << 20
)

// fuzzExpect: the statuses other than an operation's success that a valid request may get, each
// where the spec says so. A valid request getting anything else, a 4xx included, fails.
const (
	// An id of nothing the caller owns: a random UUID, a job of the other environment, a
	// deleted webhook endpoint (404 NOT_FOUND on every {id} operation).
	wantNotFound = http.StatusNotFound
	// Results or export of a failed job (409 JOB_NOT_READY on getJobResults and exportJob).
	wantNotReady = http.StatusConflict
	// `env` naming the other environment (400 INVALID_REQUEST on createToken and createJob).
	wantOtherEnv = http.StatusBadRequest
	// Client credentials of the right shape that belong to no client (401 AUTH_INVALID on
	// createToken).
	wantBadClient = http.StatusUnauthorized
	// An Idempotency-Key already used with another request (422 IDEMPOTENCY_KEY_REUSED).
	wantKeyReused = http.StatusUnprocessableEntity
)

// fuzzKind says what a request is and so what its answer must be.
type fuzzKind int

const (
	// fuzzValid follows the spec: its answer must be one of want (the success status unless
	// fuzzExpect says otherwise).
	fuzzValid fuzzKind = iota
	// fuzzInvalid breaks the spec: its answer must be the 4xx in want, in the API's error body.
	fuzzInvalid
	// fuzzEdge is well-formed but odd (a tampered cursor, a leap second): any answer the spec
	// declares except a 5xx or a 429.
	fuzzEdge
)

func (k fuzzKind) String() string {
	return [...]string{"valid", "invalid", "edge"}[k]
}

// fuzzCase is one generated request.
type fuzzCase struct {
	name         string
	kind         fuzzKind
	must         bool // kept when the operation's cases are bounded
	method, path string
	pathParams   map[string]string
	query        url.Values
	header       http.Header
	// media and fields are the body before encoding (nil: no body); contentType and body are
	// what is sent.
	media       string
	fields      map[string]any
	contentType string
	body        []byte
	want        []int
	// check adds checks of its own on the answer; it returns the problems it found.
	check func(resp *http.Response, body []byte) []string
}

func (c fuzzCase) clone() fuzzCase {
	c.pathParams = cloneStrings(c.pathParams)
	c.query = cloneValues(c.query)
	c.header = c.header.Clone()
	if c.header == nil {
		c.header = http.Header{}
	}
	c.fields = cloneFields(c.fields)
	return c
}

// fuzzFile is a file part of a generated multipart body.
type fuzzFile struct {
	name    string
	content []byte
	// contentType of the part; empty: application/octet-stream, "-": none.
	contentType string
}

// fuzzResource is a starting point of valid requests: path parameters naming the caller's own
// seeded data (or nothing) and query parameters that belong with them (a real cursor and the
// filters it was made for), with the status the spec gives it (0: the operation's success).
type fuzzResource struct {
	name  string
	path  map[string]string
	query url.Values
	want  int
}

// fuzzGen is what the generic generator cannot read from the spec about one operation.
type fuzzGen struct {
	// resources are the operation's valid starting points; the first is the primary one,
	// on which parameters and bodies are varied. None: the operation has no path parameters.
	resources []fuzzResource
	// opaque names the parameters whose values only the server makes (cursors): they are sent
	// as resources give them, and broken like any other.
	opaque []string
	// files are valid contents of the binary parts of a multipart body, by part name.
	files map[string][]fuzzFile
	// fix makes a body generated from the schema valid in meaning too (real credentials, an
	// allowed URL, a seeded id) and sets c.want where the spec gives such a body another status.
	fix func(r *rand.Rand, c *fuzzCase)
	// extra returns hand-made cases: stateful sequences and spec rules the schema cannot show.
	extra func(o *fuzzOp) []fuzzCase
	// adjust changes the expectation of generated cases where the spec's rules differ from what
	// its schemas say (each use says why).
	adjust func(c *fuzzCase)
}

// fuzzTarget is one listener and the spec it serves, with a valid credential of the account
// the data was seeded for.
type fuzzTarget struct {
	name    string
	api     *api
	base    string
	auth    string // a valid Authorization header
	badAuth []fuzzAuth
	gens    map[string]fuzzGen // by operationId

	r        *rand.Rand
	client   *http.Client
	deferred []string // Locations of created resources to read after the walk
	// Counts: requests sent, by kind, with the account's credential, and refused with 401.
	sent, authed, refused int
	kinds                 map[fuzzKind]int
}

// fuzzAuth is an Authorization header (empty: none) that every authenticated operation refuses
// with 401.
type fuzzAuth struct{ name, header string }

// run walks every path and method of the spec in a stable order, then follows up the resources
// the walk created.
func (ft *fuzzTarget) run(t *testing.T) {
	start := time.Now()
	h := fnv.New64a()
	_, _ = io.WriteString(h, ft.name)
	ft.r = rand.New(rand.NewPCG(schemaFuzzSeed, h.Sum64()))
	ft.client = &http.Client{Timeout: 30 * time.Second}
	ft.kinds = map[fuzzKind]int{}
	paths := ft.api.spec.Paths.Map()
	seen := map[string]bool{}
	// The generated code capitalises operation ids; the generators are named as the specs do.
	gens := map[string]fuzzGen{}
	for id, g := range ft.gens {
		gens[strings.ToLower(id)] = g
	}
	ops := 0
	for _, path := range sortedKeys(paths) {
		item := paths[path]
		for _, method := range sortedKeys(item.Operations()) {
			op := item.GetOperation(method)
			gen, ok := gens[strings.ToLower(op.OperationID)]
			if !ok {
				t.Errorf("%s %s %s (%s): no generator; add one to the %s target of TestSchemaFuzz",
					ft.api.name, method, path, op.OperationID, ft.name)
				continue
			}
			seen[strings.ToLower(op.OperationID)] = true
			o := newFuzzOp(t, ft, path, item, method, op, gen, ops)
			ops++
			cases := o.cases()
			t.Run(method+" "+path, func(t *testing.T) {
				for _, c := range cases {
					ft.send(t, op.OperationID, c)
				}
				t.Logf("%d requests", len(cases))
			})
		}
		for _, c := range pathProbes(ft, path, item) {
			ft.send(t, "path "+path, c)
		}
	}
	for id := range ft.gens {
		if !seen[strings.ToLower(id)] {
			t.Errorf("%s: generator for %s, which the spec does not have", ft.name, id)
		}
	}
	// The resources created that are deleted as tombstones (jobs), now that most have
	// finished: read, then deleted, then gone (410) everywhere.
	t.Run("created resources", func(t *testing.T) {
		for _, loc := range ft.deferred {
			ft.followUp(t, loc, false)
			ft.entomb(t, loc)
		}
	})
	t.Logf("%s: %d operations, %d requests (%d valid, %d invalid, %d edge) in %s; %d with the account's credential, %d refused for credentials",
		ft.name, ops, ft.sent, ft.kinds[fuzzValid], ft.kinds[fuzzInvalid], ft.kinds[fuzzEdge],
		time.Since(start).Round(time.Millisecond), ft.authed, ft.refused)
}

// created follows up a resource a request created (its Location): one that the spec lets delete
// is read, deleted, and then must be gone everywhere (404: use after free); others are read
// after the walk.
func (ft *fuzzTarget) created(t *testing.T, location string) {
	tmpl, _ := ft.matchPath(location)
	if tmpl == "" {
		t.Errorf("%s: Location %q is no path of the spec", ft.name, location)
		return
	}
	if ft.api.spec.Paths.Value(tmpl).Delete != nil && !ft.tombstoned(tmpl) {
		ft.followUp(t, location, true)
		return
	}
	ft.deferred = append(ft.deferred, location)
}

// tombstoned reports whether a resource of the spec's path tmpl stays known once deleted: its
// GET documents 410 (a job, whose id answers 410 GONE after DELETE).
func (ft *fuzzTarget) tombstoned(tmpl string) bool {
	get := ft.api.spec.Paths.Value(tmpl).Get
	return get != nil && get.Responses.Value("410") != nil
}

// entomb deletes a created resource that stays known as deleted, once it lets itself be
// deleted (a job only when it has finished: 409 until then), deletes it again (the same
// success), and checks that it and every GET below it answer 410.
func (ft *fuzzTarget) entomb(t *testing.T, location string) {
	tmpl, params := ft.matchPath(location)
	del := ft.api.spec.Paths.Value(tmpl).Delete
	if del == nil {
		return
	}
	auth := http.Header{"Authorization": {ft.auth}}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		req, err := http.NewRequest(http.MethodDelete, ft.base+location, nil)
		require.NoError(t, err)
		req.Header = auth.Clone()
		resp, err := ft.client.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusConflict || time.Now().After(deadline) {
			require.Equal(t, successOf(del), resp.StatusCode, "delete %s", location)
			break
		}
	}
	ft.send(t, "follow-up", fuzzCase{name: "delete the deleted resource " + location, kind: fuzzValid, method: http.MethodDelete,
		path: tmpl, pathParams: params, header: auth.Clone(), want: []int{successOf(del)}})
	for _, p := range sortedKeys(ft.api.spec.Paths.Map()) {
		rest, below := strings.CutPrefix(p, tmpl+"/")
		if get := ft.api.spec.Paths.Value(p).Get; get != nil && (p == tmpl || below && !strings.Contains(rest, "{")) {
			ft.send(t, "follow-up", fuzzCase{name: "deleted: " + p + " " + location, kind: fuzzValid, method: http.MethodGet,
				path: p, pathParams: params, header: auth.Clone(), want: []int{http.StatusGone}})
		}
	}
}

// followUp reads a created resource and the GET operations below it (which may answer 409 for
// its state, a job without results yet), and with remove deletes it and checks that it is gone.
func (ft *fuzzTarget) followUp(t *testing.T, location string, remove bool) {
	tmpl, params := ft.matchPath(location)
	auth := http.Header{"Authorization": {ft.auth}}
	var below []string
	for _, p := range sortedKeys(ft.api.spec.Paths.Map()) {
		if rest, ok := strings.CutPrefix(p, tmpl+"/"); ok && !strings.Contains(rest, "{") && ft.api.spec.Paths.Value(p).Get != nil {
			below = append(below, p)
		}
	}
	get := func(path, name string, want ...int) {
		ft.send(t, "follow-up", fuzzCase{name: name + " " + location, kind: fuzzValid, method: http.MethodGet, path: path,
			pathParams: params, header: auth.Clone(), want: want})
	}
	read := func(when string, gone bool) {
		item := ft.api.spec.Paths.Value(tmpl)
		if item.Get != nil {
			if gone {
				get(tmpl, when+": the created resource", wantNotFound)
			} else {
				get(tmpl, when+": the created resource", successOf(item.Get))
			}
		}
		for _, p := range below {
			if gone {
				get(p, when+": "+strings.TrimPrefix(p, tmpl), wantNotFound)
			} else {
				get(p, when+": "+strings.TrimPrefix(p, tmpl), successOf(ft.api.spec.Paths.Value(p).Get), wantNotReady)
			}
		}
	}
	read("created", false)
	if !remove {
		return
	}
	del := ft.api.spec.Paths.Value(tmpl).Delete
	ft.send(t, "follow-up", fuzzCase{name: "delete the created resource " + location, kind: fuzzValid, method: http.MethodDelete,
		path: tmpl, pathParams: params, header: auth.Clone(), want: []int{successOf(del)}})
	ft.send(t, "follow-up", fuzzCase{name: "delete the deleted resource " + location, kind: fuzzValid, method: http.MethodDelete,
		path: tmpl, pathParams: params, header: auth.Clone(), want: []int{wantNotFound}})
	read("deleted", true)
}

// matchPath finds the spec's path of a request path, with its parameters.
func (ft *fuzzTarget) matchPath(path string) (string, map[string]string) {
	// Literal paths first (/webhooks/test before /webhooks/{id}).
	tmpls := sortedKeys(ft.api.spec.Paths.Map())
	sort.SliceStable(tmpls, func(i, j int) bool { return strings.Count(tmpls[i], "{") < strings.Count(tmpls[j], "{") })
	for _, tmpl := range tmpls {
		var re strings.Builder
		re.WriteString("^")
		last := 0
		for _, loc := range pathParamPattern.FindAllStringIndex(tmpl, -1) {
			re.WriteString(regexp.QuoteMeta(tmpl[last:loc[0]]) + "([^/]+)")
			last = loc[1]
		}
		re.WriteString(regexp.QuoteMeta(tmpl[last:]) + "$")
		m := regexp.MustCompile(re.String()).FindStringSubmatch(path)
		if m == nil {
			continue
		}
		params := map[string]string{}
		for i, name := range pathParamNames(tmpl) {
			params[name] = m[i+1]
		}
		return tmpl, params
	}
	return "", nil
}

// successOf is an operation's lowest 2xx status.
func successOf(op *openapi3.Operation) int {
	codes := make([]int, 0, 2)
	for code := range op.Responses.Map() {
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
			codes = append(codes, n)
		}
	}
	sort.Ints(codes)
	if len(codes) == 0 {
		return 0
	}
	return codes[0]
}

// pathProbes are the requests of a path with each method it does not declare (405
// METHOD_NOT_ALLOWED naming the declared ones in Allow) and with a trailing slash (a path the
// spec does not have: any answer but a 5xx, in the error body).
func pathProbes(ft *fuzzTarget, path string, item *openapi3.PathItem) []fuzzCase {
	declared := item.Operations()
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if _, ok := declared[m]; ok {
			allowed = append(allowed, m)
		}
	}
	params := map[string]string{}
	for _, name := range pathParamNames(path) {
		params[name] = fuzzUUID(ft.r)
	}
	auth := http.Header{"Authorization": {ft.auth}}
	var out []fuzzCase
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if _, ok := declared[m]; ok {
			continue
		}
		out = append(out, fuzzCase{name: m + " is not declared", kind: fuzzInvalid, method: m, path: path, pathParams: params,
			header: auth.Clone(), want: []int{http.StatusMethodNotAllowed},
			check: func(resp *http.Response, _ []byte) []string {
				got := strings.Split(strings.ReplaceAll(resp.Header.Get("Allow"), " ", ""), ",")
				sort.Strings(got)
				want := slices.Clone(allowed)
				sort.Strings(want)
				if !slices.Equal(got, want) {
					return []string{fmt.Sprintf("Allow: %q, want the declared methods %v", resp.Header.Get("Allow"), want)}
				}
				return nil
			}})
	}
	if len(allowed) > 0 {
		out = append(out, fuzzCase{name: "a trailing slash", kind: fuzzEdge, method: allowed[0], path: path + "/", pathParams: params,
			header: auth.Clone()})
	}
	return out
}

var pathParamPattern = regexp.MustCompile(`\{([^}]+)\}`)

func pathParamNames(path string) []string {
	var out []string
	for _, m := range pathParamPattern.FindAllStringSubmatch(path, -1) {
		out = append(out, m[1])
	}
	return out
}

// send sends one case and checks its answer, reporting every problem with the request.
func (ft *fuzzTarget) send(t *testing.T, opID string, c fuzzCase) {
	t.Helper()
	ft.sent++
	ft.kinds[c.kind]++
	reqID := fmt.Sprintf("fuzz-%d", ft.sent)
	path := pathParamPattern.ReplaceAllStringFunc(c.path, func(m string) string {
		return url.PathEscape(c.pathParams[m[1:len(m)-1]])
	})
	u := ft.base + path
	if len(c.query) > 0 {
		u += "?" + c.query.Encode()
	}
	req, err := http.NewRequest(c.method, u, bytes.NewReader(c.body))
	require.NoError(t, err, c.name)
	req.Header = c.header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	req.Header.Set("X-Request-Id", reqID)
	if req.Header.Get("Authorization") == ft.auth {
		ft.authed++
	}
	resp, err := ft.client.Do(req)
	require.NoError(t, err, "%s: %s", opID, c.name)
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	if resp.StatusCode == http.StatusUnauthorized && req.Header.Get("Authorization") != ft.auth {
		ft.refused++
	}

	var problems []string
	if resp.StatusCode >= 500 {
		problems = append(problems, "a server error")
	}
	if err := ft.api.validate(req, resp, body); err != nil {
		problems = append(problems, "the answer does not conform to the spec: "+firstLines(err.Error(), 3))
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests && !slices.Contains(c.want, resp.StatusCode):
		problems = append(problems, "rate limited: the run sent more than the plan allows")
	case c.kind != fuzzEdge && !slices.Contains(c.want, resp.StatusCode):
		problems = append(problems, fmt.Sprintf("status %d, want %v", resp.StatusCode, c.want))
	}
	if c.kind == fuzzInvalid && (resp.StatusCode < 400 || resp.StatusCode >= 500) {
		problems = append(problems, "an invalid request was not refused with a 4xx")
	}
	if resp.StatusCode >= 400 {
		problems = append(problems, ft.errorBodyProblems(resp, body)...)
	}
	if got := resp.Header.Get("X-Request-Id"); got != reqID {
		problems = append(problems, fmt.Sprintf("X-Request-Id %q, want the one sent, %q", got, reqID))
	}
	if c.check != nil {
		problems = append(problems, c.check(resp, body)...)
	}
	if fuzzVerbose {
		t.Logf("%d %s %s %s %q: %s", resp.StatusCode, ft.name, opID, c.kind, c.name, truncateN(body, 160))
	}
	if len(problems) > 0 {
		t.Errorf("%s %s: %s request %q (seed %d):\n  %s\n  request: %s %s\n    headers: %s\n    body (%s): %s\n  answer: %d %s\n    %s",
			ft.name, opID, c.kind, c.name, schemaFuzzSeed, strings.Join(problems, "\n  "), c.method, u,
			redactHeaders(req.Header), c.contentType, truncateN(c.body, 300), resp.StatusCode, resp.Header.Get("Content-Type"), truncateN(body, 600))
	}
	if loc := resp.Header.Get("Location"); loc != "" && (resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusAccepted) &&
		resp.Header.Get("Idempotent-Replayed") != "true" {
		ft.created(t, loc)
	}
}

// errorBodyProblems checks an error answer: the API's error body with a code and a message for a
// person that shows no internals.
func (ft *fuzzTarget) errorBodyProblems(resp *http.Response, body []byte) []string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []string{"the error answer is not JSON"}
	}
	if err := ft.api.errorSchema.VisitJSON(v); err != nil {
		return []string{"the error answer is not the API's error body: " + firstLines(err.Error(), 2)}
	}
	var e struct {
		Ok     *bool           `json:"ok"`
		Error  string          `json:"error"`
		Detail json.RawMessage `json:"detail"`
		Meta   struct {
			RequestID string `json:"request_id"`
		} `json:"meta"`
	}
	_ = json.Unmarshal(body, &e)
	var message string
	var problems []string
	if ft.api.name == "parsing" {
		_ = json.Unmarshal(e.Detail, &message)
		if e.Meta.RequestID != resp.Header.Get("X-Request-Id") {
			problems = append(problems, fmt.Sprintf("meta.request_id %q is not the answer's X-Request-Id", e.Meta.RequestID))
		}
	} else {
		var d struct{ Code, Message string }
		_ = json.Unmarshal(e.Detail, &d)
		if d.Code != e.Error {
			problems = append(problems, fmt.Sprintf("error %q and detail.code %q differ", e.Error, d.Code))
		}
		message = d.Message
	}
	if strings.TrimSpace(message) == "" {
		problems = append(problems, "the error has no message")
	}
	for _, leak := range []string{"goroutine", ".go:", "SQLSTATE", "pq:", "panic", "Schema:", "Value:", "runtime error"} {
		if strings.Contains(message, leak) {
			problems = append(problems, fmt.Sprintf("the error message shows internals (%q)", leak))
		}
	}
	return problems
}

// fuzzOp generates the cases of one operation on one target.
type fuzzOp struct {
	t       *testing.T
	ft      *fuzzTarget
	name    string // "POST /api/v1/jobs"
	method  string
	path    string
	op      *openapi3.Operation
	params  []*openapi3.Parameter
	gen     fuzzGen
	r       *rand.Rand
	success int
	// auth: the operation needs a bearer credential.
	auth  bool
	index int
}

func newFuzzOp(t *testing.T, ft *fuzzTarget, path string, item *openapi3.PathItem, method string, op *openapi3.Operation, gen fuzzGen, index int) *fuzzOp {
	h := fnv.New64a()
	_, _ = io.WriteString(h, ft.name+" "+op.OperationID)
	o := &fuzzOp{t: t, ft: ft, name: method + " " + path, method: method, path: path, op: op, gen: gen,
		r: rand.New(rand.NewPCG(schemaFuzzSeed, h.Sum64())), index: index}
	// Path-level parameters, unless the operation overrides them.
	byKey := map[string]*openapi3.Parameter{}
	var order []string
	for _, refs := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, ref := range refs {
			p := ref.Value
			key := p.In + ":" + p.Name
			if _, ok := byKey[key]; !ok {
				order = append(order, key)
			}
			byKey[key] = p
		}
	}
	for _, k := range order {
		o.params = append(o.params, byKey[k])
	}
	o.success = successOf(op)
	require.NotZero(t, o.success, "%s has no success status", o.name)

	security := op.Security
	if security == nil {
		security = &ft.api.spec.Security
	}
	anonymous := len(*security) == 0
	for _, req := range *security {
		if len(req) == 0 {
			anonymous = true
		}
		for name := range req {
			scheme := ft.api.spec.Components.SecuritySchemes[name].Value
			bearer := scheme.Type == "oauth2" || (scheme.Type == "http" && strings.EqualFold(scheme.Scheme, "bearer"))
			if !bearer && !(scheme.Type == "http" && strings.EqualFold(scheme.Scheme, "basic")) {
				t.Fatalf("%s: security scheme %s of type %s: the fuzzer knows no credential for it", o.name, name, scheme.Type)
			}
		}
	}
	// An operation that also accepts no credentials (createToken: {} or ClientBasic) gets its
	// credential cases from its generator.
	o.auth = !anonymous
	return o
}

// cases generates the operation's requests, bounded to fuzzMaxCases.
func (o *fuzzOp) cases() []fuzzCase {
	var all []fuzzCase
	primary := fuzzResource{name: "no path parameters"}
	if len(o.gen.resources) > 0 {
		primary = o.gen.resources[0]
	} else if len(pathParamNames(o.path)) > 0 {
		o.t.Fatalf("%s: path parameters but no seeded resources in its generator", o.name)
	}

	// Each seeded resource as it is.
	for _, res := range o.gen.resources {
		c := o.base(res)
		c.name, c.must = res.name, true
		all = append(all, c)
	}
	if len(o.gen.resources) == 0 {
		c := o.base(primary)
		c.name, c.must = "required parameters only", true
		all = append(all, c)
	}
	// UUIDs are case-insensitive on input (RFC 9562 section 4).
	if upper := upperPath(o.params, primary.path); upper != nil {
		res := primary
		res.path = upper
		c := o.base(res)
		c.name = primary.name + ", its UUID in capitals"
		all = append(all, c)
	}

	// Each optional parameter at each of its boundary values, one at a time.
	optional := o.variableParams()
	for _, p := range optional {
		for _, v := range o.validValues(p) {
			c := o.base(primary)
			c.name = fmt.Sprintf("%s %s = %s", p.In, p.Name, v.label)
			o.setParam(&c, p, v.value)
			all = append(all, c)
		}
		for _, v := range o.edgeValues(p) {
			c := o.base(primary)
			c.name, c.kind, c.want = fmt.Sprintf("%s %s = %s", p.In, p.Name, v.label), fuzzEdge, nil
			o.setParam(&c, p, v.value)
			all = append(all, c)
		}
		if values := o.validValues(p); p.In == "query" && len(values) > 1 {
			c := o.base(primary)
			c.name, c.kind, c.want = fmt.Sprintf("query %s twice", p.Name), fuzzEdge, nil
			c.query[p.Name] = []string{values[0].value, values[len(values)-1].value}
			all = append(all, c)
		}
	}
	// Random combinations of them.
	if len(optional) > 1 {
		for i := range fuzzCombos {
			c := o.base(primary)
			var parts []string
			for _, p := range optional {
				values := o.validValues(p)
				if len(values) == 0 || o.r.IntN(2) == 0 {
					continue
				}
				v := values[o.r.IntN(len(values))]
				o.setParam(&c, p, v.value)
				parts = append(parts, p.Name+"="+v.label)
			}
			c.name = fmt.Sprintf("combination %d: %s", i+1, strings.Join(parts, ", "))
			all = append(all, c)
		}
	}

	// Valid bodies of every media type: minimal, maximal, then random.
	if rb := o.requestBody(); rb != nil {
		for _, media := range sortedKeys(rb.Content) {
			for i := range fuzzValidBodies {
				c := o.base(primary)
				o.setBody(&c, media, o.generateBody(media, i%3, i))
				c.name = fmt.Sprintf("%s body %d (%s)", media, i+1, []string{"required fields only", "every field at its longest", "random fields"}[i%3])
				all = append(all, c)
			}
			if media != "multipart/form-data" {
				// Media type parameters and case do not change the media type (RFC 9110 8.3.1).
				c := o.withBody(o.base(primary), media)
				c.name, c.contentType = "Content-Type with a charset", media+"; charset=utf-8"
				all = append(all, c)
				c = o.withBody(o.base(primary), media)
				c.name, c.contentType = "Content-Type in capitals", strings.ToUpper(media)
				all = append(all, c)
			}
			all = append(all, o.oddTextBodies(primary, media, rb.Content[media].Schema.Value)...)
		}
	}

	// Each parameter broken in turn.
	for _, p := range o.params {
		// An empty query value is invalid without allowEmptyValue, also for a parameter with a
		// default (`limit=` is not `limit=20`).
		empty := p.In == "query" && !p.AllowEmptyValue
		for _, v := range o.invalidValues(p.Schema.Value, empty, slices.Contains(o.gen.opaque, p.Name)) {
			c := o.base(primary)
			c.name, c.kind, c.want = fmt.Sprintf("%s %s = %s", p.In, p.Name, v.label), fuzzInvalid, []int{http.StatusBadRequest}
			o.setParam(&c, p, v.value)
			all = append(all, c)
		}
	}
	for _, p := range o.params {
		if p.Required && p.In != "path" {
			c := o.base(primary)
			c.name, c.kind, c.want = fmt.Sprintf("%s %s missing (required)", p.In, p.Name), fuzzInvalid, []int{http.StatusBadRequest}
			delete(c.query, p.Name)
			c.header.Del(p.Name)
			all = append(all, c)
		}
	}

	// Each body field broken in turn, and bodies that are no body of the operation.
	if rb := o.requestBody(); rb != nil {
		for _, media := range sortedKeys(rb.Content) {
			all = append(all, o.invalidBodies(primary, media, rb.Content[media].Schema.Value)...)
		}
		all = append(all, o.wrongContentTypes(primary, rb)...)
	}

	// Credentials.
	all = append(all, o.authCases(primary)...)
	// Idempotency: a replay and a reuse of a key.
	all = append(all, o.idempotencyCases(primary)...)
	if o.gen.extra != nil {
		for _, c := range o.gen.extra(o) {
			c.must = true
			all = append(all, c)
		}
	}
	all = o.bound(all)
	if o.gen.adjust != nil {
		for i := range all {
			o.gen.adjust(&all[i])
		}
	}
	return all
}

// upperPath is the path parameters with their UUIDs in capitals, nil when there is none.
func upperPath(params []*openapi3.Parameter, values map[string]string) map[string]string {
	out, changed := cloneStrings(values), false
	for _, p := range params {
		if v, ok := values[p.Name]; ok && p.In == "path" && resolveSchema(p.Schema.Value).Format == "uuid" && strings.ToUpper(v) != v {
			out[p.Name], changed = strings.ToUpper(v), true
		}
	}
	if !changed {
		return nil
	}
	return out
}

// oddTextBodies put text the schema allows but a store may not (a NUL byte, control characters,
// an unpaired UTF-16 surrogate) in each free-text field of a valid body, one at a time: the spec
// does not say whether they are accepted, but they must never cause a server error.
func (o *fuzzOp) oddTextBodies(primary fuzzResource, media string, s *openapi3.Schema) []fuzzCase {
	s = resolveSchema(s)
	if media == "multipart/form-data" {
		return nil
	}
	var out []fuzzCase
	for _, name := range sortedKeys(s.Properties) {
		ps := resolveSchema(s.Properties[name].Value)
		if schemaType(ps) != "string" || len(ps.Enum) > 0 || ps.Format == "binary" {
			continue
		}
		for _, odd := range []struct{ label, value string }{
			{"a NUL byte", "nul\x00inside"}, {"control characters", "ctl\x01\x1b[31m\x7f"}, {"an unpaired surrogate", fuzzSurrogate},
		} {
			if odd.value == fuzzSurrogate && media != "application/json" {
				continue
			}
			c := o.withBody(o.base(primary), media)
			c.name, c.kind, c.want = fmt.Sprintf("%s: %s with %s", media, name, odd.label), fuzzEdge, nil
			v, ok := c.fields[name].(string)
			if !ok && ps.Format != "" {
				continue // an optional field of a format (a UUID): nothing to put the text in
			}
			c.fields[name] = v[:min(len(v), 8)] + odd.value
			c.contentType, c.body = encodeFuzzBody(o.t, media, c.fields)
			c.body = bytes.ReplaceAll(c.body, []byte(fuzzSurrogate), []byte(`\ud800`))
			out = append(out, c)
		}
	}
	return out
}

// fuzzSurrogate stands for a JSON escape of an unpaired surrogate, which no Go string can hold.
const fuzzSurrogate = "FUZZ-SURROGATE"

// bound keeps every must case and a sample of the others, in their order, up to fuzzMaxCases.
func (o *fuzzOp) bound(all []fuzzCase) []fuzzCase {
	if len(all) <= fuzzMaxCases {
		return all
	}
	var optional []int
	keep := map[int]bool{}
	for i, c := range all {
		if c.must {
			keep[i] = true
		} else {
			optional = append(optional, i)
		}
	}
	o.r.Shuffle(len(optional), func(i, j int) { optional[i], optional[j] = optional[j], optional[i] })
	for _, i := range optional {
		if len(keep) >= fuzzMaxCases {
			break
		}
		keep[i] = true
	}
	var out []fuzzCase
	for i, c := range all {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out
}

func (o *fuzzOp) requestBody() *openapi3.RequestBody {
	if o.op.RequestBody == nil {
		return nil
	}
	return o.op.RequestBody.Value
}

// base is a valid request on res: its path and query, the credential, and a valid body of the
// first media type when the operation takes one.
func (o *fuzzOp) base(res fuzzResource) fuzzCase {
	c := fuzzCase{kind: fuzzValid, method: o.method, path: o.path, pathParams: cloneStrings(res.path),
		query: cloneValues(res.query), header: http.Header{}, want: []int{o.success}}
	if res.want != 0 {
		c.want = []int{res.want}
	}
	if c.query == nil {
		c.query = url.Values{}
	}
	if o.auth {
		c.header.Set("Authorization", o.ft.auth)
	}
	if rb := o.requestBody(); rb != nil {
		return o.withBody(c, sortedKeys(rb.Content)[0])
	}
	return c
}

// withBody gives c a minimal valid body of the media type that keeps c's expected status (the
// generator's fix may draw one that the spec answers otherwise).
func (o *fuzzOp) withBody(c fuzzCase, media string) fuzzCase {
	for try := range 20 {
		b := c.clone()
		o.setBody(&b, media, o.generateBody(media, 0, try))
		if slices.Equal(b.want, c.want) {
			return b
		}
	}
	o.t.Fatalf("%s: no minimal %s body with status %v in 20 tries", o.name, media, c.want)
	return c
}

// setBody generates the case's body from fields and runs the generator's fix on it.
func (o *fuzzOp) setBody(c *fuzzCase, media string, fields map[string]any) {
	c.media, c.fields = media, fields
	if o.gen.fix != nil {
		o.gen.fix(o.r, c)
	}
	c.contentType, c.body = encodeFuzzBody(o.t, c.media, c.fields)
}

// variableParams are the optional parameters the fuzzer chooses values of itself.
func (o *fuzzOp) variableParams() []*openapi3.Parameter {
	var out []*openapi3.Parameter
	for _, p := range o.params {
		if p.In != "path" && !slices.Contains(o.gen.opaque, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

func (o *fuzzOp) setParam(c *fuzzCase, p *openapi3.Parameter, v string) {
	switch p.In {
	case "path":
		c.pathParams[p.Name] = v
	case "query":
		c.query.Set(p.Name, v)
	case "header":
		c.header.Set(p.Name, v)
	default:
		o.t.Fatalf("%s: parameter %s in %s: the fuzzer cannot send it", o.name, p.Name, p.In)
	}
}

// labeled is a generated value with what it is.
type labeled struct {
	label string
	value string
}

// validValues are a parameter's values at its boundaries: minimum, maximum, default, every enum
// value, the edges of time, the shortest and longest strings.
func (o *fuzzOp) validValues(p *openapi3.Parameter) []labeled {
	s := resolveSchema(p.Schema.Value)
	var out []labeled
	add := func(label, v string) {
		for _, have := range out {
			if have.value == v {
				return
			}
		}
		out = append(out, labeled{label, v})
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			add(fmt.Sprint(e), fmt.Sprint(e))
		}
		return out
	}
	switch schemaType(s) {
	case "integer", "number":
		lo, hi := 0.0, 1000.0
		if s.Min != nil {
			lo = *s.Min
			add("the minimum", formatNumber(lo))
		}
		if s.Max != nil {
			hi = *s.Max
			add("the maximum", formatNumber(hi))
		}
		if s.Default != nil {
			add("the default", fmt.Sprint(s.Default))
		}
		add("inside the range", formatNumber(lo+float64(o.r.IntN(int(hi-lo)+1))))
	case "boolean":
		add("true", "true")
		add("false", "false")
	case "string":
		switch s.Format {
		case "date-time":
			for _, v := range []string{"0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2000-02-29T12:30:00.123456+14:00",
				"2024-03-01T00:00:00-12:00", "2999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59Z"} {
				add(v, v)
			}
			// Around the seeded jobs, so that a filter keeps some and drops others.
			add("an hour ago", time.Now().UTC().Add(-time.Hour).Truncate(time.Second).Format(time.RFC3339))
		case "date":
			add("a leap day", "2024-02-29")
		case "uuid":
			add("a random UUID", fuzzUUID(o.r))
		default:
			g := valueGen{r: o.r}
			add("the shortest", g.str(s, 0, p.In == "header"))
			add("the longest", g.str(s, 1, p.In == "header"))
			add("random", g.str(s, 2, p.In == "header"))
		}
	}
	return out
}

// edgeValues are values a parser may take differently from the validator: accepted or refused,
// but never a server error.
func (o *fuzzOp) edgeValues(p *openapi3.Parameter) []labeled {
	s := resolveSchema(p.Schema.Value)
	if schemaType(s) == "string" && s.Format == "date-time" {
		// RFC 3339 allows a leap second; Go's time parser does not.
		return []labeled{{"a leap second", "2016-12-31T23:59:60Z"}}
	}
	if schemaType(s) == "integer" {
		return []labeled{{"a leading zero and plus", "+01"}}
	}
	return nil
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// invalidValues are a parameter's (or a text field's) values that break its schema: the spec
// answers each with 400 INVALID_REQUEST.
func (o *fuzzOp) invalidValues(s *openapi3.Schema, emptyIsInvalid, opaque bool) []labeled {
	s = resolveSchema(s)
	var out []labeled
	add := func(label, v string) { out = append(out, labeled{label, v}) }
	switch schemaType(s) {
	case "integer", "number":
		add("not a number", "ten")
		if schemaType(s) == "integer" {
			add("a fraction", "1.5")
			add("beyond 64 bits", "99999999999999999999")
		}
		if s.Min != nil {
			add("below the minimum", formatNumber(*s.Min-1))
		}
		if s.Max != nil {
			add("above the maximum", formatNumber(*s.Max+1))
		}
	case "boolean":
		add("not a boolean", "maybe")
	case "string":
		if len(s.Enum) > 0 {
			add("not in the enum", "not-a-listed-value")
			if first := fmt.Sprint(s.Enum[0]); strings.ToUpper(first) != first {
				add("an enum value in capitals", strings.ToUpper(first))
			}
		}
		switch s.Format {
		case "uuid":
			add("not a UUID", "not-a-uuid")
			add("a UUID with an extra digit", "3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f0")
			add("a UUID in braces", "{3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f}")
		case "date-time":
			add("not a time", "yesterday")
			add("a date without a time", "2024-03-01")
			add("the 30th of February", "2024-02-30T00:00:00Z")
			add("an offset of 99 hours", "2024-03-01T00:00:00+99:00")
		}
		if s.MaxLength != nil {
			add("longer than maxLength", strings.Repeat("a", int(*s.MaxLength)+1))
		}
		if s.MinLength > 1 {
			add("shorter than minLength", strings.Repeat("a", int(s.MinLength)-1))
		}
		if s.Pattern != "" {
			if v, ok := patternViolation(s.Pattern); ok {
				add("against the pattern", v)
			}
		}
		if opaque {
			// Only the server makes these (cursors); the spec answers a malformed one with 400.
			add("not one the server made", "not-a-cursor")
			add("base64 of a JSON array", base64.RawURLEncoding.EncodeToString([]byte(`[1,2,3]`)))
		}
	}
	if emptyIsInvalid {
		add("empty", "")
	}
	return out
}

// patternViolation returns a short string the pattern does not match.
func patternViolation(pattern string) (string, bool) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	for _, v := range []string{"a b", "é", "!", "0", "a", "A-", "x\ty"} {
		if !re.MatchString(v) {
			return v, true
		}
	}
	return "", false
}

// authCases are the operation's requests with bad credentials (401), rotating over the kinds, or
// for an operation without security, with credentials it must ignore.
func (o *fuzzOp) authCases(primary fuzzResource) []fuzzCase {
	security := o.op.Security
	if security == nil {
		security = &o.ft.api.spec.Security
	}
	if len(*security) == 0 {
		c := o.base(primary)
		c.name, c.must = "credentials on an operation without security are ignored", true
		c.header.Set("Authorization", "Bearer "+strings.Repeat("z", 40))
		return []fuzzCase{c}
	}
	if !o.auth {
		return nil
	}
	var out []fuzzCase
	for k := range fuzzAuthVariants {
		bad := o.ft.badAuth[(o.index*fuzzAuthVariants+k)%len(o.ft.badAuth)]
		c := o.base(primary)
		c.name, c.kind, c.must, c.want = bad.name, fuzzInvalid, true, []int{http.StatusUnauthorized}
		c.header.Del("Authorization")
		if bad.header != "" {
			c.header.Set("Authorization", bad.header)
		}
		out = append(out, c)
	}
	// The scheme name is case-insensitive (RFC 7235 section 2.1).
	c := o.base(primary)
	c.name, c.must = "the scheme in lower case", true
	scheme, cred, _ := strings.Cut(o.ft.auth, " ")
	c.header.Set("Authorization", strings.ToLower(scheme)+" "+cred)
	return append(out, c)
}

// idempotencyCases: for an operation with an Idempotency-Key header, the same key and request
// twice (the first answer replayed, Idempotent-Replayed: true) and then with another request
// (422 IDEMPOTENCY_KEY_REUSED).
func (o *fuzzOp) idempotencyCases(primary fuzzResource) []fuzzCase {
	var param *openapi3.Parameter
	for _, p := range o.params {
		if p.In == "header" && strings.EqualFold(p.Name, "Idempotency-Key") {
			param = p
		}
	}
	if param == nil || o.requestBody() == nil {
		return nil
	}
	key := "fuzz-replay-" + randomAlnum(o.r, 16)
	first := o.base(primary)
	first.name, first.must = "Idempotency-Key, first request", true
	first.header.Set(param.Name, key)
	again := first.clone()
	again.name = "Idempotency-Key, the same request again"
	again.check = func(resp *http.Response, _ []byte) []string {
		if resp.Header.Get("Idempotent-Replayed") != "true" {
			return []string{"a replay without Idempotent-Replayed: true"}
		}
		return nil
	}
	other := first.clone()
	other.name, other.want = "Idempotency-Key, another request", []int{wantKeyReused}
	if !differentRequest(resolveSchema(o.requestBody().Content[first.media].Schema.Value), other.fields) {
		return nil
	}
	other.contentType, other.body = encodeFuzzBody(o.t, other.media, other.fields)
	return []fuzzCase{first, again, other}
}

// differentRequest changes a valid body into another valid one: a file part renamed, or an
// optional free-text field of the schema rewritten.
func differentRequest(s *openapi3.Schema, fields map[string]any) bool {
	for _, k := range sortedKeys(fields) {
		if v, ok := fields[k].(fuzzFile); ok {
			v.name = "other-" + v.name
			fields[k] = v
			return true
		}
	}
	for _, k := range sortedKeys(s.Properties) {
		ps := resolveSchema(s.Properties[k].Value)
		if schemaType(ps) == "string" && len(ps.Enum) == 0 && ps.Format == "" && ps.Pattern == "" && !slices.Contains(s.Required, k) {
			fields[k] = "another request"
			return true
		}
	}
	return false
}

// wrongContentTypes: the body of the first media type sent as another, or without a type.
func (o *fuzzOp) wrongContentTypes(primary fuzzResource, rb *openapi3.RequestBody) []fuzzCase {
	var out []fuzzCase
	for _, ct := range []string{"text/plain", "application/xml", ""} {
		if rb.Content.Get(ct) != nil {
			continue
		}
		c := o.base(primary)
		c.name, c.kind, c.want, c.contentType = fmt.Sprintf("Content-Type %q", ct), fuzzInvalid, []int{http.StatusBadRequest}, ct
		out = append(out, c)
	}
	if rb.Required {
		c := o.base(primary)
		c.name, c.kind, c.want, c.body = "no body", fuzzInvalid, []int{http.StatusBadRequest}, nil
		out = append(out, c)
	}
	return out
}

// invalidBodies break a valid body of the media type one field at a time, then as a whole.
func (o *fuzzOp) invalidBodies(primary fuzzResource, media string, s *openapi3.Schema) []fuzzCase {
	s = resolveSchema(s)
	base := o.withBody(o.base(primary), media)
	var out []fuzzCase
	mutate := func(label string, status int, f func(fields map[string]any)) {
		c := base.clone()
		c.name, c.kind, c.want = media+": "+label, fuzzInvalid, []int{cmpOr(status, http.StatusBadRequest)}
		f(c.fields)
		c.contentType, c.body = encodeFuzzBody(o.t, media, c.fields)
		out = append(out, c)
	}
	raw := func(label string, status int, contentType string, body []byte) {
		c := base.clone()
		c.name, c.kind, c.want = media+": "+label, fuzzInvalid, []int{cmpOr(status, http.StatusBadRequest)}
		c.contentType, c.body = contentType, body
		out = append(out, c)
	}
	edge := func(label, contentType string, body []byte) {
		c := base.clone()
		c.name, c.kind, c.want = media+": "+label, fuzzEdge, nil
		c.contentType, c.body = contentType, body
		out = append(out, c)
	}

	for _, name := range sortedKeys(s.Properties) {
		ps := resolveSchema(s.Properties[name].Value)
		for _, v := range o.invalidFieldValues(ps, media) {
			mutate(fmt.Sprintf("%s %s", name, v.label), v.status, func(f map[string]any) { f[name] = v.value })
		}
	}
	for _, name := range s.Required {
		mutate(name+" missing (required)", 0, func(f map[string]any) { delete(f, name) })
	}
	if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
		mutate("an unknown field", 0, func(f map[string]any) { f["unexpected_field"] = "x" })
		if media == "multipart/form-data" {
			mutate("an unknown file part", 0, func(f map[string]any) { f["unexpected_file"] = fuzzFile{name: "x.csv", content: simpleCSV(1)} })
		}
	}

	switch media {
	case "application/json":
		valid := base.body
		raw("truncated JSON", 0, media, valid[:len(valid)/2])
		raw("a JSON array", 0, media, []byte(`[]`))
		raw("JSON null", 0, media, []byte(`null`))
		raw("a JSON string", 0, media, []byte(`"x"`))
		raw("a JSON number", 0, media, []byte(`1e999`))
		if o.op.RequestBody != nil && o.op.RequestBody.Value != nil && !o.op.RequestBody.Value.Required {
			// An optional body may be left out (POST /webhooks/test): the operation's defaults.
			c := base.clone()
			c.name, c.kind, c.want = media+": no body, which is optional", fuzzValid, []int{o.success}
			c.contentType, c.body = media, nil
			out = append(out, c)
		} else {
			raw("an empty body", 0, media, nil)
		}
		raw("deeply nested JSON", 0, media, []byte(`{"unexpected_field":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+`}`))
		raw("a body over 1 MiB", http.StatusRequestEntityTooLarge, media,
			[]byte(`{"unexpected_field":"`+strings.Repeat("x", fuzzJSONLimit)+`"}`))
		raw("not JSON", 0, media, []byte(`url=https://example.com`))
		// Two JSON values are no JSON text (RFC 8259).
		raw("JSON followed by another value", 0, media, append(slices.Clone(valid), []byte(` {"x":1}`)...))
		edge("JSON with a byte-order mark", media, append([]byte("\xEF\xBB\xBF"), valid...))
		edge("JSON with invalid UTF-8 in a string", media, bytes.Replace(valid, []byte(`":"`), []byte("\":\"\xff"), 1))
	case "application/x-www-form-urlencoded":
		raw("malformed percent-encoding", 0, media, []byte(`grant_type=%zz`))
		raw("JSON sent as a form", 0, media, []byte(`{"grant_type":"client_credentials"}`))
		raw("an empty body", 0, media, nil)
	case "multipart/form-data":
		valid := base.body
		_, boundary, _ := strings.Cut(base.contentType, "boundary=")
		raw("no boundary", 0, "multipart/form-data", valid)
		raw("another boundary", 0, "multipart/form-data; boundary=not-the-one-used", valid)
		raw("cut short", 0, base.contentType, valid[:len(valid)/2])
		raw("no parts", 0, base.contentType, []byte("--"+boundary+"--\r\n"))
		raw("an empty body", 0, base.contentType, nil)
		raw("a part without a name", 0, base.contentType, []byte("--"+boundary+"\r\nContent-Disposition: form-data\r\n\r\nx\r\n--"+boundary+"--\r\n"))
		for _, name := range sortedKeys(s.Properties) {
			if resolveSchema(s.Properties[name].Value).Format == "binary" {
				// Random bytes may look like some format or none: refused or accepted, no 5xx.
				c := base.clone()
				c.name, c.kind, c.want = media+": "+name+" of random bytes", fuzzEdge, nil
				c.fields[name] = fuzzFile{name: "random.csv", content: randomBytes(2048)}
				c.contentType, c.body = encodeFuzzBody(o.t, media, c.fields)
				out = append(out, c)
			}
		}
	default:
		o.t.Fatalf("%s: no invalid bodies for %s", o.name, media)
	}
	return out
}

// invalidFieldValue is a body field's value that breaks its schema.
type invalidFieldValue struct {
	label  string
	value  any
	status int
}

// invalidFieldValues are the values of a body field that break its schema in the media type:
// JSON has types, a form or multipart field is text, and a multipart file is a file.
func (o *fuzzOp) invalidFieldValues(s *openapi3.Schema, media string) []invalidFieldValue {
	var out []invalidFieldValue
	add := func(label string, v any, status int) { out = append(out, invalidFieldValue{label, v, status}) }
	typ := schemaType(s)
	if media == "multipart/form-data" && s.Format == "binary" {
		add("an empty file", fuzzFile{name: "empty.csv"}, 0)
		add("a PNG image", fuzzFile{name: "image.csv", content: pngImage}, 0)
		add("over the upload limit", fuzzFile{name: "big.csv", content: bytes.Repeat([]byte("2024-03-01,PAYMENT,1.00\n"), fuzzMaxUpload/20)}, http.StatusRequestEntityTooLarge)
		add("sent twice", []fuzzFile{{name: "a.csv", content: simpleCSV(2)}, {name: "b.csv", content: simpleCSV(3)}}, 0)
		return out
	}
	if media == "application/json" {
		if !s.Nullable {
			add("null", nil, 0)
		}
		switch typ {
		case "string":
			add("a number", 12345, 0)
			add("an object", map[string]any{"a": 1}, 0)
		case "integer", "number":
			add("a string", "12", 0)
		case "boolean":
			add("a string", "true", 0)
		case "array":
			add("a string", "x", 0)
			add("an object", map[string]any{}, 0)
		case "object":
			add("an array", []any{}, 0)
		}
	}
	switch typ {
	case "string":
		for _, v := range o.invalidValues(s, s.MinLength > 0, false) {
			add(v.label, v.value, 0)
		}
		if s.Format == "uri" {
			add("not a URL", "not a url", 0)
			add("a URL without a host", "https://", 0)
		}
	case "integer", "number":
		if s.Min != nil {
			add("below the minimum", *s.Min-1, 0)
		}
		if s.Max != nil {
			add("above the maximum", *s.Max+1, 0)
		}
	case "array":
		items := resolveSchema(s.Items.Value)
		g := valueGen{r: o.r}
		if s.MinItems > 0 {
			add("with fewer than minItems items", []any{}, 0)
		}
		if s.MaxItems != nil {
			long := make([]any, *s.MaxItems+1)
			for i := range long {
				long[i] = g.value(items, 2, i)
			}
			add("with more than maxItems items", long, 0)
		}
		if s.UniqueItems {
			v := g.value(items, 0, 0)
			add("with a repeated item", []any{v, v}, 0)
		}
		for _, iv := range o.invalidFieldValues(items, media) {
			add("with an item "+iv.label, []any{iv.value}, iv.status)
		}
	}
	return out
}

// generateBody makes a valid body of the media type from the schema: mode 0 has only the
// required fields at their shortest, mode 1 every field at its longest, mode 2 random ones; idx
// rotates enum values so that a few bodies use them all.
func (o *fuzzOp) generateBody(media string, mode, idx int) map[string]any {
	s := o.requestBody().Content[media].Schema.Value
	v, ok := valueGen{r: o.r}.value(s, mode, idx).(map[string]any)
	require.True(o.t, ok, "%s: the %s body is not an object", o.name, media)
	for _, k := range sortedKeys(v) {
		if _, ok := v[k].(fuzzFile); !ok {
			continue
		}
		files := o.gen.files[k]
		require.NotEmpty(o.t, files, "%s: no files for the part %s in its generator", o.name, k)
		file := files[(idx+o.r.IntN(len(files)))%len(files)]
		if mode == 2 {
			// The format is found from the content, whatever the part says.
			file.contentType = []string{"text/csv", "image/png", "application/pdf", "text/plain; charset=utf-16", "-"}[o.r.IntN(5)]
		}
		if mode != 0 {
			if name := fuzzFileNames[o.r.IntN(len(fuzzFileNames))]; name == "" {
				file.name = ""
			} else {
				file.name = name + fileExt(file.name)
			}
		}
		v[k] = file
	}
	return v
}

// fuzzFileNames are part file names a client may send: all are kept as text, shortened to 255
// bytes, without directories or control characters.
var fuzzFileNames = []string{"statement", "", "../../etc/passwd", "Kontoauszug März 2024", strings.Repeat("n", 300),
	`quote"d`, "tab\tinside", "日本語の明細", "semi;colon, comma"}

func fileExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i:]
	}
	return ""
}

// valueGen generates values of schemas.
type valueGen struct{ r *rand.Rand }

func (g valueGen) value(s *openapi3.Schema, mode, idx int) any {
	s = resolveSchema(s)
	if len(s.OneOf) > 0 {
		return g.value(s.OneOf[g.r.IntN(len(s.OneOf))].Value, mode, idx)
	}
	if len(s.AnyOf) > 0 {
		return g.value(s.AnyOf[g.r.IntN(len(s.AnyOf))].Value, mode, idx)
	}
	if len(s.Enum) > 0 {
		if mode == 2 {
			return s.Enum[g.r.IntN(len(s.Enum))]
		}
		return s.Enum[idx%len(s.Enum)]
	}
	switch schemaType(s) {
	case "object":
		m := map[string]any{}
		for _, name := range sortedKeys(s.Properties) {
			if slices.Contains(s.Required, name) || mode == 1 || (mode == 2 && g.r.IntN(2) == 0) {
				m[name] = g.value(s.Properties[name].Value, mode, idx)
			}
		}
		return m
	case "array":
		items := resolveSchema(s.Items.Value)
		lo, hi := int(s.MinItems), int(s.MinItems)+3
		if s.MaxItems != nil {
			hi = min(hi, int(*s.MaxItems))
		}
		if s.UniqueItems && len(items.Enum) > 0 {
			hi = min(hi, len(items.Enum))
		}
		n := lo
		switch mode {
		case 1:
			n = hi
			if s.MaxItems != nil && (!s.UniqueItems || len(items.Enum) >= int(*s.MaxItems)) {
				n = int(*s.MaxItems)
			}
		case 2:
			n = lo + g.r.IntN(hi-lo+1)
		}
		if s.UniqueItems && len(items.Enum) > 0 {
			perm := g.r.Perm(len(items.Enum))
			out := make([]any, n)
			for i := range out {
				out[i] = items.Enum[perm[i]]
			}
			return out
		}
		out := make([]any, n)
		for i := range out {
			out[i] = g.value(items, mode, idx+i)
		}
		return out
	case "string":
		if s.Format == "binary" {
			return fuzzFile{}
		}
		return g.str(s, mode, false)
	case "integer":
		lo, hi := int64(0), int64(1000)
		if s.Min != nil {
			lo = int64(*s.Min)
		}
		if s.Max != nil {
			hi = int64(*s.Max)
		}
		switch mode {
		case 0:
			return lo
		case 1:
			return hi
		}
		return lo + g.r.Int64N(hi-lo+1)
	case "number":
		return float64(g.r.IntN(100000)) / 100
	case "boolean":
		return g.r.IntN(2) == 0
	}
	return nil
}

// str is a string of the schema: the shortest (mode 0), the longest with characters beyond
// ASCII where the schema allows them (mode 1), or one in between (mode 2). ascii keeps it to
// printable ASCII (header values).
func (g valueGen) str(s *openapi3.Schema, mode int, ascii bool) string {
	switch s.Format {
	case "uuid":
		return fuzzUUID(g.r)
	case "date-time":
		return time.Date(2024, 3, 1+g.r.IntN(28), g.r.IntN(24), 0, 0, 0, time.UTC).Format(time.RFC3339)
	case "date":
		return time.Date(2024, 3, 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	case "uri":
		return "https://example.com/" + randomAlnum(g.r, 8)
	}
	lo, hi := int(s.MinLength), int(s.MinLength)+40
	if s.MaxLength != nil {
		hi = int(*s.MaxLength)
	}
	n := lo
	switch mode {
	case 1:
		n = hi
	case 2:
		n = lo + g.r.IntN(hi-lo+1)
	}
	var re *regexp.Regexp
	if s.Pattern != "" {
		re = regexp.MustCompile(s.Pattern)
	}
	candidates := []string{randomAlnum(g.r, n)}
	if mode == 1 && !ascii {
		candidates = append([]string{randomText(g.r, n)}, candidates...)
	}
	if ascii {
		candidates = append([]string{randomPrintable(g.r, n)}, candidates...)
		if mode == 1 {
			// Beyond ASCII where no pattern forbids it, without spaces at the ends (which HTTP
			// strips from a header value).
			candidates = append([]string{"x" + randomText(g.r, max(n-2, 0)) + "x"}, candidates...)
		}
	}
	for _, v := range candidates {
		if re == nil || re.MatchString(v) {
			return v
		}
	}
	if ex, ok := s.Example.(string); ok {
		return ex
	}
	return candidates[len(candidates)-1]
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func randomAlnum(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b)
}

// randomPrintable is n printable ASCII characters without space.
func randomPrintable(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(0x21 + r.IntN(0x7E-0x21+1))
	}
	return string(b)
}

// randomText is n characters (code points of the Basic Multilingual Plane, each one UTF-16
// unit) of several scripts and widths.
func randomText(r *rand.Rand, n int) string {
	runes := []rune("aZ09 -_.äßéøŁЖж€日本語한\u00a0'\"<>&%+")
	b := make([]rune, n)
	for i := range b {
		b[i] = runes[r.IntN(len(runes))]
	}
	return string(b)
}

func fuzzUUID(r *rand.Rand) string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[:8], r.Uint64())
	binary.BigEndian.PutUint64(u[8:], r.Uint64())
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

// resolveSchema looks through an allOf of one schema (a $ref with a description beside it).
func resolveSchema(s *openapi3.Schema) *openapi3.Schema {
	for s != nil && s.Type == nil && len(s.AllOf) == 1 && len(s.Enum) == 0 && len(s.Properties) == 0 {
		s = s.AllOf[0].Value
	}
	return s
}

func schemaType(s *openapi3.Schema) string {
	if s.Type != nil && len(*s.Type) > 0 {
		return (*s.Type)[0]
	}
	if len(s.Properties) > 0 {
		return "object"
	}
	if len(s.Enum) > 0 {
		if _, ok := s.Enum[0].(string); ok {
			return "string"
		}
	}
	return ""
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// encodeFuzzBody encodes fields in the media type.
func encodeFuzzBody(t *testing.T, media string, fields map[string]any) (string, []byte) {
	switch media {
	case "application/json":
		b, err := json.Marshal(fields)
		require.NoError(t, err)
		return media, b
	case "application/x-www-form-urlencoded":
		form := url.Values{}
		for _, k := range sortedKeys(fields) {
			switch v := fields[k].(type) {
			case []any:
				for _, item := range v {
					form.Add(k, fmt.Sprint(item))
				}
			default:
				form.Set(k, fmt.Sprint(v))
			}
		}
		return media, []byte(form.Encode())
	case "multipart/form-data":
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for _, k := range sortedKeys(fields) {
			switch v := fields[k].(type) {
			case fuzzFile:
				writeFilePart(t, w, k, v)
			case []fuzzFile:
				for _, f := range v {
					writeFilePart(t, w, k, f)
				}
			default:
				require.NoError(t, w.WriteField(k, fmt.Sprint(v)))
			}
		}
		require.NoError(t, w.Close())
		return w.FormDataContentType(), buf.Bytes()
	}
	t.Fatalf("no encoder for %s", media)
	return "", nil
}

func writeFilePart(t *testing.T, w *multipart.Writer, field string, f fuzzFile) {
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, field, strings.ReplaceAll(f.name, `"`, `\"`)))
	switch f.contentType {
	case "":
		h.Set("Content-Type", "application/octet-stream")
	case "-":
	default:
		h.Set("Content-Type", f.contentType)
	}
	p, err := w.CreatePart(h)
	require.NoError(t, err)
	_, err = p.Write(f.content)
	require.NoError(t, err)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func cloneStrings(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return url.Values{}
	}
	out := url.Values{}
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

func cloneFields(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if a, ok := v.([]any); ok {
			v = slices.Clone(a)
		}
		out[k] = v
	}
	return out
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

func truncateN(b []byte, n int) string {
	if len(b) > n {
		return fmt.Sprintf("%q... (%d bytes)", b[:n], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// redactHeaders shows the request's headers with credentials shortened.
func redactHeaders(h http.Header) string {
	var parts []string
	for _, k := range sortedKeys(h) {
		v := strings.Join(h[k], ",")
		if k == "Authorization" && len(v) > 16 {
			v = v[:16] + "..."
		}
		if len(v) > 80 {
			v = v[:80] + "..."
		}
		parts = append(parts, fmt.Sprintf("%s: %q", k, v))
	}
	return strings.Join(parts, "; ")
}

// tamperedCursors are a real cursor's JSON with one field changed at a time: still a cursor in
// form, not one the server made.
func tamperedCursors(t *testing.T, cursor string) []labeled {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	require.NoError(t, err, "the cursors are base64url JSON")
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	var out []labeled
	for _, k := range sortedKeys(m) {
		var replacements []string
		switch m[k][0] {
		case '"':
			replacements = []string{`""`, `"0001-01-01T00:00:00Z"`, `"9999-12-31T23:59:59Z"`, `"00000000-0000-0000-0000-000000000000"`, `1`}
		default:
			replacements = []string{`-1`, `2147483647`, `2147483648`, `9223372036854775807`, `1e300`, `"1"`}
		}
		for _, r := range replacements {
			c := cloneRaw(m)
			c[k] = json.RawMessage(r)
			b, err := json.Marshal(c)
			require.NoError(t, err)
			out = append(out, labeled{fmt.Sprintf("a cursor with %s = %s", k, r), base64.RawURLEncoding.EncodeToString(b)})
		}
	}
	return out
}

func cloneRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// badAuthVariants are credentials every authenticated operation refuses with 401, with other, a
// credential of the right form that is not valid here (another environment's).
func badAuthVariants(r *rand.Rand, other fuzzAuth) []fuzzAuth {
	return []fuzzAuth{
		{"no Authorization header", ""},
		{"a bearer credential of random characters", "Bearer " + randomAlnum(r, 43)},
		{"HTTP Basic credentials", "Basic " + base64.StdEncoding.EncodeToString([]byte("cli_x:secret"))},
		{"Bearer without a credential", "Bearer"},
		{"a bearer credential with a space inside", "Bearer abc def"},
		other,
		{"an unknown scheme", "Token " + randomAlnum(r, 20)},
		{"a bearer credential with quotes", `Bearer "` + randomAlnum(r, 10) + `"`},
	}
}

// ----- The Reconciliation API -----

// reconFuzzSeed is the seeded data of one environment.
type reconFuzzSeed struct {
	caller            reconCaller
	completed, failed uuid.UUID
	// doomed is a completed job that deleteJob deletes.
	doomed uuid.UUID
	// clientID and secret are a client of the account for createToken alone: its requests with
	// odd secrets count against this client's budget of failed authentications (10 a minute),
	// not against the one of the client that seeded and reads the data.
	clientID, secret string
}

func (s *server) seedReconFuzz(t *testing.T, ten fullTenant) (prod, sandbox reconFuzzSeed) {
	seed := func(base string) reconFuzzSeed {
		c := s.reconCaller(t, base, ten.ClientID, ten.ClientSecret)
		ct, body := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
		ok := c.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, ok.StatusCode(), string(ok.Body))
		ct, body = jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte("reference,amount\nINV-1,10.00\nINV-2,abc\n"))
		bad := c.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, bad.StatusCode(), string(bad.Body))
		ct, body = jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
		doomed := c.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, doomed.StatusCode(), string(doomed.Body))
		sd := reconFuzzSeed{caller: c, completed: ok.JSON202.JobId, failed: bad.JSON202.JobId, doomed: doomed.JSON202.JobId}
		sd.clientID, sd.secret = s.newClient(t, ten.AccountID)
		return sd
	}
	prod, sandbox = seed(s.ReconURL), seed(s.SandboxURL)
	for _, sd := range []reconFuzzSeed{prod, sandbox} {
		require.Equal(t, "completed", string(sd.caller.wait(t, sd.completed).Status))
		require.Equal(t, "completed", string(sd.caller.wait(t, sd.doomed).Status))
		require.Equal(t, "failed", string(sd.caller.wait(t, sd.failed).Status))
	}
	return prod, sandbox
}

func reconFuzzTarget(t *testing.T, name, base, env string, own, other reconFuzzSeed) *fuzzTarget {
	r := rand.New(rand.NewPCG(schemaFuzzSeed, 1))
	job := func(id uuid.UUID) map[string]string { return map[string]string{"job_id": id.String()} }
	bank := []fuzzFile{{name: "bank.csv", content: bankCSV(reconBankLines)}, {name: "bank.xlsx", content: bankXLSX(t, reconBankLines)},
		{name: "bank.pdf", content: bankPDF(t, reconBankLines)}, {name: "bank.sta", content: unbalancedMT940()},
		{name: "bank.xml", content: corpusFile(t, "camt", "genkgo__camt__camt053.v2.minimal.xml")}}
	expected := []fuzzFile{{name: "expected.csv", content: []byte(reconExpectedCSV)}, {name: "refs.csv", content: []byte("Ref,Total\nINV-2024-001,1250.50\n")}}
	otherEnv := func(c *fuzzCase) {
		if e, ok := c.fields["env"]; ok && e != env {
			c.want = []int{wantOtherEnv}
		}
	}
	jobResources := func(failedWant int) []fuzzResource {
		return []fuzzResource{
			{name: "a completed job", path: job(own.completed)},
			{name: "a failed job", path: job(own.failed), want: failedWant},
			{name: "a random UUID", path: map[string]string{"job_id": fuzzUUID(r)}, want: wantNotFound},
			{name: "a job of the other environment", path: job(other.completed), want: wantNotFound},
		}
	}
	form := "application/x-www-form-urlencoded"
	tokenCase := func(o *fuzzOp, name string, kind fuzzKind, want int, fields map[string]any, authorization string) fuzzCase {
		c := fuzzCase{name: name, kind: kind, method: o.method, path: o.path, header: http.Header{}, want: []int{want},
			media: form, fields: fields}
		if authorization != "" {
			c.header.Set("Authorization", authorization)
		}
		c.contentType, c.body = encodeFuzzBody(o.t, c.media, c.fields)
		return c
	}
	basicOf := func(id, secret string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
	}
	grant := map[string]any{"grant_type": "client_credentials"}
	return &fuzzTarget{
		name: name, api: recon(t), base: base, auth: "Bearer " + own.caller.token,
		badAuth: badAuthVariants(r, fuzzAuth{"the other environment's token", "Bearer " + other.caller.token}),
		gens: map[string]fuzzGen{
			"createToken": {
				// Valid bodies get the client's real credentials, three times in four (else the
				// schema's made-up ones: 401), in the body or, in a form, with HTTP Basic; a
				// scope names the client's permissions.
				fix: func(r *rand.Rand, c *fuzzCase) {
					genuine := r.IntN(4) != 0
					id, secret := own.clientID, own.secret
					if !genuine {
						id, secret = "cli_fuzz"+randomAlnum(r, 12), randomAlnum(r, 30)
						if v, ok := c.fields["client_id"].(string); ok {
							id = v
						}
						if v, ok := c.fields["client_secret"].(string); ok {
							secret = v
						}
					}
					c.header.Del("Authorization")
					if c.media == form && r.IntN(2) == 0 {
						delete(c.fields, "client_id")
						delete(c.fields, "client_secret")
						c.header.Set("Authorization", basicOf(id, secret))
					} else {
						c.fields["client_id"], c.fields["client_secret"] = id, secret
					}
					if _, ok := c.fields["scope"]; ok {
						perms := []string{"jobs:read", "jobs:write", "limits:read"}
						r.Shuffle(len(perms), func(i, j int) { perms[i], perms[j] = perms[j], perms[i] })
						c.fields["scope"] = strings.Join(perms[:1+r.IntN(len(perms))], strings.Repeat(" ", 1+r.IntN(2)))
					}
					c.want = []int{http.StatusOK}
					switch e, ok := c.fields["env"]; {
					case ok && e != env:
						c.want = []int{wantOtherEnv}
					case !genuine:
						c.want = []int{wantBadClient}
					}
				},
				// The rules of the Authorization header the schema cannot show (the operation's
				// description): only well-formed HTTP Basic, not together with body credentials.
				extra: func(o *fuzzOp) []fuzzCase {
					withCreds := map[string]any{"grant_type": "client_credentials", "client_id": own.clientID, "client_secret": own.secret}
					return []fuzzCase{
						tokenCase(o, "HTTP Basic of the client", fuzzValid, http.StatusOK, grant, basicOf(own.clientID, own.secret)),
						tokenCase(o, "HTTP Basic of an unknown client", fuzzValid, wantBadClient, grant, basicOf("cli_"+randomAlnum(o.r, 16), "x")),
						tokenCase(o, "malformed HTTP Basic", fuzzInvalid, http.StatusBadRequest, grant, "Basic !!!"),
						tokenCase(o, "HTTP Basic without a colon", fuzzInvalid, http.StatusBadRequest, grant, "Basic "+base64.StdEncoding.EncodeToString([]byte("nocolon"))),
						tokenCase(o, "HTTP Basic with an empty secret", fuzzInvalid, http.StatusBadRequest, grant, "Basic "+base64.StdEncoding.EncodeToString([]byte(own.clientID+":"))),
						tokenCase(o, "a Bearer header", fuzzInvalid, http.StatusBadRequest, grant, "Bearer "+own.caller.token),
						tokenCase(o, "HTTP Basic and credentials in the body", fuzzInvalid, http.StatusBadRequest, withCreds, basicOf(own.clientID, own.secret)),
						tokenCase(o, "a form without credentials", fuzzInvalid, http.StatusBadRequest, grant, ""),
						// RFC 6749 section 3.2: a token endpoint ignores parameters it does not know.
						tokenCase(o, "HTTP Basic and an unknown form parameter", fuzzValid, http.StatusOK,
							map[string]any{"grant_type": "client_credentials", "unexpected_field": "x"}, basicOf(own.clientID, own.secret)),
					}
				},
			},
			"createJob": {
				files: map[string][]fuzzFile{"bank": bank, "expected": expected},
				fix:   func(_ *rand.Rand, c *fuzzCase) { otherEnv(c) },
			},
			"getJob":        {resources: jobResources(0)},
			"getJobResults": {resources: jobResources(wantNotReady)},
			"deleteJob": {
				resources: []fuzzResource{
					{name: "a completed job", path: job(own.doomed)},
					{name: "a random UUID", path: map[string]string{"job_id": fuzzUUID(r)}, want: wantNotFound},
					{name: "a job of the other environment", path: job(other.completed), want: wantNotFound},
				},
				// Once deleted, a job answers 410 GONE everywhere, and deleting it again 204.
				extra: func(o *fuzzOp) []fuzzCase {
					auth := http.Header{"Authorization": {o.ft.auth}}
					gone := func(name, method, path string, want int) fuzzCase {
						return fuzzCase{name: name, kind: fuzzValid, method: method, path: path, pathParams: job(own.doomed),
							header: auth.Clone(), want: []int{want}}
					}
					return []fuzzCase{
						gone("delete a deleted job", http.MethodDelete, o.path, http.StatusNoContent),
						gone("a deleted job", http.MethodGet, "/api/v1/jobs/{job_id}", http.StatusGone),
						gone("the results of a deleted job", http.MethodGet, "/api/v1/jobs/{job_id}/results", http.StatusGone),
					}
				},
			},
			"getLimits":      {},
			"getHealth":      {},
			"getReadiness":   {},
			"getOpenAPISpec": {},
			"getDocs":        {},
		},
	}
}

// ----- The Parsing API -----

// parseFuzzSeed is the seeded data of the Parsing API.
type parseFuzzSeed struct {
	caller                    parseCaller
	completed, review, failed uuid.UUID
	// doomed is a completed job that deleteJob deletes.
	doomed uuid.UUID
	// mainHook receives every event (deliveries), keepHook stays, deletable are deleted.
	mainHook, keepHook uuid.UUID
	deletable          []uuid.UUID
	// Real cursors: of the job list (without filters, and with createdAfter), of the completed
	// job's results and of the main hook's deliveries.
	listCursor, filteredCursor, resultsCursor, deliveriesCursor string
	createdAfter                                                string
}

// parseFuzzSeeded is how many webhook endpoints seedParseFuzz registers.
const parseFuzzSeeded = 4

func (s *server) seedParseFuzz(t *testing.T, ten fullTenant, receiverURL string) parseFuzzSeed {
	ctx := context.Background()
	c := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	sd := parseFuzzSeed{caller: c, createdAfter: "2000-01-01T00:00:00Z"}
	hook := func(path string, events ...parseclient.WebhookEventType) uuid.UUID {
		body := parseclient.CreateWebhookJSONRequestBody{Url: receiverURL + path}
		if len(events) > 0 {
			body.Events = &events
		}
		r, err := c.pc.CreateWebhookWithResponse(ctx, nil, body, bearer(c.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusCreated, r.StatusCode(), string(r.Body))
		return r.JSON201.Data.Id
	}
	sd.mainHook = hook("/main")
	sd.keepHook = hook("/keep", "usage.threshold")
	for i := range parseFuzzSeeded - 2 {
		sd.deletable = append(sd.deletable, hook(fmt.Sprintf("/deletable-%d", i), "usage.threshold"))
	}
	sd.completed = c.create(t, "completed.csv", simpleCSV(5)).JobId
	sd.review = c.create(t, "review.csv", brokenRunningBalance.bytes(t)).JobId
	sd.failed = c.create(t, "failed.xml", truncatedCAMT053(t)).JobId
	sd.doomed = c.create(t, "doomed.csv", simpleCSV(2)).JobId
	require.Equal(t, parseclient.JobStatusCompleted, c.wait(t, sd.completed).Status)
	require.Equal(t, parseclient.JobStatusCompleted, c.wait(t, sd.doomed).Status)
	require.Equal(t, parseclient.JobStatusReview, c.wait(t, sd.review).Status)
	require.Equal(t, parseclient.JobStatusFailed, c.wait(t, sd.failed).Status)

	one := 1
	sd.listCursor = *c.listed(t, &parseclient.ListJobsParams{Limit: &one}).NextCursor
	after, err := time.Parse(time.RFC3339, sd.createdAfter)
	require.NoError(t, err)
	sd.filteredCursor = *c.listed(t, &parseclient.ListJobsParams{Limit: &one, CreatedAfter: &after}).NextCursor
	res := c.results(t, sd.completed, &parseclient.GetJobResultsParams{Limit: &one})
	require.Equal(t, http.StatusOK, res.StatusCode(), string(res.Body))
	sd.resultsCursor = *res.JSON200.Data.NextCursor
	deadline := time.Now().Add(20 * time.Second)
	for sd.deliveriesCursor == "" {
		r, err := c.pc.ListWebhookDeliveriesWithResponse(ctx, sd.mainHook, &parseclient.ListWebhookDeliveriesParams{Limit: &one}, bearer(c.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
		if r.JSON200.Data.NextCursor != nil {
			sd.deliveriesCursor = *r.JSON200.Data.NextCursor
			break
		}
		require.True(t, time.Now().Before(deadline), "the main webhook got no two deliveries in 20 s")
		time.Sleep(50 * time.Millisecond)
	}
	return sd
}

func parseFuzzTarget(t *testing.T, base, receiverURL string, sd parseFuzzSeed) *fuzzTarget {
	r := rand.New(rand.NewPCG(schemaFuzzSeed, 2))
	id := func(u uuid.UUID) map[string]string { return map[string]string{"id": u.String()} }
	random := func() map[string]string { return map[string]string{"id": fuzzUUID(r)} }
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	statements := []fuzzFile{{name: "simple.csv", content: simpleCSV(4)}, {name: "flow.csv", content: flowStatement.bytes(t)}, {name: "review.csv", content: brokenRunningBalance.bytes(t)},
		{name: "statement.sta", content: unbalancedMT940()}, {name: "statement.xml", content: corpusFile(t, "camt", "genkgo__camt__camt053.v2.minimal.xml")},
		{name: "statement.bai", content: corpusFile(t, "bai2", "moov-io__bai2__sample1.txt")}, {name: "statement.xlsx", content: bankXLSX(t, reconBankLines)}}
	readable := func(notReady int) []fuzzResource {
		return []fuzzResource{
			{name: "a completed job", path: id(sd.completed)},
			{name: "a job in review", path: id(sd.review)},
			{name: "a failed job", path: id(sd.failed), want: notReady},
			{name: "a random UUID", path: random(), want: wantNotFound},
		}
	}
	// A valid request of another operation than the one generated, for stateful sequences.
	call := func(o *fuzzOp, name string, want int, method, path string, params map[string]string, body string) fuzzCase {
		c := fuzzCase{name: name, kind: fuzzValid, method: method, path: path, pathParams: params,
			header: http.Header{"Authorization": {o.ft.auth}}, want: []int{want}}
		if body != "" {
			c.contentType, c.body = "application/json", []byte(body)
		}
		return c
	}
	tampered := func(o *fuzzOp, res fuzzResource, cursor string) []fuzzCase {
		var out []fuzzCase
		for _, v := range tamperedCursors(o.t, cursor) {
			c := o.base(res)
			c.name, c.kind, c.want = v.label, fuzzEdge, nil
			c.query.Set("cursor", v.value)
			out = append(out, c)
		}
		return out
	}
	return &fuzzTarget{
		name: "parsing", api: parse(t), base: base, auth: "Bearer " + sd.caller.key,
		badAuth: badAuthVariants(r, fuzzAuth{"a key of a test environment", "Bearer smk_test_" + randomAlnum(r, 40)}),
		gens: map[string]fuzzGen{
			"createJob": {files: map[string][]fuzzFile{"file": statements}},
			"listJobs": {
				resources: []fuzzResource{
					{name: "the first page"},
					{name: "the next page", query: q("cursor", sd.listCursor)},
					{name: "the next page of a longer page", query: q("cursor", sd.listCursor, "limit", "100")},
					{name: "the next page with the filter of the first", query: q("cursor", sd.filteredCursor, "created_after", sd.createdAfter, "limit", "1")},
				},
				opaque: []string{"cursor"},
				extra: func(o *fuzzOp) []fuzzCase {
					out := tampered(o, fuzzResource{}, sd.listCursor)
					// The spec: a cursor used with other filters is 400 INVALID_REQUEST.
					c := o.base(fuzzResource{query: q("cursor", sd.filteredCursor)})
					c.name, c.kind, c.want = "a cursor without the filter it was made for", fuzzInvalid, []int{http.StatusBadRequest}
					d := o.base(fuzzResource{query: q("cursor", sd.resultsCursor)})
					d.name, d.kind, d.want = "a cursor of another list", fuzzInvalid, []int{http.StatusBadRequest}
					return append(out, c, d)
				},
			},
			"getJob": {resources: readable(0)},
			"getJobResults": {
				resources: append(readable(wantNotReady),
					fuzzResource{name: "the next page", path: id(sd.completed), query: q("cursor", sd.resultsCursor)}),
				opaque: []string{"cursor"},
				extra: func(o *fuzzOp) []fuzzCase {
					out := tampered(o, fuzzResource{path: id(sd.completed)}, sd.resultsCursor)
					c := o.base(fuzzResource{path: id(sd.review), query: q("cursor", sd.resultsCursor)})
					c.name, c.kind, c.want = "a cursor of another job's results", fuzzInvalid, []int{http.StatusBadRequest}
					return append(out, c)
				},
			},
			"exportJob": {resources: readable(wantNotReady)},
			"deleteJob": {
				resources: []fuzzResource{
					{name: "a completed job", path: id(sd.doomed)},
					{name: "a random UUID", path: random(), want: wantNotFound},
				},
				// Once deleted, a job answers 410 GONE everywhere, and deleting it again 204.
				extra: func(o *fuzzOp) []fuzzCase {
					gone := id(sd.doomed)
					return []fuzzCase{
						call(o, "delete a deleted job", http.StatusNoContent, http.MethodDelete, o.path, gone, ""),
						call(o, "a deleted job", http.StatusGone, http.MethodGet, "/api/v1/jobs/{id}", gone, ""),
						call(o, "the results of a deleted job", http.StatusGone, http.MethodGet, "/api/v1/jobs/{id}/results", gone, ""),
						call(o, "the export of a deleted job", http.StatusGone, http.MethodGet, "/api/v1/jobs/{id}/export", gone, ""),
					}
				},
			},
			"getUsage":     {},
			"getStatus":    {},
			"listWebhooks": {},
			"createWebhook": {
				// The URL goes to the test's receiver (the operator allows loopback), as long as the
				// generated one (up to the schema's 2,048 characters). Each endpoint created is
				// deleted again at once (see created), so the account stays below 20.
				fix: func(r *rand.Rand, c *fuzzCase) {
					generated, _ := c.fields["url"].(string)
					u := receiverURL + "/fuzz/"
					c.fields["url"] = u + randomAlnum(r, max(1, min(len(generated), 2048)-len(u)))
				},
			},
			"deleteWebhook": {
				resources: func() []fuzzResource {
					out := []fuzzResource{{name: "a random UUID", path: random(), want: wantNotFound}}
					for i, h := range sd.deletable {
						out = append(out, fuzzResource{name: fmt.Sprintf("a webhook endpoint (%d)", i+1), path: id(h)})
					}
					return out
				}(),
				// Use after free: once deleted, an endpoint is 404 everywhere.
				extra: func(o *fuzzOp) []fuzzCase {
					gone := id(sd.deletable[0])
					return []fuzzCase{
						call(o, "delete a deleted endpoint", wantNotFound, http.MethodDelete, o.path, gone, ""),
						call(o, "the deliveries of a deleted endpoint", wantNotFound, http.MethodGet, "/api/v1/webhooks/{id}/deliveries", gone, ""),
						call(o, "test a deleted endpoint", wantNotFound, http.MethodPost, "/api/v1/webhooks/test", nil,
							fmt.Sprintf(`{"webhook_id":%q}`, sd.deletable[0])),
					}
				},
			},
			"listWebhookDeliveries": {
				resources: []fuzzResource{
					{name: "an endpoint with deliveries", path: id(sd.mainHook)},
					{name: "an endpoint without deliveries", path: id(sd.keepHook)},
					{name: "the next page", path: id(sd.mainHook), query: q("cursor", sd.deliveriesCursor)},
					{name: "a random UUID", path: random(), want: wantNotFound},
				},
				opaque: []string{"cursor"},
				extra: func(o *fuzzOp) []fuzzCase {
					out := tampered(o, fuzzResource{path: id(sd.mainHook)}, sd.deliveriesCursor)
					c := o.base(fuzzResource{path: id(sd.keepHook), query: q("cursor", sd.deliveriesCursor)})
					c.name, c.kind, c.want = "a cursor of another endpoint's deliveries", fuzzInvalid, []int{http.StatusBadRequest}
					return append(out, c)
				},
			},
			"testWebhook": {
				// webhook_id names one of the account's endpoints, or (one time in three) a
				// random UUID: 404.
				fix: func(r *rand.Rand, c *fuzzCase) {
					if _, ok := c.fields["webhook_id"]; !ok {
						return
					}
					switch r.IntN(3) {
					case 0:
						c.fields["webhook_id"] = sd.mainHook.String()
					case 1:
						c.fields["webhook_id"] = sd.keepHook.String()
					default:
						c.want = []int{wantNotFound}
					}
				},
			},
			"getHealth":      {},
			"getReadiness":   {},
			"getOpenAPISpec": {},
			"getDocs":        {},
		},
	}
}
