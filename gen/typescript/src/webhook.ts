// Verifying a webhook delivery with Node's crypto, as the Go SDK's VerifyWebhook does.

import { createHmac, timingSafeEqual } from "node:crypto";
import { parsingDecimals } from "./generated/decimals.js";
import type { components } from "./generated/parsing.js";
import { parseExact } from "./json.js";

/** Why a delivery was refused; `reason` is "headers", "signature", "timestamp" or "payload". */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: "headers" | "signature" | "timestamp" | "payload", message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(h: HeaderSource, name: string): string {
  if (h instanceof Headers) return h.get(name) ?? "";
  const key = Object.keys(h).find((k) => k.toLowerCase() === name.toLowerCase());
  const v = key === undefined ? undefined : h[key];
  return (Array.isArray(v) ? v[0] : v) ?? "";
}

const mac = (key: Buffer | string, prefix: string, body: Uint8Array) =>
  createHmac("sha256", key).update(prefix).update(body).digest();

/**
 * Checks that a delivery comes from the service and returns its event: `body` is the raw
 * request body as received, `headers` the request's headers (a Headers or Node's
 * IncomingHttpHeaders), `secret` the signing secret ("whsec_..."). Either signature is accepted:
 * X-Service-Signature (hex HMAC-SHA256 of "<X-Service-Timestamp>.<body>" keyed with the whole
 * secret) or Standard Webhooks' webhook-signature ("v1,<base64>" of
 * "<webhook-id>.<webhook-timestamp>.<body>" keyed with the base64 part of the secret), compared
 * in constant time, when its timestamp is within toleranceSeconds (300 by default) of now.
 * Amounts in the event are exact strings. Throws a WebhookVerificationError otherwise.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: Uint8Array | string,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): components["schemas"]["WebhookEvent"] {
  const raw = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const tolerance = options.toleranceSeconds && options.toleranceSeconds > 0 ? options.toleranceSeconds : 300;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const timestamp = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text.trim()) : undefined);
  let present = false;
  let matched: number | undefined;

  const sig = header(headers, "X-Service-Signature").trim();
  const ts = timestamp(header(headers, "X-Service-Timestamp"));
  if (/^[0-9a-fA-F]{64}$/.test(sig) && ts !== undefined) {
    present = true;
    if (timingSafeEqual(Buffer.from(sig, "hex"), mac(secret, `${header(headers, "X-Service-Timestamp").trim()}.`, raw))) matched = ts;
  }
  const id = header(headers, "webhook-id");
  const wts = timestamp(header(headers, "webhook-timestamp"));
  const sigs = header(headers, "webhook-signature");
  if (matched === undefined && id && wts !== undefined && sigs && secret.startsWith("whsec_")) {
    present = true;
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const want = Buffer.from("v1," + mac(key, `${id}.${header(headers, "webhook-timestamp").trim()}.`, raw).toString("base64"));
    for (const s of sigs.split(/\s+/)) {
      const got = Buffer.from(s);
      if (got.length === want.length && timingSafeEqual(got, want)) matched = wts;
    }
  }
  if (matched === undefined) {
    throw present
      ? new WebhookVerificationError("signature", "no webhook signature matches")
      : new WebhookVerificationError("headers", "expected X-Service-Signature and X-Service-Timestamp, or webhook-id, webhook-timestamp and webhook-signature");
  }
  if (Math.abs(now - matched) > tolerance) {
    throw new WebhookVerificationError("timestamp", `webhook timestamp ${matched} is ${Math.abs(now - matched)} s from now, more than ${tolerance} s`);
  }
  try {
    const event = parseExact<components["schemas"]["WebhookEvent"]>(new TextDecoder().decode(raw), parsingDecimals);
    if (!event || typeof event.event !== "string") throw new Error("it has no event type");
    return event;
  } catch (err) {
    throw new WebhookVerificationError("payload", `webhook body is not an event: ${(err as Error).message}`);
  }
}
