// The Parsing API client: one method per operation, the API key on every request, the
// reference's retry rule, async iterators over every list, exact amounts.

import createClient, { type Client } from "openapi-fetch";
import { parsingDecimals } from "./generated/decimals.js";
import type { components, operations, paths } from "./generated/parsing.js";
import { appendFile, defaultRetryPolicy, exactDecimals, type Fetch, poll, result, retrying, type RetryPolicy, type Upload } from "./http.js";

type Schemas = components["schemas"];
export type ParseJob = Schemas["Job"];
export type ParseJobList = Schemas["JobList"];
export type Transaction = Schemas["Transaction"];
export type TransactionPage = Schemas["TransactionPage"];
export type Usage = Schemas["Usage"];
export type ServiceStatus = Schemas["ServiceStatus"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointCreated = Schemas["WebhookEndpointCreated"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type WebhookDeliveryList = Schemas["WebhookDeliveryList"];
export type WebhookTestResult = Schemas["WebhookTestResult"];
export type WebhookEvent = Schemas["WebhookEvent"];
export type ParsingComponents = components;
export type ParsingPaths = paths;
export type ListJobsQuery = NonNullable<operations["listJobs"]["parameters"]["query"]>;

const api = "parsing";

export interface ParsingClientOptions {
  /** The Parsing API's base URL, such as https://parse.example.com. */
  baseUrl: string;
  /** The API key; without one only getHealth, getReadiness, getOpenAPISpec and getDocs answer. */
  apiKey?: string;
  retry?: RetryPolicy;
  /** The fetch to send requests with; globalThis.fetch by default. */
  fetch?: Fetch;
}

/** Options of an upload. */
export interface ParseCreateJobOptions {
  /** Opens a password-protected PDF; used once, never stored. */
  password?: string;
  /** Makes a repeated upload answer with the first one's job; set for you when omitted. */
  idempotencyKey?: string;
}

/** Whether a job's status is final: completed, review or failed. */
export function finished(status: ParseJob["status"]): boolean {
  return status === "completed" || status === "review" || status === "failed";
}

/** The Parsing API client. Every method throws an APIError for an answer that is not a success. */
export class ParsingClient {
  /** The openapi-fetch client underneath (authenticated, retrying, exact amounts), for what the methods leave out. */
  readonly raw: Client<paths>;

  constructor(options: ParsingClientOptions) {
    const base: Fetch = options.fetch ?? ((r) => globalThis.fetch(r));
    const sending = exactDecimals(retrying(base, options.retry ?? defaultRetryPolicy), parsingDecimals);
    this.raw = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      fetch: sending,
      headers: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {},
    });
  }

  /** Uploads a bank statement for parsing; the job is accepted in status queued. */
  async createJob(file: Upload, options: ParseCreateJobOptions = {}): Promise<ParseJob> {
    const form = new FormData();
    appendFile(form, "file", file);
    if (options.password) form.append("password", options.password);
    const answer = await this.raw.POST("/api/v1/jobs", {
      body: form as never,
      params: { header: options.idempotencyKey ? { "Idempotency-Key": options.idempotencyKey } : {} } as never,
    });
    return result(api, answer).data;
  }

  /** One page of the account's jobs, newest first; jobs() iterates over every page. */
  async listJobs(query: ListJobsQuery = {}): Promise<ParseJobList> {
    return result(api, await this.raw.GET("/api/v1/jobs", { params: { query } })).data;
  }

  /** Every job that query selects, newest first, page after page. */
  async *jobs(query: ListJobsQuery = {}): AsyncGenerator<ParseJob> {
    let cursor = query.cursor;
    do {
      const page = await this.listJobs({ ...query, ...(cursor ? { cursor } : {}) });
      yield* page.jobs;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** A job's state and what was learned about its statement. */
  async getJob(id: string): Promise<ParseJob> {
    return result(api, await this.raw.GET("/api/v1/jobs/{id}", { params: { path: { id } } })).data;
  }

  /** Deletes a finished job, its file and its results; reading it afterwards answers 410 GONE. */
  async deleteJob(id: string): Promise<void> {
    result(api, await this.raw.DELETE("/api/v1/jobs/{id}", { params: { path: { id } } }));
  }

  /** One page of a finished job's transactions; transactions() iterates over every page. */
  async getJobResults(id: string, query: { limit?: number; cursor?: string } = {}): Promise<TransactionPage> {
    return result(api, await this.raw.GET("/api/v1/jobs/{id}/results", { params: { path: { id }, query } })).data;
  }

  /** Every transaction of a finished job, in statement order, pageSize (1-1000) at a time. */
  async *transactions(id: string, pageSize = 1000): AsyncGenerator<Transaction> {
    let cursor: string | undefined;
    do {
      const page = await this.getJobResults(id, { limit: pageSize, ...(cursor ? { cursor } : {}) });
      yield* page.transactions;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** A job's transactions as CSV or JSON, streamed whatever their number. */
  async exportJob(id: string, format: "csv" | "json"): Promise<ReadableStream<Uint8Array>> {
    const answer = await this.raw.GET("/api/v1/jobs/{id}/export", { params: { path: { id }, query: { format } }, parseAs: "stream" });
    return result(api, answer) as ReadableStream<Uint8Array>;
  }

  /** The account's usage of the current period against its plan. */
  async getUsage(): Promise<Usage> {
    return result(api, await this.raw.GET("/api/v1/usage")).data;
  }

  /** The service's health and the plan of the key's account. */
  async getStatus(): Promise<ServiceStatus> {
    return result(api, await this.raw.GET("/api/v1/status")).data;
  }

  /** Registers a webhook endpoint; the answer alone shows the account's signing secret. */
  async createWebhook(endpoint: Schemas["CreateWebhookRequest"]): Promise<WebhookEndpointCreated> {
    return result(api, await this.raw.POST("/api/v1/webhooks", { body: endpoint })).data;
  }

  /** Every webhook endpoint of the account, oldest first. */
  async listWebhooks(): Promise<WebhookEndpoint[]> {
    return result(api, await this.raw.GET("/api/v1/webhooks")).data.webhooks;
  }

  /** Removes a webhook endpoint. */
  async deleteWebhook(id: string): Promise<Schemas["DeletedWebhook"]> {
    return result(api, await this.raw.DELETE("/api/v1/webhooks/{id}", { params: { path: { id } } })).data;
  }

  /** One page of the deliveries to an endpoint, newest first; webhookDeliveries() iterates over every page. */
  async listWebhookDeliveries(id: string, query: { limit?: number; cursor?: string } = {}): Promise<WebhookDeliveryList> {
    return result(api, await this.raw.GET("/api/v1/webhooks/{id}/deliveries", { params: { path: { id }, query } })).data;
  }

  /** Every delivery to an endpoint, newest first. */
  async *webhookDeliveries(id: string): AsyncGenerator<WebhookDelivery> {
    let cursor: string | undefined;
    do {
      const page = await this.listWebhookDeliveries(id, { limit: 100, ...(cursor ? { cursor } : {}) });
      yield* page.deliveries;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** Sends a sample event to the account's endpoints (or the one named) and returns each delivery's outcome. */
  async testWebhook(test: Schemas["WebhookTestRequest"] = {}): Promise<WebhookTestResult> {
    return result(api, await this.raw.POST("/api/v1/webhooks/test", { body: test })).data;
  }

  /** The liveness of the process answering. */
  async getHealth(): Promise<Schemas["Health"]> {
    return result(api, await this.raw.GET("/healthz")).data;
  }

  /** Whether the process can serve requests; a 503 throws. */
  async getReadiness(): Promise<Schemas["Readiness"]> {
    return result(api, await this.raw.GET("/readyz")).data;
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
   * Polls a job until it is finished (completed, review or failed) and returns it: first after
   * intervalMs (1 s by default), the wait doubling up to 10 s; onProgress sees every state read.
   */
  async waitForJob(id: string, options: { intervalMs?: number; onProgress?: (job: ParseJob) => void; signal?: AbortSignal } = {}): Promise<ParseJob> {
    return poll(async () => {
      const job = await this.getJob(id);
      options.onProgress?.(job);
      return job;
    }, (job) => finished(job.status), options.intervalMs ?? 1000, options.signal);
  }
}
