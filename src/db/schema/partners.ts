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
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export type PartnerRow = Selectable<PartnerTable>;
export type NewPartner = Insertable<PartnerTable>;
export type PartnerUpdate = Updateable<PartnerTable>;
