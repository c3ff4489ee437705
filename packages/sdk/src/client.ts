/**
 * The partner API client: one method per partner operation of the OpenAPI document, typed from
 * it (types.ts), over `fetch`. What every call gets:
 * - the key as `Authorization: Bearer` (or `X-API-Key`), and optional signing (signing.ts);
 * - exact amounts: decimal strings in, decimal strings out (api-json.ts);
 * - retries with back-off (retry.ts): network errors and 5xx for idempotent calls, 429 for any,
 *   honouring Retry-After; an order create is made idempotent by an Idempotency-Key generated
 *   for the call and sent unchanged on each of its tries;
 * - typed errors (errors.ts).
 */
import { decimalLiteral, isDecimal, parseApiJson, stringifyApiJson } from './api-json.js';
import { errorFromResponse, NetworkError, PartnerApiError, RateLimitError, WaitForStatusError } from './errors.js';
import { backoffMs, DEFAULT_RETRY, isRetryableStatus, retryAfterMs, sleep, type RetryOptions } from './retry.js';
import { RequestSigner, type SigningMode } from './signing.js';
import { readEvents } from './event-stream.js';
import type {
  Account,
  AddressValidation,
  CreateOrderRequest,
  CreateWebhookRequest,
  Currency,
  ListOrdersQuery,
  Order,
  OrderPage,
  OrderStatusList,
  OrderStatus,
  PartnerStats,
  PartnerStatsQuery,
  RateQuote,
  RatesQuery,
  SandboxDepositRequest,
  SetRefundAddressRequest,
  UpdateWebhookRequest,
  ValidateAddressQuery,
  WebhookDeliveriesQuery,
  WebhookDelivery,
  WebhookDeliveryLog,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookList,
} from './types.js';

export interface PartnerClientOptions {
  /** The API's base address, version segment included: `https://exchange.example/api/v1`. */
  baseUrl: string;
  /** The partner API key `<key_id>.<secret>` (`pk_test_…` for the sandbox). Needed by order calls. */
  apiKey?: string | undefined;
  /** Where the key goes: `authorization` (Bearer, the default) or `x-api-key`. */
  keyHeader?: 'authorization' | 'x-api-key' | undefined;
  /** Request signing with the key's secret: none (default), v1's body HMAC, or replay-proof. */
  signing?: SigningMode | undefined;
  /** Retry policy (retry.ts); `{ retries: 0 }` turns retries off. */
  retry?: Partial<RetryOptions> | undefined;
  /** Time limit of one try, in ms (default 30 000); past it the try counts as a network error. */
  timeoutMs?: number | undefined;
  /** The fetch to use (default globalThis.fetch): a proxy agent, a test double. */
  fetch?: typeof fetch | undefined;
  /** Waits between tries and polls (default: real timers); tests pass one that does not sleep. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: (() => number) | undefined;
  /** The time in Unix ms, for X-Timestamp and Retry-After dates (default Date.now). */
  now?: (() => number) | undefined;
  /** A fresh Idempotency-Key per order create (default crypto.randomUUID). */
  idempotencyKey?: (() => string) | undefined;
}

export interface CallOptions {
  /** Aborts the call, its retries and waits included. */
  signal?: AbortSignal | undefined;
}

export interface CreateOrderOptions extends CallOptions {
  /** Your own Idempotency-Key (printable ASCII, up to 255): retrying your call with it is safe too. */
  idempotencyKey?: string | undefined;
  /**
   * v1.2: your end user's IP address (IPv4 or IPv6), sent as the X-End-User-IP header: kept on
   * the order for the exchange's operator (never shown back), and checked against the operator's
   * blocklist (403: a `PartnerApiError` with code `region_restricted`).
   */
  endUserIp?: string | undefined;
}

export interface WaitForStatusOptions extends CallOptions {
  /** Time between reads, in ms (default 5 000). */
  intervalMs?: number | undefined;
  /** Give up after this long, in ms (default 30 minutes: the deposit window). */
  timeoutMs?: number | undefined;
}

export interface WatchOrderOptions extends CallOptions {
  /** Between reads when polling (the stream is unavailable), in ms. Default 5 000. */
  pollIntervalMs?: number | undefined;
  /** Stream failures in a row (no event in between) before watching by polling instead. Default 3. */
  streamAttempts?: number | undefined;
  /**
   * No byte for this long (the server pings every 15 s) and the connection is taken as dead and
   * opened again, in ms. Default 45 000.
   */
  idleTimeoutMs?: number | undefined;
}

/** Statuses an order never leaves. */
export const FINAL_STATUSES: readonly OrderStatus[] = ['completed', 'expired', 'refunded', 'failed'];

type Auth = 'none' | 'optional' | 'required';
type QueryValue = string | number | boolean | null | undefined;

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  auth: Auth;
  /** Safe to send twice: network errors and 5xx are retried. */
  idempotent: boolean;
  headers?: Record<string, string>;
  text?: boolean;
  signal?: AbortSignal | undefined;
}

export class PartnerClient {
  private readonly baseUrl: string;
  private readonly retry: RetryOptions;
  private readonly signer: RequestSigner;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly newIdempotencyKey: () => string;

  constructor(private readonly options: PartnerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.signer = new RequestSigner(options.signing ?? 'none', options.apiKey);
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sleep = options.sleep ?? sleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.newIdempotencyKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  }

  /** GET /currencies: the active currencies with their networks and limits (public). */
  currencies(options: CallOptions = {}): Promise<Currency[]> {
    return this.call({ method: 'GET', path: '/currencies', auth: 'none', idempotent: true, signal: options.signal });
  }

  /**
   * GET /partner/rates: rate and limits for a pair, for `amount` (coin_from) or, v1.1,
   * `amount_to` (coin_to). With a key, the partner's pricing; a keyed fixed quote has a quote_id.
   */
  rates(query: RatesQuery, options: CallOptions = {}): Promise<RateQuote> {
    return this.call({ method: 'GET', path: '/partner/rates', query, auth: 'optional', idempotent: true, signal: options.signal });
  }

  /**
   * POST /partner/orders: a new order in waiting_deposit with its deposit address. Retried
   * safely: every try carries the same Idempotency-Key, so the server makes one order (a retry
   * after a lost answer replays that order; with `external_id` set, another key with the same
   * external_id is a 409 `external_id_conflict` whose body's `order_id` names the order).
   */
  createOrder(request: CreateOrderRequest, options: CreateOrderOptions = {}): Promise<Order> {
    const key = options.idempotencyKey ?? this.newIdempotencyKey();
    return this.call({
      method: 'POST',
      path: '/partner/orders',
      body: request,
      auth: 'required',
      idempotent: true,
      headers: { 'idempotency-key': key, ...(options.endUserIp === undefined ? {} : { 'x-end-user-ip': options.endUserIp }) },
      signal: options.signal,
    });
  }

  /** GET /partner/orders/{id}: an order by its UUID or short id. */
  getOrder(orderId: string, options: CallOptions = {}): Promise<Order> {
    return this.call({ method: 'GET', path: `/partner/orders/${encodeURIComponent(orderId)}`, auth: 'required', idempotent: true, signal: options.signal });
  }

  /** GET /partner/orders (v1.1): one page of the caller's orders, newest first. */
  listOrders(query: ListOrdersQuery = {}, options: CallOptions = {}): Promise<OrderPage> {
    return this.call({ method: 'GET', path: '/partner/orders', query, auth: 'required', idempotent: true, signal: options.signal });
  }

  /** Every order the filters select, newest first, page after page (`limit` is the page size). */
  async *orders(query: Omit<ListOrdersQuery, 'cursor'> = {}, options: CallOptions = {}): AsyncGenerator<Order, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listOrders({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options);
      yield* page.orders;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  /**
   * POST /partner/orders/status (v1.2): status, version and updated_at of up to 100 orders in one
   * read, in the order asked; ids that are no order of the key are left out. A read: retried.
   */
  orderStatuses(ids: readonly string[], options: CallOptions = {}): Promise<OrderStatusList> {
    return this.call({ method: 'POST', path: '/partner/orders/status', body: { ids }, auth: 'required', idempotent: true, signal: options.signal });
  }

  /** GET /partner/addresses/validate (v1.1): whether an order would accept this recipient. */
  validateAddress(query: ValidateAddressQuery, options: CallOptions = {}): Promise<AddressValidation> {
    return this.call({ method: 'GET', path: '/partner/addresses/validate', query, auth: 'optional', idempotent: true, signal: options.signal });
  }

  /** GET /partner/orders/{id}/qr.svg (v1.1): the deposit's payment URI as an SVG QR code. */
  orderQrSvg(orderId: string, options: CallOptions = {}): Promise<string> {
    return this.call({
      method: 'GET',
      path: `/partner/orders/${encodeURIComponent(orderId)}/qr.svg`,
      auth: 'required',
      idempotent: true,
      text: true,
      signal: options.signal,
    });
  }

  /**
   * POST /partner/sandbox/orders/{id}/deposit (sandbox keys): the simulated deposit of a sandbox
   * order (amount_from_expected unless `amount`). Not retried on a lost answer: a second
   * deposit is a 409.
   */
  sandboxDeposit(orderId: string, request: SandboxDepositRequest = {}, options: CallOptions = {}): Promise<Order> {
    return this.call({
      method: 'POST',
      path: `/partner/sandbox/orders/${encodeURIComponent(orderId)}/deposit`,
      body: request,
      auth: 'required',
      idempotent: false,
      signal: options.signal,
    });
  }

  /**
   * POST /partner/orders/{id}/cancel (v1.1): while the order waits for its deposit and none was
   * seen (`cancel` in its actions); it becomes expired, status_reason cancelled. Not retried on a
   * lost answer: a second cancel is a 409.
   */
  cancelOrder(orderId: string, options: CallOptions = {}): Promise<Order> {
    return this.action(orderId, 'cancel', options);
  }

  /** POST /partner/orders/{id}/continue (v1.1): exchange a held refund's deposit at today's float rate. Not retried. */
  continueOrder(orderId: string, options: CallOptions = {}): Promise<Order> {
    return this.action(orderId, 'continue', options);
  }

  /** POST /partner/orders/{id}/refund (v1.1): refund a held refund now. Not retried. */
  refundOrder(orderId: string, options: CallOptions = {}): Promise<Order> {
    return this.action(orderId, 'refund', options);
  }

  /** PUT /partner/orders/{id}/refund-address (v1.1): until a refund is requested. Setting it twice is harmless: retried. */
  setRefundAddress(orderId: string, request: SetRefundAddressRequest, options: CallOptions = {}): Promise<Order> {
    return this.call({
      method: 'PUT',
      path: `/partner/orders/${encodeURIComponent(orderId)}/refund-address`,
      body: request,
      auth: 'required',
      idempotent: true,
      signal: options.signal,
    });
  }

  private action(orderId: string, action: 'cancel' | 'continue' | 'refund', options: CallOptions): Promise<Order> {
    return this.call({ method: 'POST', path: `/partner/orders/${encodeURIComponent(orderId)}/${action}`, body: {}, auth: 'required', idempotent: false, signal: options.signal });
  }

  /** GET /partner/account (extension): who the key belongs to. */
  account(options: CallOptions = {}): Promise<Account> {
    return this.call({ method: 'GET', path: '/partner/account', auth: 'required', idempotent: true, signal: options.signal });
  }

  /**
   * GET /partner/stats (v1.1, docs/contract.md §7.8): over [from, to) (ISO 8601; default the last 30
   * days), the orders of the key's mode (v1.2, docs/contract.md §10.2: live for a live key, the test
   * orders for a sandbox key) counted by status, their volume in USD and the partner's
   * commission by coin and in USD. Amounts are exact decimal strings; counts numbers.
   */
  stats(query: PartnerStatsQuery = {}, options: CallOptions = {}): Promise<PartnerStats> {
    return this.call({ method: 'GET', path: '/partner/stats', query, auth: 'required', idempotent: true, signal: options.signal });
  }

  /** POST /partner/webhooks (docs/contract.md §8): a new endpoint; its secret is in this answer only. Not retried. */
  createWebhook(request: CreateWebhookRequest, options: CallOptions = {}): Promise<WebhookEndpointWithSecret> {
    return this.call({ method: 'POST', path: '/partner/webhooks', body: request, auth: 'required', idempotent: false, signal: options.signal });
  }

  /** GET /partner/webhooks: the partner's endpoints. */
  listWebhooks(options: CallOptions = {}): Promise<WebhookList> {
    return this.call({ method: 'GET', path: '/partner/webhooks', auth: 'required', idempotent: true, signal: options.signal });
  }

  /** PATCH /partner/webhooks/{id}: url, events, enabled. Setting values twice is harmless: retried. */
  updateWebhook(webhookId: string, request: UpdateWebhookRequest, options: CallOptions = {}): Promise<WebhookEndpoint> {
    return this.call({ method: 'PATCH', path: `/partner/webhooks/${encodeURIComponent(webhookId)}`, body: request, auth: 'required', idempotent: true, signal: options.signal });
  }

  /** DELETE /partner/webhooks/{id}. */
  deleteWebhook(webhookId: string, options: CallOptions = {}): Promise<void> {
    return this.call({ method: 'DELETE', path: `/partner/webhooks/${encodeURIComponent(webhookId)}`, auth: 'required', idempotent: true, signal: options.signal });
  }

  /** POST /partner/webhooks/{id}/rotate-secret: a new secret; the old one keeps signing beside it for 24 h. Not retried. */
  rotateWebhookSecret(webhookId: string, options: CallOptions = {}): Promise<WebhookEndpointWithSecret> {
    return this.call({ method: 'POST', path: `/partner/webhooks/${encodeURIComponent(webhookId)}/rotate-secret`, body: {}, auth: 'required', idempotent: false, signal: options.signal });
  }

  /** POST /partner/webhooks/{id}/test: queues a `ping` event to the endpoint. Not retried. */
  testWebhook(webhookId: string, options: CallOptions = {}): Promise<WebhookDelivery> {
    return this.call({ method: 'POST', path: `/partner/webhooks/${encodeURIComponent(webhookId)}/test`, body: {}, auth: 'required', idempotent: false, signal: options.signal });
  }

  /** GET /partner/webhooks/{id}/deliveries: the endpoint's delivery log, newest first. */
  listWebhookDeliveries(webhookId: string, query: WebhookDeliveriesQuery = {}, options: CallOptions = {}): Promise<WebhookDeliveryLog> {
    return this.call({ method: 'GET', path: `/partner/webhooks/${encodeURIComponent(webhookId)}/deliveries`, query, auth: 'required', idempotent: true, signal: options.signal });
  }

  /** POST /partner/webhooks/deliveries/{id}/retry: sends a delivery again now. Not retried. */
  retryWebhookDelivery(deliveryId: string, options: CallOptions = {}): Promise<WebhookDelivery> {
    return this.call({ method: 'POST', path: `/partner/webhooks/deliveries/${encodeURIComponent(deliveryId)}/retry`, body: {}, auth: 'required', idempotent: false, signal: options.signal });
  }

  /**
   * Reads the order every `intervalMs` until its status is one of `statuses` (or `until` holds),
   * and returns it. Throws WaitForStatusError when the order reaches a final status that is not
   * awaited, or when `timeoutMs` passes.
   */
  async waitForStatus(
    orderId: string,
    until: OrderStatus | readonly OrderStatus[] | ((order: Order) => boolean),
    options: WaitForStatusOptions = {},
  ): Promise<Order> {
    const matches =
      typeof until === 'function' ? until : (order: Order) => (typeof until === 'string' ? [until] : until).includes(order.status);
    const deadline = this.now() + (options.timeoutMs ?? 30 * 60_000);
    for (;;) {
      const order = await this.getOrder(orderId, options);
      if (matches(order)) return order;
      if (FINAL_STATUSES.includes(order.status)) throw new WaitForStatusError(`order ${order.short_id} ended ${order.status}`, order);
      if (this.now() >= deadline) throw new WaitForStatusError(`order ${order.short_id} still ${order.status} after the wait`, order);
      await this.sleep(options.intervalMs ?? 5000, options.signal);
    }
  }

  /**
   * v1.2 (docs/contract.md §10.11): the order as it moves, once per version and in order, until it is
   * final: its current state first, then each new version as the server tells it, over GET
   * /partner/orders/stream (Server-Sent Events). A lost connection is opened again with
   * Last-Event-ID, so nothing is missed or repeated; when the stream cannot be had
   * (`streamAttempts` failures in a row, a server without it, or its cap on open streams), the
   * order is read every `pollIntervalMs` instead (then a version may be passed over, never repeated).
   *
   * ```ts
   * for await (const order of client.watchOrder(id)) console.log(order.status);
   * ```
   */
  async *watchOrder(orderId: string, options: WatchOrderOptions = {}): AsyncGenerator<Order, void, undefined> {
    let version: number | undefined;
    let failures = 0;
    const attempts = options.streamAttempts ?? 3;
    while (failures < attempts) {
      let told = false;
      try {
        const stream = this.orderStream(orderId, version, options);
        for await (const order of stream) {
          told = true;
          failures = 0;
          if (version !== undefined && order.version <= version) continue;
          version = order.version;
          yield order;
          if (FINAL_STATUSES.includes(order.status)) return;
        }
        // 204 (every version seen, the order final), or a server stopping: open it again.
        if (version !== undefined && !told) return;
        if (!told) failures += 1;
      } catch (error) {
        if (options.signal?.aborted === true) throw error;
        // The key's own problem: polling would meet it too.
        if (error instanceof PartnerApiError && (error.status === 401 || error.status === 403)) throw error;
        // No stream to be had here (an older server, a cap reached): poll.
        if (error instanceof PartnerApiError && (error.status === 404 || error.status === 429 || error.status === 400)) break;
        failures += 1;
        if (failures < attempts) await this.sleep(backoffMs(failures - 1, this.retry, this.random), options.signal);
      }
    }
    for (;;) {
      const order = await this.getOrder(orderId, options);
      if (version === undefined || order.version > version) {
        version = order.version;
        yield order;
      }
      if (FINAL_STATUSES.includes(order.status)) return;
      await this.sleep(options.pollIntervalMs ?? 5000, options.signal);
    }
  }

  /** One connection of watchOrder: the orders it tells, after `version` when set; nothing for 204. */
  private async *orderStream(orderId: string, version: number | undefined, options: WatchOrderOptions): AsyncGenerator<Order, void, undefined> {
    const key = this.options.apiKey;
    if (key === undefined) throw new TypeError('watchOrder needs an apiKey');
    const url = this.url('/partner/orders/stream', { ids: orderId });
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.options.keyHeader === 'x-api-key') headers['x-api-key'] = key;
    else headers.authorization = `Bearer ${key}`;
    if (version !== undefined) headers['last-event-id'] = `${orderId}:${version}`;
    Object.assign(headers, await this.signer.headers('GET', url, '', this.now()));
    let response: Response;
    try {
      response = await this.send(url, { method: 'GET', headers }, options.signal);
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      throw new NetworkError(`GET ${url.pathname}: ${(error as Error).message}`, { cause: error });
    }
    if (response.status === 204) return;
    if (!response.ok) throw await this.error(response);
    if (response.body === null) throw new NetworkError(`GET ${url.pathname}: no body`);
    for await (const event of readEvents(response.body, options.idleTimeoutMs ?? 45_000)) {
      if (event.event === 'order') yield parseApiJson(event.data) as Order;
    }
  }

  private url(path: string, query: Record<string, QueryValue> | undefined): URL {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (isDecimal(name) && typeof value !== 'string') {
        // As in bodies: a JS number may already have lost digits (and 1e-7 is how one prints).
        throw new TypeError(`${name} must be a decimal string (such as "0.1"), not a JS ${typeof value}: amounts are exact`);
      }
      url.searchParams.set(name, isDecimal(name) ? decimalLiteral(value as string, name) : String(value));
    }
    return url;
  }

  private async call<T>(call: Call): Promise<T> {
    const url = this.url(call.path, call.query);
    const body = call.body === undefined ? '' : stringifyApiJson(call.body);
    const key = this.options.apiKey;
    if (call.auth === 'required' && key === undefined) throw new TypeError(`${call.method} ${call.path} needs an apiKey`);
    for (let attempt = 0; ; attempt += 1) {
      const headers: Record<string, string> = { accept: call.text === true ? 'image/svg+xml' : 'application/json', ...call.headers };
      if (body !== '') headers['content-type'] = 'application/json';
      if (key !== undefined && call.auth !== 'none') {
        if (this.options.keyHeader === 'x-api-key') headers['x-api-key'] = key;
        else headers.authorization = `Bearer ${key}`;
        Object.assign(headers, await this.signer.headers(call.method, url, body, this.now()));
      }
      const retriesLeft = attempt < this.retry.retries;
      let response: Response;
      try {
        response = await this.send(url, { method: call.method, headers, ...(body === '' ? {} : { body }) }, call.signal);
      } catch (error) {
        if (call.signal?.aborted === true) throw error;
        if (!call.idempotent || !retriesLeft) throw new NetworkError(`${call.method} ${url.pathname}: ${(error as Error).message}`, { cause: error });
        await this.sleep(backoffMs(attempt, this.retry, this.random), call.signal);
        continue;
      }
      if (response.ok) {
        const text = await response.text();
        // 204 (a delete) has no body.
        return (call.text === true ? text : text === '' ? undefined : parseApiJson(text)) as T;
      }
      const error = await this.error(response);
      const wait = this.retryWait(error, attempt, call.idempotent && retriesLeft, retriesLeft);
      if (wait === undefined) throw error;
      await this.sleep(wait, call.signal);
    }
  }

  /** How long to wait before the next try, or undefined to give up with `error`. */
  private retryWait(error: PartnerApiError, attempt: number, mayRetryServerError: boolean, retriesLeft: boolean): number | undefined {
    if (!retriesLeft || !isRetryableStatus(error.status)) return undefined;
    if (error instanceof RateLimitError) {
      if (error.retryAfterMs === undefined) return backoffMs(attempt, this.retry, this.random);
      return error.retryAfterMs <= this.retry.maxDelayMs ? error.retryAfterMs : undefined;
    }
    return mayRetryServerError ? backoffMs(attempt, this.retry, this.random) : undefined;
  }

  private async error(response: Response): Promise<PartnerApiError> {
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      const parsed = parseApiJson(text);
      body = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { detail: text };
    } catch {
      // A proxy's HTML page, say: kept as the detail.
      body = { detail: text.slice(0, 500) || `HTTP ${response.status}` };
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    return errorFromResponse(response.status, body, requestId, retryAfterMs(response.headers.get('retry-after'), this.now()));
  }

  /** One try, bounded by timeoutMs and the caller's signal. */
  private async send(url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<Response> {
    const controller = new AbortController();
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted === true) throw signal.reason;
      return await this.fetch(url, { ...init, signal: controller.signal });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
