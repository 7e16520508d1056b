// The TypeScript code samples of the API reference pages (/docs): each region between
// "sample:start API OPERATION" and "sample:end" is shown for that operation, and the TypeScript
// SDK's contract test (contract-tests/typescript_sdk_test.go) compiles them against the packed
// @statementmatch/sdk and runs every one against a server, so no sample rots.

import {
  ParsingClient, ReconciliationClient, uploadFile, verifyWebhook,
} from "@statementmatch/sdk";

/** What the samples take from their caller: the addresses, credentials and ids a reader has. */
export interface Env {
  baseUrl: string; clientId: string; clientSecret: string; // Reconciliation API
  parseUrl: string; apiKey: string; // Parsing API
  jobId: string; // a finished job of the API the sample calls
  webhookId: string; hookUrl: string;
  secret: string; headers: Record<string, string>; body: string; // a webhook delivery
}

export const samples: { api: string; operation: string; run: (e: Env) => Promise<void> }[] = [
  { api: "reconciliation", operation: "createToken", run: async ({ baseUrl, clientId, clientSecret }) => {
    // sample:start reconciliation createToken
    // The client gets and renews tokens itself; createToken asks for one explicitly.
    const c = new ReconciliationClient({ baseUrl, clientId, clientSecret });
    const token = await c.createToken();
    console.log("token valid for", token.expires_in, "seconds");
    // sample:end
  } },
  { api: "reconciliation", operation: "createJob", run: async ({ baseUrl, clientId, clientSecret }) => {
    // sample:start reconciliation createJob
    const c = new ReconciliationClient({ baseUrl, clientId, clientSecret });
    const accepted = await c.createJob(await uploadFile("bank.csv"), await uploadFile("expected.csv")); // throws APIError on a refusal
    const job = await c.waitForJob(accepted.job_id);
    console.log("job", job.job_id, job.status);
    // sample:end
  } },
  { api: "reconciliation", operation: "getJob", run: async ({ baseUrl, clientId, clientSecret, jobId }) => {
    // sample:start reconciliation getJob
    const c = new ReconciliationClient({ baseUrl, clientId, clientSecret });
    const job = await c.getJob(jobId);
    console.log(job.status, job.created_at);
    // sample:end
  } },
  { api: "reconciliation", operation: "getJobResults", run: async ({ baseUrl, clientId, clientSecret, jobId }) => {
    // sample:start reconciliation getJobResults
    const c = new ReconciliationClient({ baseUrl, clientId, clientSecret });
    const res = await c.getJobResults(jobId);
    for (const m of res.matched) console.log("paid:", m.reference, m.amount, "by", m.rule); // amounts are exact strings
    for (const u of res.unmatched) console.log("open:", u.reference, u.amount);
    // As a spreadsheet: await c.exportJobResults(jobId, "xlsx") (a stream)
    // sample:end
  } },
  { api: "reconciliation", operation: "getLimits", run: async ({ baseUrl, clientId, clientSecret }) => {
    // sample:start reconciliation getLimits
    const c = new ReconciliationClient({ baseUrl, clientId, clientSecret });
    const q = await c.getLimits();
    console.log(`${q.jobs_remaining} of ${q.jobs_limit} jobs left until ${q.reset_date}`);
    // sample:end
  } },
  { api: "reconciliation", operation: "getHealth", run: async ({ baseUrl }) => {
    // sample:start reconciliation getHealth
    const c = new ReconciliationClient({ baseUrl }); // no credentials needed
    console.log((await c.getHealth()).status);
    // sample:end
  } },
  { api: "reconciliation", operation: "getReadiness", run: async ({ baseUrl }) => {
    // sample:start reconciliation getReadiness
    const c = new ReconciliationClient({ baseUrl });
    const r = await c.getReadiness(); // a 503 (not ready) throws an APIError
    console.log(r.status, r.database);
    // sample:end
  } },
  { api: "reconciliation", operation: "getOpenAPISpec", run: async ({ baseUrl }) => {
    // sample:start reconciliation getOpenAPISpec
    const c = new ReconciliationClient({ baseUrl });
    console.log((await c.getOpenAPISpec()).length, "characters of YAML");
    // sample:end
  } },
  { api: "reconciliation", operation: "getDocs", run: async ({ baseUrl }) => {
    // sample:start reconciliation getDocs
    const c = new ReconciliationClient({ baseUrl });
    console.log((await c.getDocs()).length, "characters of HTML");
    // sample:end
  } },
  { api: "reconciliation", operation: "deleteJob", run: async ({ baseUrl, clientId, clientSecret, jobId }) => {
    // sample:start reconciliation deleteJob
    const c = new ReconciliationClient({ baseUrl, clientId, clientSecret });
    await c.deleteJob(jobId); // 409 JOB_STILL_PROCESSING while the job runs
    console.log("deleted; reading it now answers 410 GONE");
    // sample:end
  } },
  { api: "parsing", operation: "createJob", run: async ({ parseUrl, apiKey }) => {
    // sample:start parsing createJob
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const created = await c.createJob(await uploadFile("statement.csv")); // { password } for a protected PDF
    const job = await c.waitForJob(created.job_id);
    console.log(job.job_id, job.status, job.transactions_count, "transactions");
    // sample:end
  } },
  { api: "parsing", operation: "listJobs", run: async ({ parseUrl, apiKey }) => {
    // sample:start parsing listJobs
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    for await (const job of c.jobs({ status: "completed" })) { // page after page
      console.log(job.job_id, job.file_name, job.transactions_count);
    }
    // sample:end
  } },
  { api: "parsing", operation: "getJob", run: async ({ parseUrl, apiKey, jobId }) => {
    // sample:start parsing getJob
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const job = await c.getJob(jobId);
    console.log(job.status, job.format, job.transactions_count);
    // sample:end
  } },
  { api: "parsing", operation: "getJobResults", run: async ({ parseUrl, apiKey, jobId }) => {
    // sample:start parsing getJobResults
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    for await (const tx of c.transactions(jobId)) {
      console.log(tx.date, tx.amount, tx.description); // tx.amount is an exact string: "1250.50"
    }
    // sample:end
  } },
  { api: "parsing", operation: "exportJob", run: async ({ parseUrl, apiKey, jobId }) => {
    // sample:start parsing exportJob
    const { createWriteStream } = await import("node:fs");
    const { Writable } = await import("node:stream");
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const csv = await c.exportJob(jobId, "csv"); // streamed, any size
    await csv.pipeTo(Writable.toWeb(createWriteStream("transactions.csv")));
    // sample:end
  } },
  { api: "parsing", operation: "getUsage", run: async ({ parseUrl, apiKey }) => {
    // sample:start parsing getUsage
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const u = await c.getUsage();
    console.log(`${u.jobs_created} of ${u.jobs_limit} jobs this month (${u.percent_used} %)`);
    // sample:end
  } },
  { api: "parsing", operation: "getStatus", run: async ({ parseUrl, apiKey }) => {
    // sample:start parsing getStatus
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const s = await c.getStatus();
    console.log(s.status, s.plan, s.rate_limit.limit, "requests a minute");
    // sample:end
  } },
  { api: "parsing", operation: "createWebhook", run: async ({ parseUrl, apiKey, hookUrl }) => {
    // sample:start parsing createWebhook
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const endpoint = await c.createWebhook({ url: hookUrl, events: ["job.completed", "job.failed"] });
    console.log("endpoint", endpoint.id, "- keep the secret:", endpoint.signing_secret);
    // sample:end
  } },
  { api: "parsing", operation: "listWebhooks", run: async ({ parseUrl, apiKey }) => {
    // sample:start parsing listWebhooks
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    for (const w of await c.listWebhooks()) console.log(w.id, w.url, w.enabled);
    // sample:end
  } },
  { api: "parsing", operation: "listWebhookDeliveries", run: async ({ parseUrl, apiKey, webhookId }) => {
    // sample:start parsing listWebhookDeliveries
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    for await (const d of c.webhookDeliveries(webhookId)) {
      console.log(d.id, d.event, d.status, d.attempts_count, "attempts");
    }
    // sample:end
  } },
  { api: "parsing", operation: "testWebhook", run: async ({ parseUrl, apiKey }) => {
    // sample:start parsing testWebhook
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const res = await c.testWebhook({ event: "job.completed" }); // to every enabled endpoint
    for (const d of res.deliveries) console.log(d.webhook_id, d.success);
    // sample:end
  } },
  { api: "parsing", operation: "receiveWebhookEvent", run: async ({ secret, headers, body }) => {
    // sample:start parsing receiveWebhookEvent
    // In your endpoint's handler, with the raw body as received: throws when it is not signed.
    const event = verifyWebhook(secret, headers, body, { toleranceSeconds: 300 });
    if (event.event === "job.completed") console.log("job", (event.data as { job_id: string }).job_id, "completed");
    // sample:end
  } },
  { api: "parsing", operation: "getHealth", run: async ({ parseUrl }) => {
    // sample:start parsing getHealth
    const c = new ParsingClient({ baseUrl: parseUrl }); // no key needed
    console.log((await c.getHealth()).status);
    // sample:end
  } },
  { api: "parsing", operation: "getReadiness", run: async ({ parseUrl }) => {
    // sample:start parsing getReadiness
    const c = new ParsingClient({ baseUrl: parseUrl });
    const r = await c.getReadiness(); // a 503 (not ready) throws an APIError
    console.log(r.status, r.database);
    // sample:end
  } },
  { api: "parsing", operation: "getOpenAPISpec", run: async ({ parseUrl }) => {
    // sample:start parsing getOpenAPISpec
    const c = new ParsingClient({ baseUrl: parseUrl });
    console.log((await c.getOpenAPISpec()).length, "characters of YAML");
    // sample:end
  } },
  { api: "parsing", operation: "getDocs", run: async ({ parseUrl }) => {
    // sample:start parsing getDocs
    const c = new ParsingClient({ baseUrl: parseUrl });
    console.log((await c.getDocs()).length, "characters of HTML");
    // sample:end
  } },
  { api: "parsing", operation: "deleteWebhook", run: async ({ parseUrl, apiKey, webhookId }) => {
    // sample:start parsing deleteWebhook
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    const deleted = await c.deleteWebhook(webhookId);
    console.log("deleted", deleted.id);
    // sample:end
  } },
  { api: "parsing", operation: "deleteJob", run: async ({ parseUrl, apiKey, jobId }) => {
    // sample:start parsing deleteJob
    const c = new ParsingClient({ baseUrl: parseUrl, apiKey });
    await c.deleteJob(jobId); // 409 JOB_STILL_PROCESSING while the job runs
    console.log("deleted; reading it now answers 410 GONE");
    // sample:end
  } },
];
