// One full flow of the Reconciliation API through a client generated from
// openapi/reconciliation.yaml: a token with client credentials, a job uploaded as multipart,
// polled until completed, its results, the quota, and one error (an unknown job is 404).
//
// Environment: RECON_URL (base URL), RECON_CLIENT_ID, RECON_CLIENT_SECRET, RECON_BANK_FILE and
// RECON_EXPECTED_FILE (paths of the walk-through fixtures of contract-tests/recon_fixtures_test.go:
// bankCSV(reconBankLines) and reconExpectedCSV). The expected outcome is the one
// TestReconciliationFlow requires for the same files.
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/reconciliation.js";
import { RawBodies, at, check, env, equal, failed, fixture, ok, poll, run } from "./check.js";

type Job = components["schemas"]["Job"];

run("recon", async (log) => {
  const baseUrl = env("RECON_URL");
  const raw = new RawBodies();

  // 1. A token with client credentials (the JSON form of the token request).
  const anonymous = createClient<paths>({ baseUrl });
  anonymous.use(raw.middleware);
  const token = ok(
    await anonymous.POST("/api/v1/token", {
      body: { client_id: env("RECON_CLIENT_ID"), client_secret: env("RECON_CLIENT_SECRET") },
    }),
    200,
    "POST /api/v1/token",
  );
  equal(token.token_type, "Bearer", "token_type");
  equal(token.scope.split(" ").sort(), ["jobs:read", "jobs:write", "limits:read"], "token scope");
  check(token.expires_in > 0, `expires_in ${token.expires_in}`);
  log(`token for ${token.expires_in} s with scope ${token.scope}`);

  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token.access_token}` } });
  api.use(raw.middleware);

  // 2. Upload the two files. The spec types the format: binary parts as strings, so the body is
  // the files' text and the serializer turns each into a file part with a file name.
  const created = await api.POST("/api/v1/jobs", {
    params: { header: { "Idempotency-Key": randomUUID() } },
    body: { bank: fixture("RECON_BANK_FILE"), expected: fixture("RECON_EXPECTED_FILE") },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append("bank", new Blob([body.bank], { type: "text/csv" }), "statement.csv");
      form.append("expected", new Blob([body.expected], { type: "text/csv" }), "open invoices.csv");
      return form;
    },
  });
  const accepted = ok(created, 202, "POST /api/v1/jobs");
  equal(accepted.status, "processing", "status of the accepted job");
  equal(created.response.headers.get("Location"), `/api/v1/jobs/${accepted.job_id}`, "Location");
  log(`job ${accepted.job_id} accepted`);

  // 3. Poll until the job is no longer processing.
  const job: Job = await poll(
    `job ${accepted.job_id}`,
    async () =>
      ok(
        await api.GET("/api/v1/jobs/{job_id}", { params: { path: { job_id: accepted.job_id } } }),
        200,
        "GET /api/v1/jobs/{job_id}",
      ),
    (j) => j.status !== "processing",
  );
  equal(job.status, "completed", `job status (error: ${JSON.stringify(job.error)})`);
  equal(job.error, null, "job error");
  equal(job.bank_file, "statement.csv", "bank_file");
  equal(job.expected_file, "open invoices.csv", "expected_file");
  equal(job.env, "production", "env");
  check(job.completed_at !== null, "completed_at is set");
  log(`job ${job.job_id} ${job.status}`);

  // 4. The results: what TestReconciliationFlow requires for the same files. The 200 answer is
  // typed as JobResults or a spreadsheet (format=csv|xlsx); without a format it is JobResults.
  const res = ok(
    await api.GET("/api/v1/jobs/{job_id}/results", { params: { path: { job_id: job.job_id } } }),
    200,
    "GET /api/v1/jobs/{job_id}/results",
  );
  check(typeof res !== "string", "the results are JobResults, not a spreadsheet");
  equal(res.job_id, job.job_id, "results job_id");
  equal(
    res.matched.map((m) => m.reference),
    ["INV-2024-001", "INV-2024-002"],
    "matched references",
  );
  equal(
    res.matched.map((m) => m.rule),
    ["exact", "instalments"],
    "the rules that matched them",
  );
  const acme = at(res.matched, 0, "matched");
  equal(acme.amount, 1250.5, "INV-2024-001 amount");
  equal(acme.bank_entry, "SEPA CREDIT ACME GMBH INV 2024 001", "INV-2024-001 bank_entry");
  equal(at(acme.bank_entries, 0, "INV-2024-001 bank_entries").date, "2024-03-04", "INV-2024-001 date");
  equal(
    at(res.matched, 1, "matched").bank_entries.map((e) => e.line),
    [3, 5],
    "INV-2024-002 is paid by two instalments",
  );
  equal(
    res.partial.map(({ reference, reason, rule, expected_amount, matched_amount }) => ({
      reference,
      reason,
      rule,
      expected_amount,
      matched_amount,
    })),
    [
      { reference: "INV-2024-003", reason: "amount_mismatch", rule: "amount_mismatch", expected_amount: 500, matched_amount: 450 },
      { reference: "INV-2024-005", reason: "duplicate_payment", rule: "duplicate_payment", expected_amount: 300, matched_amount: 600 },
    ],
    "partial references",
  );
  equal(
    res.unmatched.map(({ reference, amount, suggestions }) => ({ reference, amount, suggestions })),
    [{ reference: "INV-2024-004", amount: 75, suggestions: [] }],
    "unmatched references",
  );
  equal(
    res.unmatched_bank_entries.map(({ line, amount, text }) => ({ line, amount, text })),
    [{ line: 1, amount: -42.99, text: "CARD PAYMENT OFFICE SUPPLIES" }],
    "unmatched bank entries",
  );
  equal(
    res.summary,
    {
      expected_count: 5,
      matched_count: 2,
      partial_count: 2,
      unmatched_count: 1,
      unmatched_bank_entries_count: 1,
      expected_total: 3025.5,
      matched_total: 2150.5,
    },
    "summary",
  );
  // Amounts are JSON numbers with the currency's decimals; JSON.parse drops the trailing zero,
  // so the written form can only be checked on the raw body.
  for (const written of ['"expected_total":3025.50', '"matched_total":2150.50', '"amount":1250.50']) {
    check(raw.last.includes(written), `results body lacks ${written}: ${raw.last}`);
  }
  log(
    `results: ${res.summary.matched_count} matched, ${res.summary.partial_count} partial, ` +
      `${res.summary.unmatched_count} unmatched, ${res.summary.unmatched_bank_entries_count} unmatched bank entries`,
  );

  // The same results as a CSV download: a header, a row per reference and per unused line.
  const csv = ok(
    await api.GET("/api/v1/jobs/{job_id}/results", {
      params: { path: { job_id: job.job_id }, query: { format: "csv" } },
      parseAs: "text",
    }),
    200,
    "GET /api/v1/jobs/{job_id}/results?format=csv",
  );
  const rows = csv.split("\r\n").filter((r) => r !== "");
  equal(rows.length, 1 + 5 + 1, "CSV rows (header, five references, one unused line)");
  equal(rows[1], "matched,INV-2024-001,EUR,1250.50,1250.50,,exact,2,2024-03-04,1250.50,SEPA CREDIT ACME GMBH INV 2024 001,", "first CSV row");

  // 5. The quota counts the job.
  const quota = ok(await api.GET("/api/v1/limits"), 200, "GET /api/v1/limits");
  equal(
    { plan: quota.plan, env: quota.env, jobs_used: quota.jobs_used },
    { plan: "pro", env: "production", jobs_used: 1 },
    "quota",
  );
  equal(quota.jobs_remaining, quota.jobs_limit - 1, "jobs_remaining");

  // 6. An unknown job is 404 NOT_FOUND with the Error body.
  const missing = failed(
    await api.GET("/api/v1/jobs/{job_id}", { params: { path: { job_id: randomUUID() } } }),
    404,
    "GET an unknown job",
  );
  equal(missing.error, "NOT_FOUND", "error of an unknown job");
  equal(missing.detail.code, "NOT_FOUND", "detail.code of an unknown job");
  check(missing.detail.message !== "", "detail.message is set");
  log(`unknown job: ${missing.error} (${missing.detail.message})`);
});
