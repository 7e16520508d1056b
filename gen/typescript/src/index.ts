// The TypeScript SDK of the Statement Matching Service. Amounts are exact decimal strings
// ("1250.50"), never JavaScript numbers: use a decimal library for arithmetic on them.

export { APIError, defaultRetryPolicy, uploadFile, type Fetch, type RetryPolicy, type Upload } from "./http.js";
export { parseExact, quoteDecimals } from "./json.js";
export * from "./recon.js";
export * from "./parse.js";
export { verifyWebhook, WebhookVerificationError } from "./webhook.js";
