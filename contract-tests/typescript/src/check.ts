// Helpers shared by the flows: configuration from the environment, checks that end the flow with
// a message, polling with a deadline, and a middleware that records every answer's raw body.
import { readFileSync } from "node:fs";
import type { Middleware } from "openapi-fetch";

/** FlowError is an unexpected answer or value; run prints its message and exits 1. */
export class FlowError extends Error {}

/** env returns the environment variable name, which the Go test must set. */
export function env(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === "") {
    throw new FlowError(`environment variable ${name} is not set`);
  }
  return v;
}

/** fixture reads the file named by the environment variable name as UTF-8 text. */
export function fixture(name: string): string {
  return readFileSync(env(name), "utf8");
}

/** canonical is v as JSON with every object's keys sorted. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_key, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

/** check fails the flow with message unless cond holds. */
export function check(cond: boolean, message: string): asserts cond {
  if (!cond) {
    throw new FlowError(message);
  }
}

/**
 * equal fails the flow unless actual and expected have the same JSON form, object keys in any
 * order. expected must have actual's type (from the generated types), so an expected value that
 * the spec does not allow, an unknown enum value say, does not compile.
 */
export function equal<T>(actual: T, expected: NoInfer<T>, what: string): void {
  const a = canonical(actual);
  const e = canonical(expected);
  if (a !== e) {
    throw new FlowError(`${what}: got ${a}, want ${e}`);
  }
}

/** poll calls get until done accepts its value, at most timeoutMs, pausing intervalMs between calls. */
export async function poll<T>(
  what: string,
  get: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (done(v)) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new FlowError(`${what}: not done after ${timeoutMs} ms; last: ${JSON.stringify(v)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * RawBodies is a middleware that keeps the text of the last answer, for checks the typed body
 * cannot make (JSON numbers lose their written decimals in JavaScript), and checks that every
 * answer carries the X-Request-Id header both specs require.
 */
export class RawBodies {
  last = "";
  readonly middleware: Middleware = {
    onResponse: async ({ request, response }) => {
      this.last = await response.clone().text();
      if (!response.headers.get("X-Request-Id")) {
        throw new FlowError(`${request.method} ${request.url} -> ${response.status} has no X-Request-Id header`);
      }
      return undefined;
    },
  };
}

/** run runs a flow, printing what it did, and sets the exit code: 0 on success, 1 otherwise. */
export function run(name: string, flow: (log: (line: string) => void) => Promise<void>): void {
  const log = (line: string) => console.log(`${name}: ${line}`);
  flow(log).then(
    () => log("OK"),
    (err: unknown) => {
      const msg = err instanceof FlowError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
      console.error(`${name}: FAIL: ${msg}`);
      process.exitCode = 1;
    },
  );
}

/** A response of openapi-fetch: the parsed body of a 2xx answer in data, of any other in error. */
type Answer<D, E> = { data?: D; error?: E; response: Response };

function describe(res: Answer<unknown, unknown>): string {
  return `HTTP ${res.response.status}; body: ${JSON.stringify(res.error ?? res.data ?? null)}`;
}

/** ok requires the status want (a 2xx) and returns the typed body. */
export function ok<D, E>(res: Answer<D, E>, want: number, what: string): D {
  if (res.response.status !== want || res.data === undefined) {
    throw new FlowError(`${what}: want HTTP ${want}, got ${describe(res)}`);
  }
  return res.data;
}

/** failed requires the error status want and returns the typed error body. */
export function failed<D, E>(res: Answer<D, E>, want: number, what: string): E {
  if (res.response.status !== want || res.error === undefined) {
    throw new FlowError(`${what}: want HTTP ${want}, got ${describe(res)}`);
  }
  return res.error;
}

/** at returns the i-th element of list, failing the flow when there is none. */
export function at<T>(list: readonly T[], i: number, what: string): T {
  const v = list[i];
  if (v === undefined) {
    throw new FlowError(`${what}: no element ${i} in ${JSON.stringify(list)}`);
  }
  return v;
}
