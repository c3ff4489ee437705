import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { assetName } from '../../src/domain/asset-name.js';
import { Decimal } from '../../src/domain/money.js';
import { advance, BTC_REFUND, createOrder, ETH_RECIPIENT, fixedQuote, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

/**
 * The ledger is exact (issue 29.2): random orders go through random paths, as the partner, the
 * operator, the chain and the worker would drive them (deposits exact, short, over or late,
 * dropped before confirmation, exchange, payout and refund faults transient or permanent, held
 * refunds continued, refunded or left to lapse, cancels, operator failures, sandbox orders
 * beside live ones), and after each run:
 * - every ledger transaction balances in every asset;
 * - every account's balance per asset, over the run's orders, equals what they imply, read from the orders
 *   themselves (their amounts, status and audit trail), to the last decimal: the ledger is
 *   compared with an account of the orders written independently of the posting code.
 */

const ETH_REFUND = ETH_RECIPIENT;
const BTC_RECIPIENT = BTC_REFUND;

type Pair = 'BTC→ETH float' | 'BTC→ETH fixed' | 'ETH→BTC float';
type OrderSpec = { pair: Pair; refundAddress: boolean; sandbox: boolean };

type Step =
  | { kind: 'deposit'; order: number; factor: string }
  | { kind: 'confirm'; order: number }
  | { kind: 'drop'; order: number }
  | { kind: 'tick' }
  | { kind: 'clock'; ms: number }
  | { kind: 'fault'; step: 'exchange' | 'payout' | 'refund'; count: number; permanent: boolean }
  | { kind: 'action'; order: number; action: 'cancel' | 'continue' | 'refund' }
  | { kind: 'refund_address'; order: number }
  | { kind: 'fail'; order: number };

const orderSpec: fc.Arbitrary<OrderSpec> = fc.record({
  pair: fc.constantFrom<Pair>('BTC→ETH float', 'BTC→ETH fixed', 'ETH→BTC float'),
  refundAddress: fc.boolean(),
  sandbox: fc.boolean(),
});

const orderIndex = fc.nat({ max: 2 });
/** What a deposit pays, as a factor of the expected amount: exact, short, over, with odd decimals. */
const factor = fc.constantFrom('1', '1', '0.9', '0.5', '1.07', '1.5', '0.999', '0.3');

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('deposit' as const), order: orderIndex, factor }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('confirm' as const), order: orderIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), order: orderIndex }) },
  { weight: 6, arbitrary: fc.constant({ kind: 'tick' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clock' as const), ms: fc.constantFrom(60_000, 31 * 60_000) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      step: fc.constantFrom('exchange' as const, 'payout' as const, 'refund' as const),
      count: fc.integer({ min: 1, max: 2 }),
      permanent: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('action' as const), order: orderIndex, action: fc.constantFrom('cancel' as const, 'continue' as const, 'continue' as const, 'refund' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refund_address' as const), order: orderIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail' as const), order: orderIndex }) },
);

interface Placed {
  id: string;
  apiKey: string;
  expected: string;
  pair: Pair;
}

describe('ledger: exact under random orders and paths (property)', () => {
  let h: Harness;
  let sandboxKey: string;
  before(async () => {
    h = await startHarness();
    const markup = await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: 73 });
    assert.equal(markup.statusCode, 200, markup.body);
    const key = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true });
    assert.equal(key.statusCode, 201, key.body);
    sandboxKey = key.json<{ api_key: string }>().api_key;
  });
  after(() => h.t.close());

  async function place(spec: OrderSpec): Promise<Placed> {
    const apiKey = spec.sandbox ? sandboxKey : h.partner.apiKey;
    const btcToEth = spec.pair !== 'ETH→BTC float';
    const fields = btcToEth
      ? { amount_from: '0.5', refund_address: spec.refundAddress ? BTC_REFUND : null }
      : { coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', amount_from: '3.123456789012345678', recipient_address: BTC_RECIPIENT, refund_address: spec.refundAddress ? ETH_REFUND : null };
    const quote = spec.pair === 'BTC→ETH fixed' && !spec.sandbox ? { rate_type: 'fixed' as const, quote_id: await fixedQuote(h, '0.5') } : {};
    const order = await createOrder(h, { ...fields, ...quote }, apiKey);
    return { id: order.id, apiKey, expected: order.amount_from_expected, pair: spec.pair };
  }

  /** A driver's request whose refusal (409, 422: the move is not allowed now) is part of the path. */
  function allowed(res: LightMyRequestResponse): void {
    assert.ok([200, 201, 404, 409, 422].includes(res.statusCode), `${res.statusCode} ${res.body}`);
  }

  async function run(placed: Placed[], s: Step): Promise<void> {
    const order = 'order' in s ? placed[s.order % placed.length] : undefined;
    switch (s.kind) {
      case 'deposit': {
        if (order === undefined) return;
        const amount = new Decimal(order.expected).times(s.factor).toDecimalPlaces(order.pair === 'ETH→BTC float' ? 18 : 8, Decimal.ROUND_DOWN).toFixed();
        allowed(await h.t.admin('POST', `/admin/v1/simulator/orders/${order.id}/deposit`, { amount }));
        return;
      }
      case 'confirm':
        if (order !== undefined) allowed(await h.t.admin('POST', `/admin/v1/simulator/orders/${order.id}/confirmations`, { count: 64 }));
        return;
      case 'drop':
        if (order !== undefined) allowed(await h.t.admin('POST', `/admin/v1/simulator/orders/${order.id}/drop-deposit`));
        return;
      case 'tick':
        await h.t.runtime.worker.tick();
        return;
      case 'clock':
        await advance(h, s.ms);
        return;
      case 'fault':
        allowed(await h.t.admin('POST', '/admin/v1/simulator/faults', { step: s.step, count: s.count, permanent: s.permanent }));
        return;
      case 'action':
        if (order !== undefined) {
          allowed(await h.t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${order.id}/${s.action}`, headers: { 'x-api-key': order.apiKey } }));
        }
        return;
      case 'refund_address':
        if (order !== undefined) {
          const address = order.pair === 'ETH→BTC float' ? ETH_REFUND : BTC_REFUND;
          allowed(
            await h.t.app.inject({
              method: 'PUT',
              url: `/api/v1/partner/orders/${order.id}/refund-address`,
              headers: { 'x-api-key': order.apiKey, 'content-type': 'application/json' },
              payload: JSON.stringify({ refund_address: address }),
            }),
          );
        }
        return;
      case 'fail':
        if (order !== undefined) allowed(await h.t.admin('POST', `/admin/v1/orders/${order.id}/fail`, { reason: 'property test' }));
        return;
    }
  }

  it('every transaction balances; every balance is what the orders imply, to the last decimal', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(orderSpec, { minLength: 1, maxLength: 3 }), fc.array(step, { minLength: 4, maxLength: 24 }), async (specs, steps) => {
        runs++;
        const placed: Placed[] = [];
        for (const spec of specs) placed.push(await place(spec));
        for (const s of steps) await run(placed, s);
        // Let what is under way settle: deposits confirm, holds lapse and their refunds go,
        // deposit windows close (a fault still pending leaves its order where it is).
        for (const order of placed) await run(placed, { kind: 'confirm', order: placed.indexOf(order) });
        for (let i = 0; i < 3; i++) await h.t.runtime.worker.tick();
        await advance(h, 31 * 60_000);
        for (let i = 0; i < 3; i++) await h.t.runtime.worker.tick();
        await assertBalanced(h);
        // This run's orders only, so a failure shrinks to the path that caused it.
        await assertImpliedBalances(h, placed.map((order) => order.id));
        await assertOpeningLinesMatch(h, placed.map((order) => order.id));
      }),
      {
        numRuns: Number(process.env.LEDGER_PROPERTY_RUNS ?? 30),
        // Run first, so every kind of posting is reached whatever the random runs reach.
        examples: [
          // A fixed order paid short: held, continued, exchanged at the float rate, paid out.
          [[{ pair: 'BTC→ETH fixed', refundAddress: true, sandbox: false }], [{ kind: 'deposit', order: 0, factor: '0.9' }, { kind: 'confirm', order: 0 }, { kind: 'tick' }, { kind: 'action', order: 0, action: 'continue' }, { kind: 'tick' }]],
          // An exchange that fails for good: refunded; beside it a late deposit, refunded too.
          [
            [{ pair: 'ETH→BTC float', refundAddress: true, sandbox: false }, { pair: 'BTC→ETH float', refundAddress: true, sandbox: true }],
            [{ kind: 'fault', step: 'exchange', count: 1, permanent: true }, { kind: 'deposit', order: 0, factor: '1' }, { kind: 'confirm', order: 0 }, { kind: 'tick' }, { kind: 'tick' }, { kind: 'clock', ms: 31 * 60_000 }, { kind: 'deposit', order: 1, factor: '1.5' }, { kind: 'tick' }],
          ],
        ],
      },
    );
    assert.ok(runs > 0);
    // The paths reached the postings of every move (what the runs reach, counted over all of them).
    const kinds = await h.t.db.handle.db.selectFrom('ledger_transactions').select('kind').distinct().execute();
    assert.deepEqual(kinds.map((row) => row.kind).sort(), ['deposit', 'exchange', 'payout', 'refund', 'refund_declined', 'refund_owed']);
  });
});

async function assertBalanced(h: Harness): Promise<void> {
  const unbalanced = await sql<{ transaction_id: string; asset: string; total: string }>`
    select transaction_id, asset, sum(amount) as total from ledger_entries group by transaction_id, asset having sum(amount) <> 0
  `.execute(h.t.db.handle.db);
  assert.deepEqual(unbalanced.rows, []);
}

/**
 * What the orders imply, account by account, from each order's amounts, status and trail:
 * - a deposit is the exchange's (deposits) once confirmed, or once seen late;
 * - until exchanged it is owed back to the customer: payable, or refunds while the order is
 *   (or failed while) refunding, nothing once refunded (the hot wallet paid amount_refunded);
 * - an exchanged order gave revenue its received amount in coin_from and took from it
 *   amount_to_final plus the partner's fee in coin_to; the fee is owed to the partner, and
 *   amount_to_final to the customer until completed (the hot wallet paid it).
 */
async function assertImpliedBalances(h: Harness, ids: string[]): Promise<void> {
  const db = h.t.db.handle.db;
  const orders = await db
    .selectFrom('orders as o')
    .innerJoin('currencies as cf', 'cf.id', 'o.currency_from_id')
    .innerJoin('currencies as ct', 'ct.id', 'o.currency_to_id')
    .select(['o.id', 'o.status', 'o.sandbox', 'o.amount_from_received', 'o.amount_to_final', 'o.partner_fee', 'o.amount_refunded'])
    .select(['cf.coin as from_coin', 'cf.network as from_network', 'ct.coin as to_coin', 'ct.network as to_network'])
    .where('o.id', 'in', ids)
    .execute();
  const trail = await db
    .selectFrom('order_events')
    .select(['order_id', 'from_status', 'to_status'])
    .where('order_id', 'in', ids)
    .orderBy('order_id')
    .orderBy('order_version')
    .execute();
  const moves = new Map<string, string[]>();
  for (const row of trail) moves.set(row.order_id, [...(moves.get(row.order_id) ?? []), `${row.from_status ?? ''}>${row.to_status}`]);

  const expected = new Map<string, Decimal>();
  const add = (sandbox: boolean, account: string, asset: string, amount: string): void => {
    const key = `${sandbox ? 'sandbox:' : ''}${account} ${asset}`;
    expected.set(key, (expected.get(key) ?? new Decimal(0)).plus(amount));
  };
  for (const order of orders) {
    const path = moves.get(order.id) ?? [];
    const a = assetName(order.from_coin, order.from_network);
    const b = assetName(order.to_coin, order.to_network);
    const received = order.amount_from_received ?? '0';
    const credited = path.includes('confirming>exchanging') || path.includes('expired>refunding');
    if (!credited) continue;
    const filled = path.includes('exchanging>sending');
    const refundOwed = order.status === 'refunding' || (order.status === 'failed' && path.at(-1) === 'refunding>failed');
    add(order.sandbox, 'deposits', a, received);
    if (order.status === 'refunded') add(order.sandbox, 'hot_wallet', a, `-${order.amount_refunded ?? '0'}`);
    else if (refundOwed) add(order.sandbox, 'refunds', a, `-${received}`);
    else if (!filled) add(order.sandbox, 'payable', a, `-${received}`);
    if (filled) {
      const paidOut = order.amount_to_final ?? '0';
      const fee = order.partner_fee ?? '0';
      add(order.sandbox, 'revenue', a, `-${received}`);
      add(order.sandbox, 'revenue', b, new Decimal(paidOut).plus(fee).toFixed());
      add(order.sandbox, 'partner_commission', b, `-${fee}`);
      add(order.sandbox, order.status === 'completed' ? 'hot_wallet' : 'payable', b, `-${paidOut}`);
    }
  }
  const actual = await sql<{ account: string; asset: string; balance: string }>`
    select account, asset, sum(amount) as balance from ledger_entries where order_id = any(${ids}::uuid[]) group by account, asset
  `.execute(db);
  const got = new Map(actual.rows.map((row) => [`${row.account} ${row.asset}`, new Decimal(row.balance)]));
  for (const key of new Set([...expected.keys(), ...got.keys()])) {
    const want = expected.get(key) ?? new Decimal(0);
    const have = got.get(key) ?? new Decimal(0);
    assert.ok(want.eq(have), `${key}: the ledger says ${have.toFixed()}, the orders imply ${want.toFixed()}`);
  }
}

/**
 * Migration 0057's ledger_opening_lines(), what an order's moves would have posted by now, is
 * what they did post: per order, account and asset, to the last decimal. (It is what orders
 * that existed before the ledger were opened with.)
 */
async function assertOpeningLinesMatch(h: Harness, ids: string[]): Promise<void> {
  const rows = await sql<{ key: string; opening: string | null; posted: string | null }>`
    with opening as (
      select order_id, account, asset, amount from ledger_opening_lines() where order_id = any(${ids}::uuid[])
    ), posted as (
      select order_id, account, asset, sum(amount) as amount from ledger_entries
       where order_id = any(${ids}::uuid[]) group by order_id, account, asset having sum(amount) <> 0
    )
    select coalesce(o.order_id, p.order_id) || ' ' || coalesce(o.account, p.account) || ' ' || coalesce(o.asset, p.asset) as key,
           o.amount::text as opening, p.amount::text as posted
      from opening o full join posted p on p.order_id = o.order_id and p.account = o.account and p.asset = o.asset
     where o.amount is distinct from p.amount
  `.execute(h.t.db.handle.db);
  assert.deepEqual(rows.rows, []);
}
