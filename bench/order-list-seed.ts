/**
 * 100,000 orders of 10 partners for the order-list measures (bench/order-list-plans.ts, the
 * `orders-list-pg` measure of bench/run.ts): spread over 30 days, the catalog's pairs and every
 * status, inserted straight into the database in batches (the list reads rows; how they were
 * made does not matter to it), then ANALYZEd. bench/cabinet-pages.ts seeds 10,000 of one
 * partner over the last 30 days the same way (SeedOptions).
 */
import { randomUUID } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../src/db/schema/index.js';
import type { NewOrder } from '../src/db/schema/orders.js';
import { ORDER_STATUSES } from '../src/domain/order-status.js';

export const SEED_ORDERS = 100_000;
export const SEED_PARTNERS = 10;
/**
 * Rows per INSERT: PGlite reads a statement's parameter count as a signed 16-bit number (more
 * than 32,767 fails in its protocol parser), and a row here has up to ~40 columns.
 */
const BATCH = 500;
export const DAY_MS = 86_400_000;
/** The first order's creation time; the last is 30 days later. */
export const SEED_START = Date.parse('2026-06-01T00:00:00.000Z');

export interface SeededOrders {
  /** Two orders of the first partner, both with a deposit and a payout txid (search targets). */
  sample: [NewOrder, NewOrder];
}

export interface SeedOptions {
  /** How many orders (default SEED_ORDERS). */
  count?: number;
  /** The first order's creation time, ms since the epoch (default SEED_START); the last is 30 days later. */
  start?: number;
  /** Each row as it will be inserted, `n` its number (the cabinet bench adds the exchange's figures). */
  decorate?: (row: NewOrder, n: number) => NewOrder;
}

/** Inserts SEED_ORDERS orders (or `count`), round-robin over `partnerIds` (SEED_PARTNERS of them). */
export async function seedOrders(db: Kysely<Database>, partnerIds: readonly string[], options: SeedOptions = {}): Promise<SeededOrders> {
  const count = options.count ?? SEED_ORDERS;
  const start = options.start ?? SEED_START;
  const decorate = options.decorate ?? ((row: NewOrder) => row);
  const currencies = await db.selectFrom('currencies').select(['id', 'coin', 'network']).where('is_active', '=', true).execute();
  const sample: NewOrder[] = [];
  for (let base = 0; base < count; base += BATCH) {
    const rows: NewOrder[] = [];
    for (let n = base; n < Math.min(count, base + BATCH); n++) {
      // Pairs and statuses vary independently of the partner (n % partners).
      const group = Math.floor(n / partnerIds.length);
      const from = currencies[group % currencies.length];
      const to = currencies[(group * 5 + 3) % currencies.length];
      const partnerId = partnerIds[n % partnerIds.length];
      if (from === undefined || to === undefined || partnerId === undefined) throw new Error('empty catalog or no partner');
      const status = ORDER_STATUSES[(group >> 2) % ORDER_STATUSES.length] ?? 'completed';
      const createdAt = new Date(start + Math.floor((n / count) * 30 * DAY_MS));
      const seen = status !== 'waiting_deposit' && status !== 'expired';
      const row: NewOrder = decorate({
        id: randomUUID(),
        short_id: `B-${n.toString(36).toUpperCase().padStart(6, '0')}`,
        partner_id: partnerId,
        status,
        status_reason: null,
        version: 0,
        currency_from_id: from.id,
        currency_to_id: to.id,
        coin_from: from.coin,
        network_from: from.network,
        coin_to: to.coin,
        network_to: to.network,
        rate_type: n % 4 === 0 ? 'fixed' : 'float',
        amount_from_expected: '0.5',
        amount_to_expected: '12.25',
        rate_quoted: '24.5',
        exact_rate: '24.5',
        quote_id: null,
        deposit_address: `bench-deposit-${n}`,
        deposit_address_tag: null,
        recipient_address: `bench-recipient-${n % 5000}`,
        recipient_address_tag: null,
        refund_address: null,
        deposit_txid: seen ? `bench-deposit-tx-${n}` : null,
        deposit_confirmations: seen ? 6 : null,
        deposit_confirmations_required: 6,
        amount_from_received: seen ? '0.5' : null,
        payout_txid: status === 'completed' ? `bench-payout-tx-${n}` : null,
        refund_txid: null,
        created_at: createdAt,
        expires_at: new Date(createdAt.getTime() + 30 * 60_000),
        updated_at: createdAt,
      }, n);
      rows.push(row);
      if (sample.length < 2 && n % partnerIds.length === 0 && row.payout_txid !== null && row.deposit_txid !== null) sample.push(row);
    }
    await db.insertInto('orders').values(rows).execute();
  }
  await db.executeQuery(CompiledQuery.raw('analyze orders'));
  const [a, b] = sample;
  if (a === undefined || b === undefined) throw new Error('no sample orders');
  return { sample: [a, b] };
}
