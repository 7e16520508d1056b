// node --test dist/http.test.js (run by TestTypeScriptSDKPackage after the build).
import assert from "node:assert/strict";
import { test } from "node:test";
import { APIError, retrying } from "./http.js";

/** A fetch that answers from a script and records what it was sent. */
function scripted(...statuses: number[]) {
  const sent: { body: string; key: string | null }[] = [];
  const fetch = async (r: Request) => {
    sent.push({ body: await r.text(), key: r.headers.get("Idempotency-Key") });
    const status = statuses[sent.length - 1] ?? 200;
    return new Response(`{"ok":${status < 300}}`, { status, headers: { "Content-Type": "application/json", "Retry-After": "0" } });
  };
  return { fetch, sent };
}

const upload = () => new Request("http://api.test/api/v1/jobs", { method: "POST", body: "the upload" });
const fast = { attempts: 3, backoffMs: () => 1 };

test("retrying sends an upload again after 429, 500 and 503, with one Idempotency-Key", async () => {
  for (const statuses of [[503, 503], [429, 200], [500, 200]]) {
    const s = scripted(...statuses);
    const r = await retrying(s.fetch, fast)(upload());
    const want = statuses[1] === 503 ? 3 : 2;
    assert.equal(s.sent.length, want, String(statuses));
    assert.equal(r.status, 200);
    assert.ok(s.sent.every((x) => x.body === "the upload" && x.key === s.sent[0]!.key && x.key));
  }
});

test("retrying gives up after the last attempt and never retries a 400", async () => {
  let s = scripted(503, 503, 503, 200);
  assert.equal((await retrying(s.fetch, fast)(upload())).status, 503);
  assert.equal(s.sent.length, 3);
  s = scripted(400);
  assert.equal((await retrying(s.fetch, fast)(upload())).status, 400);
  assert.equal(s.sent.length, 1);
});

test("APIError reads both APIs' error bodies", () => {
  const h = { headers: { "X-Request-Id": "req-1", "Retry-After": "7" } };
  const recon = APIError.of("reconciliation", new Response(null, { status: 404, ...h }), { error: "NOT_FOUND", detail: { code: "NOT_FOUND", message: "No such job." } });
  assert.deepEqual([recon.status, recon.code, recon.detail, recon.requestId, recon.retryAfterSeconds], [404, "NOT_FOUND", "No such job.", "req-1", 7]);
  const parse = APIError.of("parsing", new Response(null, { status: 429 }), { ok: false, error: "RATE_LIMITED", detail: "Slow down.", meta: { request_id: "req-2" } });
  assert.deepEqual([parse.code, parse.detail, parse.requestId], ["RATE_LIMITED", "Slow down.", "req-2"]);
  assert.match(parse.message, /parsing API answered 429 RATE_LIMITED: Slow down\. \(request req-2\)/);
});
