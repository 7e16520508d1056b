// The flows an integrator runs with the packed @statementmatch/sdk, installed from its tarball
// into a fresh project by TestTypeScriptSDKPackage (contract-tests/typescript_sdk_test.go),
// type-checked there against the package's own .d.ts and run with node. Any unexpected answer
// throws and exits non-zero.

import assert from "node:assert/strict";
import {
  APIError, ParsingClient, ReconciliationClient, uploadFile, verifyWebhook, type Transaction,
} from "@statementmatch/sdk";
import { samples } from "./samples.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

async function reconciliation(): Promise<string> {
  const c = new ReconciliationClient({ baseUrl: env("RECON_URL"), clientId: env("RECON_CLIENT_ID"), clientSecret: env("RECON_CLIENT_SECRET") });
  const accepted = await c.createJob(await uploadFile(env("RECON_BANK_FILE")), await uploadFile(env("RECON_EXPECTED_FILE")));
  let seen = 0;
  const job = await c.waitForJob(accepted.job_id, { intervalMs: 50, onProgress: () => seen++ });
  assert.equal(job.status, "completed");
  assert.ok(seen > 0);
  const res = await c.getJobResults(job.job_id);
  const paid = res.matched.find((m) => m.reference === "INV-2024-001");
  assert.equal(paid?.amount, "1250.50", "an amount keeps its trailing zero");
  assert.deepEqual([res.summary.matched_count, res.summary.partial_count, res.summary.unmatched_count], [2, 2, 1]);
  const csv = await text(await c.exportJobResults(job.job_id, "csv"));
  assert.match(csv, /INV-2024-001/);
  const limits = await c.getLimits();
  assert.ok(limits.jobs_used >= 1);
  try {
    await c.getJob("00000000-0000-4000-8000-000000000000");
    assert.fail("an unknown job is an error");
  } catch (err) {
    assert.ok(err instanceof APIError, String(err));
    assert.equal(err.status, 404);
    assert.equal(err.code, "NOT_FOUND");
    assert.ok(err.requestId);
  }
  const stale = new ReconciliationClient({
    baseUrl: env("RECON_URL"),
    tokens: { token: async () => "not-a-token" },
    retry: { attempts: 1 },
  });
  await assert.rejects(stale.getLimits(), (err: unknown) => err instanceof APIError && err.status === 401);
  console.log("reconciliation: job", job.job_id, "matched", res.summary.matched_count);
  return job.job_id;
}

async function parsing(): Promise<string> {
  const c = new ParsingClient({ baseUrl: env("PARSE_URL"), apiKey: env("PARSE_API_KEY") });
  const created = await c.createJob(await uploadFile(env("PARSE_STATEMENT_FILE")));
  const job = await c.waitForJob(created.job_id, { intervalMs: 50 });
  assert.equal(job.status, "completed", JSON.stringify(job));
  const amounts: string[] = [];
  for await (const tx of c.transactions(job.job_id, 2)) amounts.push((tx as Transaction).amount);
  assert.deepEqual(amounts, ["1250.50", "-42.90", "98765432109876543.21"], "amounts are exact, past 2^53 too");
  const exported = await text(await c.exportJob(job.job_id, "csv"));
  assert.match(exported, /98765432109876543\.21/);
  const ids: string[] = [];
  for await (const j of c.jobs({ limit: 1 })) ids.push(j.job_id);
  assert.deepEqual(ids, [job.job_id]);
  const usage = await c.getUsage();
  assert.ok(usage.jobs_created >= 1);
  await assert.rejects(c.getJob("00000000-0000-4000-8000-000000000000"), (err: unknown) => err instanceof APIError && err.code === "NOT_FOUND");

  const event = verifyWebhook(env("WEBHOOK_SECRET"), JSON.parse(env("WEBHOOK_HEADERS")) as Record<string, string>, env("WEBHOOK_BODY"));
  assert.equal(event.event, "job.completed");
  assert.throws(() => verifyWebhook(env("WEBHOOK_SECRET"), JSON.parse(env("WEBHOOK_HEADERS")) as Record<string, string>, env("WEBHOOK_BODY") + " "));
  console.log("parsing: job", job.job_id, "transactions", amounts.length);
  return job.job_id;
}

// docsSamples runs every TypeScript sample of the docs pages (openapi/samples/ts), as a reader
// would with their own ids: the flows' jobs, a new webhook endpoint; deletions last.
async function docsSamples(reconJob: string, parseJob: string): Promise<void> {
  const pc = new ParsingClient({ baseUrl: env("PARSE_URL"), apiKey: env("PARSE_API_KEY") });
  const endpoint = await pc.createWebhook({ url: env("HOOK_URL") });
  const ordered = [...samples.filter((s) => !s.operation.startsWith("delete")), ...samples.filter((s) => s.operation.startsWith("delete"))];
  for (const s of ordered) {
    try {
      await s.run({
        baseUrl: env("RECON_URL"), clientId: env("RECON_CLIENT_ID"), clientSecret: env("RECON_CLIENT_SECRET"),
        parseUrl: env("PARSE_URL"), apiKey: env("PARSE_API_KEY"),
        jobId: s.api === "reconciliation" ? reconJob : parseJob,
        webhookId: endpoint.id, hookUrl: env("HOOK_URL"),
        secret: env("WEBHOOK_SECRET"), headers: JSON.parse(env("WEBHOOK_HEADERS")) as Record<string, string>, body: env("WEBHOOK_BODY"),
      });
    } catch (err) {
      throw new Error(`TypeScript sample ${s.api} ${s.operation}: ${String(err)}`);
    }
  }
  console.log("docs samples:", ordered.length, "ran");
}

const reconJob = await reconciliation();
const parseJob = await parsing();
await docsSamples(reconJob, parseJob);
