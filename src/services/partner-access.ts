import type { PartnerRow } from '../db/schema/partners.js';
import type { Mode } from '../domain/modes.js';

/**
 * Who reaches a partner's orders and webhook endpoints, and which mode's (docs/contract.md §10.2): an API
 * key reaches its own mode's only (the other mode's answer 404, as another partner's do); a
 * cabinet person reaches both. This is the one place the scope is decided: the partner-auth
 * hook makes it from the key, the cabinet from its session, and OrderService, OrderList,
 * PartnerStats and WebhookEndpoints filter every read and write on it.
 */
export interface PartnerAccess {
  partner: PartnerRow;
  /** The key's mode; undefined for a cabinet person (both modes). */
  mode: Mode | undefined;
  /** Who acts, as order_events records it: the key, or the cabinet person (cabinet_users.id). */
  actor: { keyId: string } | { userId: string };
  /**
   * A client key (docs/contract.md §10.9): its own id. It reaches only the orders it created (another
   * order answers 404, as another partner's does); unset for a full key and the cabinet.
   */
  onlyCreatedBy?: string;
}

/** An API key's access: one mode, acting as the key. */
export type KeyAccess = PartnerAccess & { mode: Mode; actor: { keyId: string } };

/** The `orders.sandbox` value the access is limited to; undefined: either. */
export function sandboxScope(access: Pick<PartnerAccess, 'mode'>): boolean | undefined {
  return access.mode === undefined ? undefined : access.mode === 'sandbox';
}
