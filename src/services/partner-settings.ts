import type { Kysely } from 'kysely';
import { updatePartner } from '../db/repositories/partners-repository.js';
import type { Database } from '../db/schema/index.js';
import type { PartnerRow, PartnerUpdate } from '../db/schema/partners.js';
import type { ApiKeyService } from './api-keys.js';

/**
 * A partner's settings as the operator (PATCH /admin/v1/partners/{id}) and the partner's cabinet
 * change them. A partner's status, markup, limits and origins are read through its keys' cache,
 * so every change also makes every process read its keys again: one method, so no caller can
 * write the row and forget the cache.
 */
export class PartnerSettings {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly apiKeys: Pick<ApiKeyService, 'forgetPartner'>,
  ) {}

  /** The partner as changed, or undefined when there is no such partner. */
  async update(partnerId: string, changes: PartnerUpdate): Promise<PartnerRow | undefined> {
    const row = await updatePartner(this.db, partnerId, changes);
    if (row !== undefined) await this.apiKeys.forgetPartner(row.id);
    return row;
  }
}
