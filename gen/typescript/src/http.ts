// The HTTP layer both clients share: the API reference's retry rule, Idempotency-Key for
// uploads, exact amounts in every JSON answer, and errors as APIError.

import { randomUUID } from "node:crypto";
import { quoteDecimals } from "./json.js";

/** A fetch as openapi-fetch calls it. */
export type Fetch = (request: Request) => Promise<Response>;

/** An error answer of an API: anything but a 2xx. */
export class APIError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The machine-readable code (NOT_FOUND, LIMIT_EXCEEDED, ...); "" when the answer had none. */
  readonly code: string;
  /** The answer's X-Request-Id, to quote to support. */
  readonly requestId: string;
  /** The answer's Retry-After in seconds; undefined when it had none. */
  readonly retryAfterSeconds: number | undefined;

  constructor(api: string, status: number, code: string, message: string, requestId: string, retryAfterSeconds: number | undefined) {
    let text = `${api} API answered ${status}`;
    if (code) text += ` ${code}`;
    if (message) text += `: ${message}`;
    if (requestId) text += ` (request ${requestId})`;
    super(text);
    this.name = "APIError";
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.retryAfterSeconds = retryAfterSeconds;
    this.detail = message;
  }

  /** The human-readable explanation. */
  readonly detail: string;

  /** Builds the error of `response`, whose body openapi-fetch read as `body`. */
  static of(api: string, response: Response, body: unknown): APIError {
    let code = "";
    let message = "";
    let requestId = response.headers.get("X-Request-Id") ?? "";
    if (body && typeof body === "object") {
      const b = body as { error?: unknown; detail?: unknown; meta?: { request_id?: unknown } };
      if (typeof b.error === "string") code = b.error;
      if (typeof b.detail === "string") message = b.detail;
      else if (b.detail && typeof b.detail === "object" && typeof (b.detail as { message?: unknown }).message === "string") {
        message = (b.detail as { message: string }).message;
      }
      if (!requestId && typeof b.meta?.request_id === "string") requestId = b.meta.request_id;
    } else if (typeof body === "string") {
      message = body.slice(0, 200);
    }
    return new APIError(api, response.status, code, message, requestId, retryAfter(response.headers, Date.now()));
  }
}

/** When and how long a request is retried; see defaultRetryPolicy. */
export interface RetryPolicy {
  /** How many times a request is sent at the most; 1 turns retries off. */
  attempts: number;
  /** The wait before retry n (1 for the first retry), in milliseconds; 2^n seconds by default. */
  backoffMs?: (n: number) => number;
  /** The longest wait accepted: an answer whose Retry-After asks for more is returned at once. 2 minutes by default. */
  maxWaitMs?: number;
}

/**
 * The API reference's rule: up to 3 attempts, waiting 2 s then 4 s (or the answer's
 * Retry-After, if longer), only after 429, 500 and 503 answers and failed connections.
 */
export const defaultRetryPolicy: RetryPolicy = { attempts: 3 };

/** Reads Retry-After (seconds or an HTTP date) in seconds from now. */
export function retryAfter(headers: Headers, nowMs: number): number | undefined {
  const v = headers.get("Retry-After")?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

/** A request body read once, so that every attempt sends the same bytes. */
export async function replayable(request: Request): Promise<() => Request> {
  const body = request.body ? await request.arrayBuffer() : undefined;
  return () => new Request(request, body === undefined ? {} : { body });
}

/**
 * Returns a fetch that sends each request through `next` and retries it by `policy`. A POST
 * that creates a job or a webhook endpoint without an Idempotency-Key gets one, so a retried
 * upload never creates two.
 */
export function retrying(next: Fetch, policy: RetryPolicy): Fetch {
  const attempts = Math.max(1, policy.attempts);
  const backoff = policy.backoffMs ?? ((n: number) => 2 ** n * 1000);
  const maxWait = policy.maxWaitMs ?? 120_000;
  return async (request) => {
    if (attempts > 1 && request.method === "POST" && !request.headers.has("Idempotency-Key") &&
      /\/api\/v1\/(jobs|webhooks)\/?$/.test(new URL(request.url).pathname)) {
      request.headers.set("Idempotency-Key", randomUUID());
    }
    const again = await replayable(request);
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      try {
        response = await next(again());
      } catch (err) {
        if (attempt >= attempts || request.signal.aborted) throw err;
      }
      if (response && (attempt >= attempts || ![429, 500, 503].includes(response.status))) return response;
      let wait = backoff(attempt);
      if (response) {
        const after = retryAfter(response.headers, Date.now());
        if (after !== undefined) {
          if (after * 1000 > maxWait) return response;
          wait = Math.max(wait, after * 1000);
        }
        await response.body?.cancel();
      }
      await sleep(wait, request.signal);
    }
  };
}

/**
 * Returns a fetch whose successful JSON answers carry the amounts (the properties in `keys`)
 * as exact strings, for openapi-fetch to parse.
 */
export function exactDecimals(next: Fetch, keys: ReadonlySet<string>): Fetch {
  return async (request) => {
    const response = await next(request);
    if (!response.ok || !(response.headers.get("Content-Type") ?? "").includes("json")) return response;
    const text = quoteDecimals(await response.text(), keys);
    const headers = new Headers(response.headers);
    headers.delete("Content-Length");
    headers.delete("Content-Encoding");
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };
}

/** Returns data for a 2xx answer, and throws the APIError of any other. */
export function result<T>(api: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (!answer.response.ok) throw APIError.of(api, answer.response, answer.error);
  return answer.data as T;
}

/** Polls `get` until `done`: at once, then after intervalMs, the wait doubling up to 10 s. */
export async function poll<T>(get: () => Promise<T>, done: (v: T) => boolean, intervalMs: number, signal?: AbortSignal): Promise<T> {
  let wait = intervalMs > 0 ? intervalMs : 1000;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    await sleep(wait, signal ?? null);
    wait = wait >= 10_000 ? wait : Math.min(2 * wait, 10_000);
  }
}

/** A file to upload: its name and its content. */
export interface Upload {
  name: string;
  content: Blob | Uint8Array | ArrayBuffer | string;
}

/** Reads the file at path into an Upload named after it. */
export async function uploadFile(path: string): Promise<Upload> {
  const { readFile } = await import("node:fs/promises");
  const { basename } = await import("node:path");
  return { name: basename(path), content: new Uint8Array(await readFile(path)) };
}

/** Adds an upload to a multipart form as a file part. */
export function appendFile(form: FormData, field: string, file: Upload): void {
  const blob = file.content instanceof Blob ? file.content : new Blob([file.content as BlobPart]);
  form.append(field, blob, file.name.split(/[\\/]/).pop() ?? file.name);
}
