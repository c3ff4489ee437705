import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  findDelivery,
  listEndpointDeliveries,
  retryDelivery,
  type DeliveryLogRow,
} from '../db/repositories/webhook-deliveries-repository.js';
import {
  countPartnerWebhookEndpoints,
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
} from '../db/repositories/webhook-endpoints-repository.js';
import { insertPingEvent } from '../db/repositories/webhook-events-repository.js';
import type { Db } from '../db/schema/index.js';
import type { WebhookDeliveryStatus, WebhookEndpointRow } from '../db/schema/webhooks.js';
import { PREVIOUS_SECRET_TTL_MS, type WebhookEventType } from '../domain/webhook-events.js';
import { ApiError } from '../errors.js';
import type { SecretBox } from './secret-box.js';
import { webhookUrlProblem } from './webhook-address-policy.js';
import { newWebhookMessageId, pingBody } from './webhook-outbox.js';

/** Endpoints a partner may have at once. */
export const MAX_ENDPOINTS_PER_PARTNER = 10;

export interface EndpointChanges {
  url?: string;
  /** Event types; null: every type. */
  events?: WebhookEventType[] | null;
  description?: string | null;
  enabled?: boolean;
}

/** A new signing secret: `whsec_` and 24 random bytes in base64 (Standard Webhooks). */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Webhook endpoints and their delivery logs (DESIGN §8), for the partner API (scoped to the
 * caller: another partner's endpoint is 404) and the operator API (any partner's).
 */
export class WebhookEndpoints {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly allowPrivate: boolean,
  ) {}

  /** Creates an endpoint; its secret is returned here once, and only sealed after. */
  async create(partnerId: string, input: { url: string; events?: WebhookEventType[] | null; description?: string | null }) {
    this.checkUrl(input.url);
    if ((await countPartnerWebhookEndpoints(this.db, partnerId)) >= MAX_ENDPOINTS_PER_PARTNER) {
      throw new ApiError('unprocessable', `an account may have ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints: delete one first`);
    }
    const id = randomUUID();
    const secret = newSecret();
    const now = this.clock.now();
    const endpoint = await insertWebhookEndpoint(this.db, {
      id,
      partner_id: partnerId,
      url: input.url,
      description: input.description ?? null,
      events: eventsColumn(input.events),
      enabled: true,
      disabled_reason: null,
      secret: this.secrets.seal(secret, id),
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    });
    return { endpoint, secret };
  }

  async list(partnerId?: string, limit = 100): Promise<WebhookEndpointRow[]> {
    return listWebhookEndpoints(this.db, { partnerId, limit });
  }

  async get(id: string, partnerId?: string): Promise<WebhookEndpointRow> {
    const endpoint = await findWebhookEndpoint(this.db, id, partnerId);
    if (endpoint === undefined) throw new ApiError('not_found', 'webhook endpoint not found');
    return endpoint;
  }

  /**
   * The partner's changes. `enabled: true` re-enables an endpoint the partner or its failures
   * disabled (its failure streak starts over); one the operator disabled stays so (409).
   */
  async update(id: string, partnerId: string, changes: EndpointChanges): Promise<WebhookEndpointRow> {
    const current = await this.get(id, partnerId);
    if (changes.url !== undefined) this.checkUrl(changes.url);
    const enabling = changes.enabled === true && !current.enabled;
    if (enabling && current.disabled_reason === 'operator') {
      throw new ApiError('conflict', 'the operator disabled this endpoint: ask the operator to enable it');
    }
    const row = await updateWebhookEndpoint(
      this.db,
      id,
      {
        ...(changes.url !== undefined ? { url: changes.url } : {}),
        ...(changes.events !== undefined ? { events: eventsColumn(changes.events) } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...(enabling ? { enabled: true, disabled_reason: null, failing_since: null } : {}),
        ...(changes.enabled === false && current.enabled ? { enabled: false, disabled_reason: 'partner' as const } : {}),
        updated_at: this.clock.now(),
      },
      partnerId,
    );
    if (row === undefined) throw new ApiError('not_found', 'webhook endpoint not found');
    return row;
  }

  /** The operator's switch: disabled stays so until the operator enables it again. */
  async setEnabledByOperator(id: string, enabled: boolean): Promise<WebhookEndpointRow> {
    const current = await this.get(id);
    const changes = enabled
      ? current.enabled
        ? {}
        : { enabled: true, disabled_reason: null, failing_since: null }
      : { enabled: false, disabled_reason: 'operator' as const };
    const row = await updateWebhookEndpoint(this.db, id, { ...changes, updated_at: this.clock.now() });
    if (row === undefined) throw new ApiError('not_found', 'webhook endpoint not found');
    return row;
  }

  async remove(id: string, partnerId: string): Promise<void> {
    if (!(await deleteWebhookEndpoint(this.db, id, partnerId))) throw new ApiError('not_found', 'webhook endpoint not found');
  }

  /**
   * A new secret signs from now on; the one it replaces keeps signing beside it for 24 h (two
   * signatures in webhook-signature), so receivers can switch without losing a delivery.
   */
  async rotateSecret(id: string, partnerId: string) {
    const current = await this.get(id, partnerId);
    const secret = newSecret();
    const now = this.clock.now();
    const endpoint = await updateWebhookEndpoint(
      this.db,
      id,
      {
        secret: this.secrets.seal(secret, id),
        previous_secret: current.secret,
        previous_secret_expires_at: new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS),
        updated_at: now,
      },
      partnerId,
    );
    if (endpoint === undefined) throw new ApiError('not_found', 'webhook endpoint not found');
    return { endpoint, secret };
  }

  /**
   * The endpoint's current signing secret, opened from its sealed copy (another partner's
   * endpoint is 404). Only the cabinet's one-use reveal asks: the page a create or rotate form
   * redirects to shows it once (migration 0032).
   */
  async openSecret(id: string, partnerId: string): Promise<string> {
    const endpoint = await this.get(id, partnerId);
    return this.secrets.open(endpoint.secret, id);
  }

  /** Queues a `ping` to the endpoint (whatever it subscribes to); returns its delivery. */
  async ping(id: string, partnerId: string): Promise<DeliveryLogRow> {
    const endpoint = await this.get(id, partnerId);
    if (!endpoint.enabled) throw new ApiError('conflict', 'the endpoint is disabled: enable it first');
    const now = this.clock.now();
    const deliveryId = await this.db.transaction().execute((tx) =>
      insertPingEvent(tx, { id: newWebhookMessageId(), partner_id: partnerId, type: 'ping', order_id: null, payload: pingBody(now) }, id, now),
    );
    const delivery = await findDelivery(this.db, deliveryId);
    if (delivery === undefined) throw new Error(`ping delivery ${deliveryId} vanished`);
    return delivery;
  }

  async deliveries(id: string, partnerId: string | undefined, filter: { status?: WebhookDeliveryStatus; limit: number }) {
    await this.get(id, partnerId);
    return listEndpointDeliveries(this.db, id, filter);
  }

  /** Redelivers now, with the same webhook-id (a partner's own deliveries only, unless the operator asks). */
  async retry(deliveryId: string, partnerId?: string): Promise<DeliveryLogRow> {
    const row = await retryDelivery(this.db, deliveryId, this.clock.now(), partnerId);
    if (row === undefined) throw new ApiError('not_found', 'webhook delivery not found');
    return row;
  }

  private checkUrl(url: string): void {
    const problem = webhookUrlProblem(url, this.allowPrivate);
    if (problem !== undefined) throw new ApiError('bad_request', `url ${problem}`);
  }
}

function eventsColumn(events: readonly WebhookEventType[] | null | undefined): string | null {
  return events === undefined || events === null ? null : JSON.stringify([...new Set(events)]);
}
