import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  findAttemptResponses,
  findDelivery,
  findPartnerWebhookEvents,
  listEndpointDeliveries,
  retryDelivery,
  type DeliveryLogRow,
} from '../db/repositories/webhook-deliveries-repository.js';
import {
  countPartnerWebhookEndpoints,
  deleteWebhookEndpoint,
  findOperatorDisabledUrl,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  lockPartnerEndpoints,
  updateWebhookEndpoint,
  type EndpointScope,
} from '../db/repositories/webhook-endpoints-repository.js';
import { insertPingEvent } from '../db/repositories/webhook-events-repository.js';
import type { Db } from '../db/schema/index.js';
import type { WebhookDeliveryStatus, WebhookEndpointRow } from '../db/schema/webhooks.js';
import type { Mode } from '../domain/modes.js';
import { PREVIOUS_SECRET_TTL_MS, type WebhookEventType } from '../domain/webhook-events.js';
import { ApiError } from '../errors.js';
import type { SecretBox } from '../infrastructure/secret-box.js';
import { webhookUrlProblem } from '../infrastructure/webhook-address-policy.js';
import { newWebhookMessageId, pingBody } from './webhook-outbox.js';

/** Endpoints a partner may have at once, in each mode. */
export const MAX_ENDPOINTS_PER_PARTNER = 10;

/**
 * Whose endpoints: a partner's id (every mode: the cabinet), or a scope (an API key's: its own
 * mode's only, docs/contract.md §10.2). Another partner's endpoint, or the other mode's, is a 404.
 */
export type EndpointOwner = string | EndpointScope;

function scopeOf(owner: EndpointOwner): EndpointScope;
function scopeOf(owner: EndpointOwner | undefined): EndpointScope | undefined;
function scopeOf(owner: EndpointOwner | undefined): EndpointScope | undefined {
  return typeof owner === 'string' ? { partnerId: owner } : owner;
}

const OPERATOR_DISABLED = 'the operator disabled this endpoint: it stays as it is until the operator enables it';

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
 * Webhook endpoints and their delivery logs (docs/contract.md §8), for the partner API (scoped to the
 * caller: another partner's endpoint is 404) and the operator API (any partner's).
 */
export class WebhookEndpoints {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly allowPrivate: boolean,
  ) {}

  /**
   * Creates an endpoint of the given mode (docs/contract.md §10.2: the key's, or the cabinet's choice);
   * its secret is returned here once, and only sealed after. The cap (MAX_ENDPOINTS_PER_PARTNER
   * per mode) is counted with the partner's row locked, so concurrent creates cannot pass it
   * together; a URL the operator disabled for this partner is refused (409) until the operator
   * enables it again.
   */
  async create(owner: { partnerId: string; mode: Mode }, input: { url: string; events?: WebhookEventType[] | null; description?: string | null }) {
    this.checkUrl(input.url);
    const { partnerId, mode } = owner;
    const id = randomUUID();
    const secret = newSecret();
    const now = this.clock.now();
    const endpoint = await this.db.transaction().execute(async (tx) => {
      await lockPartnerEndpoints(tx, partnerId);
      if ((await findOperatorDisabledUrl(tx, partnerId, input.url)) !== undefined) {
        throw new ApiError('conflict', `${OPERATOR_DISABLED.replace('this endpoint', 'an endpoint at this url')}; until then the url takes no other endpoint`);
      }
      if ((await countPartnerWebhookEndpoints(tx, partnerId, mode)) >= MAX_ENDPOINTS_PER_PARTNER) {
        throw new ApiError('unprocessable', `an account may have ${MAX_ENDPOINTS_PER_PARTNER} ${mode} webhook endpoints: delete one first`);
      }
      return insertWebhookEndpoint(tx, {
        id,
        partner_id: partnerId,
        url: input.url,
        description: input.description ?? null,
        events: eventsColumn(input.events),
        enabled: true,
        mode,
        disabled_reason: null,
        secret: this.secrets.seal(secret, id),
        previous_secret: null,
        previous_secret_expires_at: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      });
    });
    return { endpoint, secret };
  }

  /** A partner's endpoints (of the key's mode, for a key), or every partner's (the operator's). */
  async list(owner?: EndpointOwner, limit = 100): Promise<WebhookEndpointRow[]> {
    return listWebhookEndpoints(this.db, { scope: scopeOf(owner), limit });
  }

  async get(id: string, owner?: EndpointOwner): Promise<WebhookEndpointRow> {
    const endpoint = await findWebhookEndpoint(this.db, id, scopeOf(owner));
    if (endpoint === undefined) throw new ApiError('not_found', 'webhook endpoint not found');
    return endpoint;
  }

  /**
   * The partner's changes. `enabled: true` re-enables an endpoint the partner or its failures
   * disabled (its failure streak starts over). One the operator disabled stays so, at its URL
   * (409 for either; its events and description may change: it sends nothing), and no endpoint
   * of the partner may be pointed at a URL the operator disabled.
   */
  async update(id: string, owner: EndpointOwner, changes: EndpointChanges): Promise<WebhookEndpointRow> {
    const scope = scopeOf(owner);
    const current = await this.get(id, scope);
    if (changes.url !== undefined) this.checkUrl(changes.url);
    const enabling = changes.enabled === true && !current.enabled;
    if (current.disabled_reason === 'operator' && (enabling || (changes.url !== undefined && changes.url !== current.url))) {
      throw new ApiError('conflict', `${OPERATOR_DISABLED}: ask the operator`);
    }
    if (changes.url !== undefined && changes.url !== current.url && (await findOperatorDisabledUrl(this.db, current.partner_id, changes.url)) !== undefined) {
      throw new ApiError('conflict', 'the operator disabled an endpoint at this url: no endpoint may use it until the operator enables it');
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
      scope,
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

  /** Deletes the partner's endpoint, unless the operator disabled it (409: it stays until the operator enables it). */
  async remove(id: string, owner: EndpointOwner): Promise<void> {
    const outcome = await deleteWebhookEndpoint(this.db, id, scopeOf(owner));
    if (outcome === 'not_found') throw new ApiError('not_found', 'webhook endpoint not found');
    if (outcome === 'operator_disabled') throw new ApiError('conflict', `${OPERATOR_DISABLED}: ask the operator`);
  }

  /**
   * A new secret signs from now on; the one it replaces keeps signing beside it for 24 h (two
   * signatures in webhook-signature), so receivers can switch without losing a delivery.
   */
  async rotateSecret(id: string, owner: EndpointOwner) {
    const scope = scopeOf(owner);
    const current = await this.get(id, scope);
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
      scope,
    );
    if (endpoint === undefined) throw new ApiError('not_found', 'webhook endpoint not found');
    return { endpoint, secret };
  }

  /**
   * The endpoint's current signing secret, opened from its sealed copy (another partner's
   * endpoint is 404). Only the cabinet's one-use reveal asks: the page a create or rotate form
   * redirects to shows it once (migration 0032).
   */
  async openSecret(id: string, owner: EndpointOwner): Promise<string> {
    const endpoint = await this.get(id, owner);
    return this.secrets.open(endpoint.secret, id);
  }

  /** Queues a `ping` to the endpoint (whatever it subscribes to); returns its delivery. */
  async ping(id: string, owner: EndpointOwner): Promise<DeliveryLogRow> {
    const endpoint = await this.get(id, owner);
    if (!endpoint.enabled) throw new ApiError('conflict', 'the endpoint is disabled: enable it first');
    const now = this.clock.now();
    const deliveryId = await this.db.transaction().execute((tx) =>
      insertPingEvent(tx, { id: newWebhookMessageId(), partner_id: endpoint.partner_id, type: 'ping', order_id: null, payload: pingBody(now) }, id, now),
    );
    const delivery = await findDelivery(this.db, deliveryId);
    if (delivery === undefined) throw new Error(`ping delivery ${deliveryId} vanished`);
    return delivery;
  }

  async deliveries(id: string, owner: EndpointOwner | undefined, filter: { status?: WebhookDeliveryStatus; limit: number }) {
    await this.get(id, owner);
    return listEndpointDeliveries(this.db, id, filter);
  }

  /**
   * What the cabinet's delivery log shows beside the deliveries of the partner's endpoint `endpointId`: each
   * one's request body (the event as sent, the partner's own events only) and each attempt's
   * response.
   */
  async deliveryDetails(partnerId: string, endpointId: string, deliveries: ReadonlyArray<{ id: string; event_id: string }>) {
    const [events, responses] = await Promise.all([
      findPartnerWebhookEvents(this.db, partnerId, [...new Set(deliveries.map((delivery) => delivery.event_id))]),
      findAttemptResponses(this.db, endpointId, [...new Set(deliveries.map((delivery) => delivery.id))]),
    ]);
    return { events, responses };
  }

  /** Redelivers now, with the same webhook-id (a partner's own deliveries only, of the key's mode, unless the operator asks). */
  async retry(deliveryId: string, owner?: EndpointOwner): Promise<DeliveryLogRow> {
    const row = await retryDelivery(this.db, deliveryId, this.clock.now(), scopeOf(owner));
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
