import type { Kysely } from 'kysely';
import { searchOrders, type FoundOrder } from '../db/repositories/attention-repository.js';
import type { Database } from '../db/schema/index.js';
import { searchSpellings } from '../domain/order-search.js';
import { UUID_PATTERN } from '../domain/short-id.js';

/** Results of one search, at most. */
export const FOUND_LIMIT = 50;

/**
 * Finds orders by whatever an operator has at hand (the console's search): the order's id or
 * short id (any case, with or without the prefix), an address or txid (in the spellings the
 * service stores, domain/order-search.ts), an external id, the partner's id or a part of its
 * name, or the email of one of its cabinet people.
 */
export class OrderFinder {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly shortIdPrefix: string,
  ) {}

  async find(term: string): Promise<FoundOrder[]> {
    const text = term.trim();
    if (text === '') return [];
    const upper = text.toUpperCase();
    const shortIds = /^[A-Z0-9]{1,8}-[A-Z0-9]{6}$/.test(upper) ? [upper] : /^[A-Z0-9]{6}$/.test(upper) ? [`${this.shortIdPrefix.toUpperCase()}-${upper}`] : [];
    return searchOrders(this.db, { spellings: searchSpellings(text), shortIds, uuid: UUID_PATTERN.test(text) ? text.toLowerCase() : undefined, text }, FOUND_LIMIT);
  }
}
