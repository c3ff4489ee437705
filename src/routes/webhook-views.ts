import { Type } from '@sinclair/typebox';
import type { DeliveryLogRow } from '../db/repositories/webhook-deliveries-repository.js';
import type { WebhookEndpointRow } from '../db/schema/webhooks.js';
import { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '../domain/webhook-events.js';

/** Schemas and views of webhook endpoints and deliveries (docs/contract.md §8), shared by the partner and operator routes. */

const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description === undefined ? {} : { description }) });
const NullableTimestamp = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const SubscribableEvent = Type.Union(
  SUBSCRIBABLE_EVENT_TYPES.map((type) => Type.Literal(type)),
  { description: 'order.created, order.status_changed (every transition)' },
);

export const EventList = Type.Union([Type.Array(SubscribableEvent, { minItems: 1, maxItems: SUBSCRIBABLE_EVENT_TYPES.length, uniqueItems: true }), Type.Null()], {
  description: 'the event types sent to the endpoint; null: every type (ping is sent on request whatever this says)',
});

export const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'where events are POSTed: https, a public address (http and private addresses only where WEBHOOK_ALLOW_PRIVATE=true)',
});

export const WebhookDescription = Type.Union([Type.String({ maxLength: 200 }), Type.Null()]);

const endpointProperties = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  events: EventList,
  enabled: Type.Boolean(),
  mode: Type.Union([Type.Literal('live'), Type.Literal('sandbox')], {
    readOnly: true,
    description:
      'v1.2 (docs/contract.md §10.2): the mode of the key that created the endpoint (in the cabinet: chosen); it receives only that mode\'s order events, and only keys of that mode reach it. Endpoints made before v1.2 are live',
  }),
  disabled_reason: Type.Union([Type.Literal('partner'), Type.Literal('operator'), Type.Literal('failing'), Type.Null()], {
    description: 'who disabled it: the partner, the operator, or 5 days of failed deliveries; null while enabled',
  }),
  failing_since: NullableTimestamp('the first failed attempt since the last delivered one; null while deliveries succeed'),
  previous_secret_expires_at: NullableTimestamp('after a rotation, until when the previous secret also signs; null otherwise'),
  created_at: Timestamp(),
  updated_at: Timestamp(),
};

export const WebhookEndpoint = Type.Object(endpointProperties, { $id: 'WebhookEndpoint', additionalProperties: false });

/** The answer of creation and rotation: the endpoint and its new secret, which is shown only there. */
export const WebhookEndpointWithSecret = Type.Object(
  {
    ...endpointProperties,
    secret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]+=*$',
      description: 'the signing secret (Standard Webhooks: whsec_ and base64), shown only in this answer',
    }),
  },
  { $id: 'WebhookEndpointWithSecret', additionalProperties: false },
);

/** The operator's listing adds whose endpoint it is. */
export const AdminWebhookEndpoint = Type.Object(
  { ...endpointProperties, partner_id: Type.String({ format: 'uuid' }) },
  { $id: 'AdminWebhookEndpoint', additionalProperties: false },
);


/**
 * A line of the delivery log: one attempt (newest first), or a delivery not attempted yet
 * (`attempt` 0). Ping and retry answer their delivery in the same shape, as it is now.
 */
export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the delivery (one event to one endpoint): what retry takes' }),
    event_id: Type.String({ description: 'the webhook-id header: the same on every attempt' }),
    event_type: Type.Union(WEBHOOK_EVENT_TYPES.map((type) => Type.Literal(type))),
    endpoint_id: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
      description:
        'the delivery as this attempt left it (in the log) or as it is now (ping, retry): pending: an attempt is due or scheduled; delivered: a 2xx came back; failed: every scheduled attempt failed',
    }),
    attempt: Type.Integer({ description: "this attempt's number, 1 the first (0: not attempted yet); for ping and retry, the attempts made so far" }),
    status_code: Type.Union([Type.Integer(), Type.Null()], { description: "this attempt's HTTP status; null if none came back or not attempted" }),
    duration_ms: Type.Union([Type.Integer(), Type.Null()], { description: "this attempt's time, ms" }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'why this attempt failed (refused, timed out, HTTP status and the start of its body)' }),
    last_attempt_at: NullableTimestamp('when this attempt was sent (its webhook-timestamp); for ping and retry, the last attempt'),
    next_attempt_at: NullableTimestamp('when the next attempt was scheduled by this one (for ping and retry: is due); null once delivered or failed'),
    created_at: Timestamp('when the event was queued for this endpoint'),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const DeliveryStatusFilter = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);

export function endpointView(row: WebhookEndpointRow): Record<string, unknown> {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    mode: row.mode,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
    previous_secret_expires_at: row.previous_secret_expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function adminEndpointView(row: WebhookEndpointRow): Record<string, unknown> {
  return { ...endpointView(row), partner_id: row.partner_id };
}

export function deliveryView(row: DeliveryLogRow): Record<string, unknown> {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    endpoint_id: row.endpoint_id,
    status: row.status,
    attempt: row.attempt,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    last_attempt_at: row.attempted_at?.toISOString() ?? null,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

/** Every schema here with an $id, for app.addSchema. */
export const WEBHOOK_SCHEMAS = [WebhookEndpoint, WebhookEndpointWithSecret, AdminWebhookEndpoint, WebhookDelivery];
