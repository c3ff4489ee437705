import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { GeneratedTimestamp } from './currencies.js';

export type PartnerStatus = 'active' | 'suspended';

export interface PartnerTable {
  id: Generated<string>;
  name: string;
  status: Generated<PartnerStatus>;
  /** Partner's own markup on every quote, in basis points (0..1000). Default 0. */
  markup_bps: Generated<number>;
  /** Requests per minute allowed per key of this partner. Default 600. */
  rate_limit_per_minute: Generated<number>;
  /**
   * Open orders (waiting for a deposit) this partner may have at once; null: the server default
   * (MAX_OPEN_ORDERS_PER_PARTNER). Keeps one partner from draining a shared address pool.
   */
  max_open_orders: Generated<number | null>;
  /**
   * Web origins (`https://wallet.example`, scheme, host and port only) whose pages may call the
   * client-key routes from a browser (CORS, docs/contract.md §10.9); at most 20, empty by default.
   */
  cors_origins: Generated<string[]>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export type PartnerRow = Selectable<PartnerTable>;
export type NewPartner = Insertable<PartnerTable>;
export type PartnerUpdate = Updateable<PartnerTable>;
