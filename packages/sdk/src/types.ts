/**
 * The SDK's public types, derived from the generated OpenAPI types (generated/openapi.ts): a
 * route's request and response shapes come from the served document, with every decimal
 * property (generated/decimal-fields.ts) turned from `number` into an exact decimal `string`.
 */
import type { DecimalField } from './generated/decimal-fields.js';
import type { components, operations } from './generated/openapi.js';

/** A decimal amount as text, such as `"0.1"` or `"1.000000000000000001"`: never a float. */
export type DecimalString = string;

/** `T` with each decimal property's `number` as a `DecimalString`, at any depth. */
export type Exact<T> = T extends readonly (infer Item)[] ? Exact<Item>[] : T extends object ? { [K in keyof T]: ExactProperty<T[K], K> } : T;
type ExactProperty<V, K> = V extends number
  ? K extends DecimalField
    ? DecimalString
    : V
  : V extends readonly (infer Item)[]
    ? ExactProperty<Item, K>[]
    : Exact<V>;

/**
 * `T` whose optional properties also take `undefined`: under `exactOptionalPropertyTypes` a
 * request built from values that may be missing (`quote_id: quote.quote_id`, `amount:
 * form.amount`) type-checks, and the property is simply not sent.
 */
export type Optional<T> = { [K in RequiredKeys<T>]: T[K] } & { [K in OptionalKeys<T>]?: T[K] | undefined };
type OptionalKeys<T> = { [K in keyof T]-?: T extends Record<K, T[K]> ? never : K }[keyof T];
type RequiredKeys<T> = Exclude<keyof T, OptionalKeys<T>>;

type Json<Part> = Part extends { content: { 'application/json': infer Body } } ? Body : never;
type Response<Op extends keyof operations, Status extends keyof operations[Op]['responses']> = Exact<Json<operations[Op]['responses'][Status]>>;
type RequestBody<Op extends keyof operations> = Optional<Exact<Json<NonNullable<operations[Op]['requestBody']>>>>;
type Query<Op extends keyof operations> = Optional<Exact<NonNullable<operations[Op]['parameters']['query']>>>;

export type Currency = Exact<components['schemas']['Currency']>;
export type Order = Exact<components['schemas']['Order']>;
export type OrderStatus = Order['status'];
export type ErrorBody = Exact<components['schemas']['Error']>;
export type ErrorCode = ErrorBody['code'];
/** v1.2: one problem of a request, as `errors` lists them (docs/contract.md §10.4). */
export type ErrorItem = ErrorBody['errors'][number];
/** The closed list of problem codes (the top-level codes, and currency_unsupported, amount_invalid, …). */
export type ErrorItemCode = ErrorItem['code'];

export type RatesQuery = Query<'getRates'>;
export type RateQuote = Response<'getRates', 200>;
export type CreateOrderRequest = RequestBody<'createOrder'>;
export type ListOrdersQuery = Query<'listOrders'>;
export type OrderPage = Response<'listOrders', 200>;
export type ValidateAddressQuery = Query<'validateAddress'>;
export type AddressValidation = Response<'validateAddress', 200>;
export type SandboxDepositRequest = RequestBody<'simulateSandboxDeposit'>;
export type Account = Response<'getAccount', 200>;
/** v1.2 (docs/contract.md §10.11): POST /partner/orders/status's answer. */
export type OrderStatusList = Response<'getOrderStatuses', 200>;
export type SetRefundAddressRequest = RequestBody<'setRefundAddress'>;
/** The period of GET /partner/stats: ISO 8601 `from` (inclusive) and `to` (exclusive); default the last 30 days. */
export type PartnerStatsQuery = Query<'getPartnerStats'>;
/** Counts by status, volume in USD and commission (by coin and in USD) of the partner's live orders. */
export type PartnerStats = Response<'getPartnerStats', 200>;
/** What the partner may do with an order now (v1.1 order actions). */
export type OrderAction = Order['actions'][number];

export type WebhookEndpoint = Exact<components['schemas']['WebhookEndpoint']>;
/** A new or rotated endpoint: its `secret` (whsec_…) is shown this once. */
export type WebhookEndpointWithSecret = Exact<components['schemas']['WebhookEndpointWithSecret']>;
export type WebhookDelivery = Exact<components['schemas']['WebhookDelivery']>;
export type CreateWebhookRequest = RequestBody<'createWebhook'>;
export type UpdateWebhookRequest = RequestBody<'updateWebhook'>;
export type WebhookList = Response<'listWebhooks', 200>;
export type WebhookDeliveriesQuery = Query<'listWebhookDeliveries'>;
export type WebhookDeliveryLog = Response<'listWebhookDeliveries', 200>;
