// One full flow of the Parsing API through a client generated from openapi/parsing.yaml: a
// statement uploaded as multipart, polled until completed, its transactions read in two pages,
// exported as JSON and CSV, the usage and status read, and one error (no API key is 401).
//
// Environment: PARSE_URL (base URL), PARSE_API_KEY (a key with every scope), PARSE_STATEMENT_FILE
// (the path of simpleCSV(3) of contract-tests/parse_fixtures_test.go: three credits
// "2024-03-0N,PAYMENT N,..." of 10.00, 11.01 and 12.02, no currency, no balance), and the
// account's plan is business.
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/parsing.js";
import { RawBodies, check, env, equal, failed, fixture, ok, poll, run } from "./check.js";

type Job = components["schemas"]["Job"];
type Transaction = components["schemas"]["Transaction"];
/** The fields of a transaction that simpleCSV(3) decides. */
type TxView = Pick<
  Transaction,
  "date" | "value_date" | "amount" | "currency" | "description" | "reference" | "balance" | "type"
>;

run("parse", async (log) => {
  const baseUrl = env("PARSE_URL");
  const raw = new RawBodies();
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${env("PARSE_API_KEY")}` } });
  api.use(raw.middleware);

  // 1. Upload the statement. The spec types the format: binary part as a string, so the body is
  // the file's text and the serializer turns it into a file part with a file name.
  const created = await api.POST("/api/v1/jobs", {
    params: { header: { "Idempotency-Key": randomUUID() } },
    body: { file: fixture("PARSE_STATEMENT_FILE") },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append("file", new Blob([body.file], { type: "text/csv" }), "three.csv");
      return form;
    },
  });
  const accepted = ok(created, 202, "POST /api/v1/jobs");
  equal(accepted.ok, true, "ok of the upload");
  equal(accepted.data.status, "queued", "status of the accepted job");
  equal(accepted.data.file_name, "three.csv", "file_name");
  equal(accepted.data.format, "csv", "format detected at upload");
  equal(created.response.headers.get("Location"), `/api/v1/jobs/${accepted.data.job_id}`, "Location");
  const id = accepted.data.job_id;
  log(`job ${id} accepted`);

  // 2. Poll until the job is finished.
  const job: Job = await poll(
    `job ${id}`,
    async () => ok(await api.GET("/api/v1/jobs/{id}", { params: { path: { id } } }), 200, "GET /api/v1/jobs/{id}").data,
    (j) => j.status !== "queued" && j.status !== "processing",
  );
  equal(job.status, "completed", `job status (error: ${JSON.stringify(job.error)})`);
  equal(job.error, null, "job error");
  equal(job.transactions_count, 3, "transactions_count");
  equal(job.review_reasons, [], "review_reasons");
  check(job.completed_at !== null, "completed_at is set");
  log(`job ${id} ${job.status} with ${job.transactions_count} transactions`);

  // 3. The transactions, two to a page: a full page with a cursor, then the last page.
  const first = ok(
    await api.GET("/api/v1/jobs/{id}/results", { params: { path: { id }, query: { limit: 2 } } }),
    200,
    "GET /api/v1/jobs/{id}/results (page 1)",
  ).data;
  const firstRaw = raw.last;
  equal(first.job_id, id, "results job_id");
  equal(first.transactions.length, 2, "transactions on the first page");
  const cursor = first.next_cursor;
  check(cursor !== null, "the first page of two has a next_cursor");
  const second = ok(
    await api.GET("/api/v1/jobs/{id}/results", { params: { path: { id }, query: { limit: 2, cursor } } }),
    200,
    "GET /api/v1/jobs/{id}/results (page 2)",
  ).data;
  equal(second.next_cursor, null, "next_cursor of the last page");
  const txs: Transaction[] = [...first.transactions, ...second.transactions];
  equal(
    txs.map(({ date, value_date, amount, currency, description, reference, balance, type }): TxView => ({
      date,
      value_date,
      amount,
      currency,
      description,
      reference,
      balance,
      type,
    })),
    (
      [
        ["2024-03-01", 10, "PAYMENT 1"],
        ["2024-03-02", 11.01, "PAYMENT 2"],
        ["2024-03-03", 12.02, "PAYMENT 3"],
      ] as const
    ).map(([date, amount, description]): TxView => ({
      date,
      value_date: null,
      amount,
      currency: null,
      description,
      reference: null,
      balance: null,
      type: "credit",
    })),
    "transactions",
  );
  equal(new Set(txs.map((t) => t.id)).size, 3, "distinct transaction ids");
  // Amounts are JSON numbers with the currency's decimals; JSON.parse reads 10.00 as 10, so the
  // written form can only be checked on the raw body.
  check(firstRaw.includes('"amount":10.00'), `results body lacks "amount":10.00: ${firstRaw}`);
  log(`results: ${txs.length} transactions in 2 pages, amounts ${txs.map((t) => t.amount).join(", ")}`);

  // 4. The export, as JSON (typed: the 200 answer is a string or a TransactionExport) and as CSV.
  const exported = ok(
    await api.GET("/api/v1/jobs/{id}/export", { params: { path: { id }, query: { format: "json" } } }),
    200,
    "GET /api/v1/jobs/{id}/export?format=json",
  );
  check(typeof exported !== "string", "the JSON export is a TransactionExport, not text");
  equal(exported.job.job_id, id, "export job_id");
  equal(
    exported.transactions.map((t) => t.id),
    txs.map((t) => t.id),
    "exported transactions",
  );
  const csv = ok(
    await api.GET("/api/v1/jobs/{id}/export", { params: { path: { id }, query: { format: "csv" } }, parseAs: "text" }),
    200,
    "GET /api/v1/jobs/{id}/export?format=csv",
  );
  const rows = csv.split("\r\n").filter((r) => r !== "");
  equal(rows.length, 4, "CSV export rows (header and three transactions)");
  check(
    (rows[0] ?? "").startsWith("id,date,value_date,amount,currency,description"),
    `CSV header: ${rows[0] ?? ""}`,
  );

  // 5. Usage and status.
  const usage = ok(await api.GET("/api/v1/usage"), 200, "GET /api/v1/usage").data;
  equal(
    {
      plan: usage.plan,
      jobs_created: usage.jobs_created,
      jobs_limit: usage.jobs_limit,
      jobs_remaining: usage.jobs_remaining,
      transactions_parsed: usage.transactions_parsed,
    },
    { plan: "business", jobs_created: 1, jobs_limit: 100_000, jobs_remaining: 99_999, transactions_parsed: 3 },
    "usage",
  );
  const status = ok(await api.GET("/api/v1/status"), 200, "GET /api/v1/status").data;
  equal(
    { plan: status.plan, rate_limit: status.rate_limit, monthly_job_limit: status.monthly_job_limit },
    { plan: "business", rate_limit: { limit: 1000, window_seconds: 60 }, monthly_job_limit: 100_000 },
    "status",
  );
  log(`usage: ${usage.jobs_created} job, ${usage.transactions_parsed} transactions; service ${status.status}`);

  // 6. A request without an API key is 401 UNAUTHORIZED with the error envelope.
  const anonymous = createClient<paths>({ baseUrl });
  anonymous.use(raw.middleware);
  const noKey = await anonymous.GET("/api/v1/jobs/{id}", { params: { path: { id } } });
  const unauthorized = failed(noKey, 401, "GET a job without an API key");
  equal(unauthorized.ok, false, "ok of the error envelope");
  equal(unauthorized.error, "UNAUTHORIZED", "error without an API key");
  check(unauthorized.meta.request_id !== "", "meta.request_id is set");
  const challenge = noKey.response.headers.get("WWW-Authenticate") ?? "";
  check(challenge.startsWith("Bearer"), `WWW-Authenticate: ${challenge}`);
  log(`no API key: ${unauthorized.error} (${unauthorized.detail})`);
});
