import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Mode } from '../../domain/modes.js';
import type { WebhookEventType } from '../../domain/webhook-events.js';
import type { Timestamp } from './currencies.js';

/** A partner's webhook endpoint (docs/contract.md §8). */
export interface WebhookEndpointTable {
  id: string;
  partner_id: string;
  url: string;
  description: string | null;
  /** Event types subscribed to; null: every type. Written as JSON text. */
  events: ColumnType<WebhookEventType[] | null, string | null, string | null>;
  enabled: boolean;
  /** docs/contract.md §10.2: the mode of the key that made it (the cabinet chooses); it receives that mode's order events only. */
  mode: Mode;
  /** Who disabled it: the partner, the operator, or 5 days of failed deliveries. Null while enabled. */
  disabled_reason: WebhookDisabledReason | null;
  /** The signing secret (`whsec_…`) sealed by SecretBox, bound to the endpoint id. */
  secret: Buffer;
  /** The secret before the last rotation: it keeps signing beside the new one until its expiry. */
  previous_secret: Buffer | null;
  previous_secret_expires_at: Timestamp | null;
  /** The first failed attempt since the last delivered one. */
  failing_since: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type WebhookDisabledReason = 'partner' | 'operator' | 'failing';
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;

/** One event of the outbox: its body is fixed when the event is written. */
export interface WebhookEventTable {
  /** The `webhook-id` header: `msg_` and 32 hex digits, the same on every attempt. */
  id: string;
  partner_id: string;
  type: WebhookEventType;
  order_id: string | null;
  payload: string;
  /** The W3C traceparent of the span that wrote it, when tracing is on: each delivery continues that trace. */
  trace_parent: Generated<string | null>;
  created_at: Timestamp;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event to one endpoint: its attempts so far and the next one. */
export interface WebhookDeliveryTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: Timestamp | null;
  /** A worker's lease on it while an attempt is in flight. */
  locked_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One attempt of a delivery, as the delivery log shows it (migration 0025). */
export interface WebhookDeliveryAttemptTable {
  /** In the order attempts were recorded. */
  id: Generated<number>;
  delivery_id: string;
  /** The delivery's endpoint, copied so the log is one index range. */
  endpoint_id: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** When the request was sent (its webhook-timestamp). */
  attempted_at: Timestamp;
  /** The receiver's HTTP status; null if none came back (refused, timed out, unreachable). */
  status_code: number | null;
  /** Milliseconds. */
  duration_ms: number;
  error: string | null;
  /** The delivery as this attempt left it. */
  outcome: WebhookDeliveryStatus;
  /** When the next attempt was scheduled; set exactly when the outcome is pending. */
  next_attempt_at: Timestamp | null;
  /** The receiver's answer headers (migration 0073); null without an answer. */
  response_headers: ColumnType<Record<string, string> | null, string | null | undefined, never>;
  /** The first 4 KiB of the receiver's answer body (migration 0073); null without an answer. */
  response_body: ColumnType<Buffer | null, Buffer | null | undefined, never>;
}
