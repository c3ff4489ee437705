/**
 * Webhook verification (Standard Webhooks, docs/contract.md §8): a delivery carries `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` (two while a rotated secret still
 * signs). The key is the secret's bytes: base64 after its `whsec_` prefix. Web Crypto only, so
 * it runs in Node, browsers' service workers and edge functions alike.
 */
import { constantTimeEqual, fromBase64, hmacKey, hmacSha256, toBase64 } from './crypto-helpers.js';
import { parseApiJson } from './api-json.js';
import type { Order, OrderStatus } from './types.js';

/**
 * An order event: `data.order` is the Order exactly as GET answers it at that version (amounts
 * as decimal strings); `previous_status` is null for `order.created`.
 */
export interface OrderWebhookEvent {
  type: 'order.created' | 'order.status_changed';
  /** ISO 8601. */
  timestamp: string;
  data: { order: Order; previous_status: OrderStatus | null };
}

/** The test event an endpoint is sent on request (`POST /partner/webhooks/{id}/test`): no data. */
export interface PingWebhookEvent {
  type: 'ping';
  /** ISO 8601. */
  timestamp: string;
  /** `{}`: reading `data.order` needs the type checked first (WebhookEvent). */
  data: Record<never, never>;
}

/**
 * A delivered event, discriminated by `type`: after `event.type !== 'ping'` (or a check for an
 * order type) `event.data.order` is there, typed, with no `?.`.
 */
export type WebhookEvent = OrderWebhookEvent | PingWebhookEvent;

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds (default 300, as the spec's libraries). */
  toleranceSeconds?: number;
  /** The time now in ms (default Date.now()); for tests. */
  now?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * Checks a delivery against one secret or several (`whsec_…`) and returns its event. `body` is
 * the raw request body as received: parsing and re-serialising it would change the signed bytes.
 * Throws WebhookVerificationError when a header is missing, the timestamp is outside the
 * tolerance, or no signature matches.
 */
export async function verifyWebhook(
  secrets: string | readonly string[],
  headers: HeaderSource,
  body: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
  const now = options.now ?? Date.now();
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now / 1000 - Number(timestamp)) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  const offered = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  const content = `${id}.${timestamp}.${body}`;
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = toBase64(await hmacSha256(await hmacKey(fromBase64(secret.replace(/^whsec_/, ''))), content));
    if (offered.some((signature) => constantTimeEqual(signature, expected))) return parseApiJson(body) as WebhookEvent;
  }
  throw new WebhookVerificationError('no signature matches');
}
