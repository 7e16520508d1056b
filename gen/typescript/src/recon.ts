// The Reconciliation API client: one method per operation, access tokens fetched and renewed
// by the client, the reference's retry rule, exact amounts.

import createClient, { type Client } from "openapi-fetch";
import { reconciliationDecimals } from "./generated/decimals.js";
import type { components, paths } from "./generated/reconciliation.js";
import {
  APIError, appendFile, defaultRetryPolicy, exactDecimals, type Fetch, poll, replayable, result, retrying,
  type RetryPolicy, type Upload,
} from "./http.js";

type Schemas = components["schemas"];
export type ReconJob = Schemas["Job"];
export type ReconJobAccepted = Schemas["JobAccepted"];
export type ReconJobResults = Schemas["JobResults"];
export type ReconQuota = Schemas["Quota"];
export type AccessToken = Schemas["AccessToken"];
export type ReconciliationComponents = components;
export type ReconciliationPaths = paths;

const api = "reconciliation";

/** A source of access tokens; the client's own fetches them with its credentials. */
export interface TokenSource {
  /** A valid access token. */
  token(signal?: AbortSignal): Promise<string>;
  /** Called with a token the API refused (401), before token() is asked again. */
  refused?(token: string): void;
}

export interface ReconciliationClientOptions {
  /** The production or the sandbox base URL, such as https://recon.example.com. */
  baseUrl: string;
  clientId?: string;
  clientSecret?: string;
  /** Where the access tokens come from instead of clientId and clientSecret. */
  tokens?: TokenSource;
  retry?: RetryPolicy;
  /** The fetch to send requests with; globalThis.fetch by default. */
  fetch?: Fetch;
}

/** Options of an upload. */
export interface ReconCreateJobOptions {
  /** Opens a password-protected bank statement PDF; used once, never stored. */
  password?: string;
  /** "production" or "sandbox"; the base URL's environment when omitted. */
  env?: Schemas["Environment"];
  /** Makes a repeated upload answer with the first one's job; set for you when omitted. */
  idempotencyKey?: string;
}

/**
 * The token source of a client's own credentials: it asks POST /api/v1/token for a token when
 * it needs one and keeps it until 30 seconds (or a quarter of its lifetime) before it expires.
 */
export class ClientCredentials implements TokenSource {
  private current: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly raw: Client<paths>,
    private readonly clientId: string,
    private readonly clientSecret: string,
    /** The clock, in milliseconds; Date.now by default. */
    public now: () => number = Date.now,
  ) {}

  async token(signal?: AbortSignal): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return this.current.token;
    this.pending ??= this.fetchToken(signal).finally(() => (this.pending = undefined));
    return this.pending;
  }

  refused(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  /** Asks the token endpoint for a new token, whatever the source holds. */
  async create(signal?: AbortSignal): Promise<AccessToken> {
    return result(api, await this.raw.POST("/api/v1/token", {
      body: { client_id: this.clientId, client_secret: this.clientSecret },
      ...(signal ? { signal } : {}),
    }));
  }

  private async fetchToken(signal?: AbortSignal): Promise<string> {
    const t = await this.create(signal);
    const lifetime = t.expires_in * 1000;
    this.current = { token: t.access_token, renewAt: this.now() + lifetime - Math.min(30_000, lifetime / 4) };
    return t.access_token;
  }
}

/** Sends each request with a current access token, and once more with a new one after a 401. */
function authenticating(next: Fetch, tokens: TokenSource): Fetch {
  return async (request) => {
    const again = await replayable(request);
    let token = await tokens.token(request.signal);
    for (let attempt = 1; ; attempt++) {
      const req = again();
      req.headers.set("Authorization", `Bearer ${token}`);
      const response = await next(req);
      if (response.status !== 401 || attempt > 1) return response;
      tokens.refused?.(token);
      const fresh = await tokens.token(request.signal);
      if (fresh === token) return response;
      await response.body?.cancel();
      token = fresh;
    }
  };
}

/** The Reconciliation API client. Every method throws an APIError for an answer that is not a success. */
export class ReconciliationClient {
  /** The openapi-fetch client underneath (authenticated, retrying, exact amounts), for what the methods leave out. */
  readonly raw: Client<paths>;
  /** Where the client takes its access tokens from; undefined for a client without credentials. */
  readonly tokens: TokenSource | undefined;

  /**
   * A client with clientId and clientSecret (or tokens) authenticates every request; one with
   * neither sends none, enough for getHealth, getReadiness, getOpenAPISpec and getDocs.
   */
  constructor(options: ReconciliationClientOptions) {
    const base: Fetch = options.fetch ?? ((r) => globalThis.fetch(r));
    const sending = exactDecimals(retrying(base, options.retry ?? defaultRetryPolicy), reconciliationDecimals);
    const baseUrl = options.baseUrl.replace(/\/+$/, "");
    if (options.tokens) {
      this.tokens = options.tokens;
    } else if (options.clientId || options.clientSecret) {
      if (!options.clientId || !options.clientSecret) throw new Error("ReconciliationClient needs both clientId and clientSecret");
      this.tokens = new ClientCredentials(createClient<paths>({ baseUrl, fetch: sending }), options.clientId, options.clientSecret);
    }
    this.raw = createClient<paths>({ baseUrl, fetch: this.tokens ? authenticating(sending, this.tokens) : sending });
  }

  /** Asks the token endpoint for a new access token with the client's credentials. */
  async createToken(signal?: AbortSignal): Promise<AccessToken> {
    if (!(this.tokens instanceof ClientCredentials)) throw new Error("the client takes its tokens from a source of its caller's");
    return this.tokens.create(signal);
  }

  /** Uploads a bank statement and the expected payments; the job is accepted in status processing. */
  async createJob(bank: Upload, expected: Upload, options: ReconCreateJobOptions = {}): Promise<ReconJobAccepted> {
    const form = new FormData();
    appendFile(form, "bank", bank);
    appendFile(form, "expected", expected);
    if (options.env) form.append("env", options.env);
    if (options.password) form.append("password", options.password);
    return result(api, await this.raw.POST("/api/v1/jobs", {
      body: form as never,
      params: { header: options.idempotencyKey ? { "Idempotency-Key": options.idempotencyKey } : {} } as never,
    }));
  }

  /** A job's state. */
  async getJob(jobId: string): Promise<ReconJob> {
    return result(api, await this.raw.GET("/api/v1/jobs/{job_id}", { params: { path: { job_id: jobId } } }));
  }

  /** Deletes a finished job, its files and its results; reading it afterwards answers 410 GONE. */
  async deleteJob(jobId: string): Promise<void> {
    result(api, await this.raw.DELETE("/api/v1/jobs/{job_id}", { params: { path: { job_id: jobId } } }));
  }

  /** A completed job's matched, partly paid and open references and unexpected bank entries. */
  async getJobResults(jobId: string): Promise<ReconJobResults> {
    // The default format is JSON; the answer's type also names the spreadsheet formats.
    return result(api, await this.raw.GET("/api/v1/jobs/{job_id}/results", { params: { path: { job_id: jobId } } })) as ReconJobResults;
  }

  /** A completed job's results as a spreadsheet (csv or xlsx) or JSON text, streamed. */
  async exportJobResults(jobId: string, format: Schemas["ResultsFormat"]): Promise<ReadableStream<Uint8Array>> {
    const answer = await this.raw.GET("/api/v1/jobs/{job_id}/results", {
      params: { path: { job_id: jobId }, query: { format } }, parseAs: "stream",
    });
    return result(api, answer) as ReadableStream<Uint8Array>;
  }

  /** The plan and what is left of the month's job quota. */
  async getLimits(): Promise<ReconQuota> {
    return result(api, await this.raw.GET("/api/v1/limits"));
  }

  /** The liveness of the process answering. */
  async getHealth(): Promise<Schemas["Health"]> {
    return result(api, await this.raw.GET("/healthz"));
  }

  /** Whether the process can serve requests; a 503 throws. */
  async getReadiness(): Promise<Schemas["Readiness"]> {
    return result(api, await this.raw.GET("/readyz"));
  }

  /** The API's OpenAPI document, as YAML text. */
  async getOpenAPISpec(): Promise<string> {
    return result(api, await this.raw.GET("/api/v1/openapi.yaml", { parseAs: "text" })) as string;
  }

  /** The API's reference page, as HTML. */
  async getDocs(): Promise<string> {
    return result(api, await this.raw.GET("/docs", { parseAs: "text" })) as string;
  }

  /**
   * Polls a job until it is completed or failed and returns it: first after intervalMs (1 s by
   * default), the wait doubling up to 10 s; onProgress sees every state read.
   */
  async waitForJob(jobId: string, options: { intervalMs?: number; onProgress?: (job: ReconJob) => void; signal?: AbortSignal } = {}): Promise<ReconJob> {
    return poll(async () => {
      const job = await this.getJob(jobId);
      options.onProgress?.(job);
      return job;
    }, (job) => job.status !== "processing", options.intervalMs ?? 1000, options.signal);
  }
}

export { APIError };
