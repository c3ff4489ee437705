import { findPartner, insertPartner, listPartners, updatePartner } from '../db/repositories/partners-repository.js';
import type { Db } from '../db/schema/index.js';
import type { PartnerRow, PartnerUpdate } from '../db/schema/partners.js';
import { ApiError } from '../errors.js';
import type { ApiKeyService } from './api-keys.js';
import { checkedCorsOrigins } from './cors-origins.js';

export interface PartnerChanges {
  status?: 'active' | 'suspended' | undefined;
  markup_bps?: number | undefined;
  rate_limit_per_minute?: number | undefined;
  max_open_orders?: number | null | undefined;
  cors_origins?: readonly string[] | undefined;
}

/**
 * Partners made and changed: one implementation for POST and PATCH /admin/v1/partners, the
 * console's partner pages and the cabinet's settings. A partner's status, markup, limits and
 * origins are read through its keys' cache, so every change also makes every process read its
 * keys again: one place, so no caller can write the row and forget the cache. A change drops this process's cached key
 * rows at once; other API processes drop theirs through the authentication change feed
 * (infrastructure/auth-changes.ts) within milliseconds, so a suspension takes effect everywhere.
 */
export class PartnerSettings {
  constructor(
    private readonly db: Db,
    private readonly apiKeys: Pick<ApiKeyService, 'forgetPartner'>,
  ) {}

  find(id: string): Promise<PartnerRow | undefined> {
    return findPartner(this.db, id);
  }

  /** The partner an operator route names; 404 `not_found` when there is none. */
  async existing(id: string): Promise<PartnerRow> {
    const row = await findPartner(this.db, id);
    if (row === undefined) throw new ApiError('not_found', 'partner not found');
    return row;
  }

  /** Partners, oldest first, a page at a time (GET /admin/v1/partners, the console's list). */
  list(limit: number, offset = 0): Promise<PartnerRow[]> {
    return listPartners(this.db, { limit, offset });
  }

  create(input: { name: string; markup_bps?: number | undefined; rate_limit_per_minute?: number | undefined; max_open_orders?: number | null | undefined }): Promise<PartnerRow> {
    const { name, ...limits } = input;
    return insertPartner(this.db, { name: name.trim(), ...Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)) });
  }

  async change(id: string, input: PartnerChanges): Promise<PartnerRow> {
    const { cors_origins, ...rest } = input;
    const changes = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
    const row = await updatePartner(this.db, id, { ...changes, ...(cors_origins === undefined ? {} : { cors_origins: checkedCorsOrigins(cors_origins) }) });
    if (row === undefined) throw new ApiError('not_found', 'partner not found');
    await this.apiKeys.forgetPartner(row.id);
    return row;
  }

  /** The cabinet's own settings (markup, origins: checked by its route); undefined when there is no such partner. */
  async update(partnerId: string, changes: PartnerUpdate): Promise<PartnerRow | undefined> {
    const row = await updatePartner(this.db, partnerId, changes);
    if (row !== undefined) await this.apiKeys.forgetPartner(row.id);
    return row;
  }
}
