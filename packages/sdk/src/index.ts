/**
 * @exchange-partner-api/sdk: a client for the Exchange Partner API, typed from its OpenAPI
 * document. Amounts are exact decimal strings both ways.
 */
export { PartnerClient, FINAL_STATUSES } from './client.js';
export type { PartnerClientOptions, CallOptions, CreateOrderOptions, WaitForStatusOptions, WatchOrderOptions } from './client.js';
export {
  PartnerApiError,
  BadRequestError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  AmountOutOfRangeError,
  PairUnavailableError,
  QuoteInvalidError,
  UnprocessableError,
  RateLimitError,
  ServerError,
  NetworkError,
  WaitForStatusError,
} from './errors.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type { OrderWebhookEvent, PingWebhookEvent, WebhookEvent, VerifyWebhookOptions } from './webhooks.js';
export { parseApiJson, stringifyApiJson } from './api-json.js';
export type { RetryOptions } from './retry.js';
export type { SigningMode } from './signing.js';
export type * from './types.js';
export type { paths, components, operations } from './generated/openapi.js';
