import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { CompiledQuery, sql } from 'kysely';
import { partnerOrderListQuery, partnerOrderListWireQuery } from '../../src/db/repositories/partner-order-list-repository.js';
import { buildTestApp, ManualClock } from '../helpers/test-app.js';
import { unboundedDatabase } from '../helpers/test-database.js';
import { assertError } from '../rates/rates-helpers.js';
import {
  advance,
  createOrder,
  depositAndRun,
  ETH_RECIPIENT,
  LIFECYCLE_ENV,
  WINDOW_MS,
  type Harness,
  type OrderJson,
} from '../lifecycle/lifecycle-helpers.js';

/**
 * GET /partner/orders (docs/contract.md §7.2): the caller's orders newest first, filters, exact-match
 * search, keyset pages that stay stable while orders are created, never another partner's order,
 * and a cursor that cannot be altered or carried to another key.
 */

interface Page {
  orders: OrderJson[];
  next_cursor: string | null;
}

describe('GET /partner/orders', () => {
  let h: Harness;
  let other: { apiKey: string };
  /** Acme's orders, newest first, as GET /partner/orders/{id} answers them at creation. */
  const created: OrderJson[] = [];
  let completed: OrderJson;

  before(async () => {
    const clock = new ManualClock(new Date('2026-07-01T10:00:00.000Z'));
    const t = await buildTestApp({ clock, env: LIFECYCLE_ENV });
    h = { t, clock, partner: await t.createPartner({ rate_limit_per_minute: 100_000 }) };
    other = await h.t.createPartner({ rate_limit_per_minute: 100_000 });
    // Eight orders: pairs made in the same millisecond (ties broken by id), BTC→ETH and ETH→BTC.
    for (let i = 0; i < 8; i++) {
      const reverse = i % 3 === 2;
      const order = await createOrder(
        h,
        reverse
          ? {
              coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', amount_from: '1',
              recipient_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', refund_address: null,
            }
          : {},
      );
      created.unshift(order);
      if (i % 2 === 1) await advance(h, 1000);
    }
    // The other partner's orders must never show.
    await createOrder(h, {}, other.apiKey);
    // One order run to completed (deposit and payout txids set).
    completed = await depositAndRun(h, (await createOrder(h)).id, 'completed');
    created.unshift(completed);
  });
  after(() => h.t.close());

  const list = (query: string, apiKey = h.partner.apiKey): Promise<LightMyRequestResponse> =>
    h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders${query === '' ? '' : `?${query}`}`, headers: { authorization: `Bearer ${apiKey}` } });
  const page = async (query: string, apiKey = h.partner.apiKey): Promise<Page> => {
    const res = await list(query, apiKey);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Page>();
  };
  const ids = (p: Page) => p.orders.map((order) => order.id);

  /** Every page of a query, following next_cursor. */
  const all = async (query: string, limit: number): Promise<string[]> => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p: Page = await page(`${query}&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      assert.ok(p.orders.length <= limit);
      seen.push(...ids(p));
      cursor = p.next_cursor;
    } while (cursor !== null);
    return seen;
  };

  /** created_at descending, then id descending: the list's order. */
  const newestFirst = (orders: OrderJson[]) =>
    [...orders].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : String(a.created_at) < String(b.created_at) ? 1 : -1)).map((o) => o.id);

  it('lists the caller\'s orders newest first (created_at, then id), as GET shows each', async () => {
    const p = await page('');
    assert.equal(p.next_cursor, null);
    assert.deepEqual(ids(p), newestFirst(created));
    const first = p.orders[0];
    assert.ok(first !== undefined);
    const single = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${first.id}`, headers: { authorization: `Bearer ${h.partner.apiKey}` } });
    assert.deepEqual(first, single.json());
  });

  it('pages by cursor at every page size: each order once, in order, the last page has next_cursor null', async () => {
    for (const limit of [1, 2, 3, 4, 9, 100]) {
      assert.deepEqual(await all('status=waiting_deposit,completed,expired', limit), newestFirst(created), `limit ${limit}`);
    }
    const p = await page('limit=2');
    assert.equal(p.orders.length, 2);
    assert.equal(typeof p.next_cursor, 'string');
  });

  it('filters: status (as GET reads it), coin_from, coin_to, created_after/before; combined with AND', async () => {
    assert.deepEqual(ids(await page('status=completed')), [completed.id]);
    assert.deepEqual(ids(await page('status=confirming,refunded')), []);
    const btcFrom = created.filter((o) => o.coin_from === 'BTC');
    assert.deepEqual(ids(await page('coin_from=btc')), newestFirst(btcFrom));
    assert.deepEqual(ids(await page('coin_to=BTC')), newestFirst(created.filter((o) => o.coin_to === 'BTC')));
    assert.deepEqual(ids(await page('coin_from=BTC&coin_to=BTC')), []);

    const times = [...new Set(created.map((o) => String(o.created_at)))].sort();
    const [earliest, second] = times;
    assert.ok(earliest !== undefined && second !== undefined);
    assert.deepEqual(ids(await page(`created_before=${second}`)), newestFirst(created.filter((o) => String(o.created_at) < second)));
    assert.deepEqual(ids(await page(`created_after=${earliest}`)), newestFirst(created.filter((o) => String(o.created_at) > earliest)));
    assert.deepEqual(
      ids(await page(`created_after=${earliest}&created_before=${times[times.length - 1] ?? ''}&coin_from=BTC`)),
      newestFirst(btcFrom.filter((o) => String(o.created_at) > earliest && String(o.created_at) < (times[times.length - 1] ?? ''))),
    );
  });

  it('a waiting order past expires_at is listed as expired, under status=expired and not under waiting_deposit', async () => {
    const waiting = (await page('status=waiting_deposit&limit=100')).orders.length;
    assert.equal(waiting, created.length - 1);
    await advance(h, WINDOW_MS);
    try {
        const expired = await page('status=expired&limit=100');
        assert.equal(expired.orders.length, waiting);
        assert.ok(expired.orders.every((order) => order.status === 'expired'));
        assert.deepEqual(ids(await page('status=waiting_deposit')), []);
    } finally {
      h.clock.advance(-WINDOW_MS);
      await h.t.runtime.prices.refresh();
    }
  });

  it('search: exact match on id, short id (any case), deposit address, deposit txid, payout txid, recipient address', async () => {
    const target = created[3];
    assert.ok(target !== undefined);
    assert.deepEqual(ids(await page(`search=${target.id}`)), [target.id]);
    assert.deepEqual(ids(await page(`search=${target.id.toUpperCase()}`)), [target.id]);
    assert.deepEqual(ids(await page(`search=${target.short_id.toLowerCase()}`)), [target.id]);
    assert.deepEqual(ids(await page(`search=${encodeURIComponent(String(target.deposit_address))}`)), [target.id]);
    assert.ok(completed.deposit_txid !== null && completed.payout_txid !== null);
    assert.deepEqual(ids(await page(`search=${completed.deposit_txid}`)), [completed.id]);
    assert.deepEqual(ids(await page(`search=${completed.payout_txid}`)), [completed.id]);
    const recipient = String(target.recipient_address);
    assert.deepEqual(ids(await page(`search=${recipient}`)), newestFirst(created.filter((o) => o.recipient_address === recipient)));
    // Exact, not a prefix or substring.
    assert.deepEqual(ids(await page(`search=${target.id.slice(0, 8)}`)), []);
    assert.deepEqual(ids(await page(`search=${String(target.deposit_address).slice(1)}`)), []);
  });

  it('search: a hex address or hash in any case (EIP-55, lower, upper); bech32 and base58 exactly as stored', async () => {
    // An ETH→BTC order's deposit address is derived, so stored in EIP-55 mixed case.
    const eth = created.find((o) => o.coin_from === 'ETH');
    assert.ok(eth !== undefined);
    const evm = String(eth.deposit_address);
    assert.notEqual(evm, evm.toLowerCase());
    for (const spelling of [evm, evm.toLowerCase(), `0x${evm.slice(2).toUpperCase()}`, `0X${evm.slice(2).toLowerCase()}`]) {
      assert.deepEqual(ids(await page(`search=${spelling}`)), [eth.id], spelling);
    }
    // The recipient was sent in EIP-55 case: the lower-case spelling finds its orders too.
    const paidTo = created.filter((o) => o.recipient_address === ETH_RECIPIENT);
    assert.ok(paidTo.length > 0);
    assert.deepEqual(ids(await page(`search=${ETH_RECIPIENT.toLowerCase()}`)), newestFirst(paidTo));
    // Hashes (stored in lower case by the simulator, as nodes report them) in upper case.
    assert.deepEqual(ids(await page(`search=${String(completed.deposit_txid).toUpperCase()}`)), [completed.id]);
    assert.deepEqual(ids(await page(`search=${String(completed.payout_txid).toUpperCase()}`)), [completed.id]);
    // Not hex: exact. A bech32 recipient in another case, a base58 short-id-like text, a prefix.
    const bech32 = created.find((o) => o.coin_to === 'BTC');
    assert.ok(bech32 !== undefined);
    assert.deepEqual(ids(await page(`search=${String(bech32.recipient_address).toUpperCase()}`)), []);
    assert.deepEqual(ids(await page(`search=${evm.slice(0, 41)}`)), []);
  });

  it('plans: a hex search as an exact one (each search column\'s index, no sequential scan), the page in the list index\'s order (EXPLAIN)', async () => {
    const eth = created.find((o) => o.coin_from === 'ETH');
    assert.ok(eth !== undefined);
    const evm = String(eth.deposit_address);
    const rolledBack = new Error('rolled back on purpose');
    const plans: Record<string, string> = {};
    // In a transaction rolled back at the end: 5,000 more orders of the partner (copies of one,
    // other ids and search values) and fresh statistics, so the planner weighs the indexes as on
    // a real table (bench/order-list-plans.ts does it with 100,000 orders of 10 partners).
    const unbounded = unboundedDatabase(h.t.db);
    try {
    await assert.rejects(
      unbounded.db.transaction().execute(async (tx) => {
        await sql`
          insert into orders
          select (jsonb_populate_record(o, jsonb_build_object(
            'id', gen_random_uuid(), 'short_id', 'ZZ-' || upper(lpad(to_hex(i), 6, '0')), 'quote_id', null,
            'deposit_address', 'plan-deposit-' || i, 'recipient_address', 'plan-recipient-' || (i % 500),
            'status_token', md5(i::text) || md5(gen_random_uuid()::text)))).*
          from orders o, generate_series(1, 5000) i
          where o.id = ${eth.id}
        `.execute(tx);
        await sql`analyze orders`.execute(tx);
        for (const [name, search] of [['hex', evm.toLowerCase()], ['exact', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']]) {
          const compiled = partnerOrderListQuery(tx, h.partner.id, { sandbox: false, search }, { limit: 21, now: h.clock.now() }).compile();
          const result = await tx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (costs off) ${compiled.sql}`, [...compiled.parameters]));
          plans[name ?? ''] = result.rows.map((row) => row['QUERY PLAN']).join('\n');
        }
        // The page GET /partner/orders runs (the wire select), unfiltered.
        const page = partnerOrderListWireQuery(tx, h.partner.id, { sandbox: false }, { limit: 21, now: h.clock.now() }).compile();
        const pagePlan = await tx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (costs off) ${page.sql}`, [...page.parameters]));
        plans.page = pagePlan.rows.map((row) => row['QUERY PLAN']).join('\n');
        throw rolledBack;
      }),
      (error) => error === rolledBack,
    );
    } finally {
      await unbounded.close();
    }
    const hex = plans.hex ?? '';
    assert.doesNotMatch(hex, /Seq Scan/, hex);
    // One index per search column (migration 0067's, which the operator's search across partners shares).
    for (const index of ['orders_deposit_address_idx', 'orders_deposit_txid_idx', 'orders_payout_txid_idx', 'orders_recipient_address_idx']) {
      assert.match(hex, new RegExp(`Bitmap Index Scan on ${index}`), hex);
    }
    assert.match(hex, /deposit_address = ANY/, hex);
    // The same indexes as an exact (bech32) search's plan.
    const indexes = (text: string) => [...text.matchAll(/on (orders_\w+)/g)].map((match) => match[1]).sort();
    assert.deepEqual(indexes(hex), indexes(plans.exact ?? ''));
    // The unfiltered page walks the list index in its order and stops at the page: no Sort of
    // every order of the partner (the wire select names its to_char text created_at; an
    // ORDER BY that meant that text sorted them all).
    const page = plans.page ?? '';
    assert.match(page, /Index Scan Backward using orders_partner_list_idx/, page);
    assert.doesNotMatch(page, /Sort/, page);
  });

  it('never another partner\'s order: its own list, a search by id, a filter', async () => {
    const theirs = await page('', other.apiKey);
    assert.equal(theirs.orders.length, 1);
    const target = created[0];
    assert.ok(target !== undefined);
    assert.deepEqual(ids(await page(`search=${target.id}`, other.apiKey)), []);
    assert.ok(!ids(await page('coin_from=BTC&limit=100', other.apiKey)).some((id) => created.some((o) => o.id === id)));
  });

  it('400: a cursor altered, made up, or given to another key; bad filters', async () => {
    const { next_cursor: cursor } = await page('limit=2');
    assert.ok(cursor !== null);
    const [payload = '', mac = ''] = cursor.split('.');
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    for (const bad of [flip(cursor, 0), `${payload}.${flip(mac, 3)}`, `${payload}.`, 'x', `${cursor}.x`, `${Buffer.from(`0.${created[0]?.id ?? ''}`).toString('base64url')}.${mac}`]) {
      assertError(await list(`cursor=${encodeURIComponent(bad)}`), 400, 'bad_request');
    }
    const foreign = assertError(await list(`cursor=${encodeURIComponent(cursor)}`, other.apiKey), 400, 'bad_request');
    assert.match(foreign.detail, /cursor/);
    assertError(await list('status=paid'), 400, 'bad_request');
    assertError(await list('status=completed,'), 400, 'bad_request');
    assertError(await list('limit=0'), 400, 'bad_request');
    assertError(await list('limit=101'), 400, 'bad_request');
    assertError(await list('created_after=yesterday'), 400, 'bad_request');
    assertError(await list('sort=asc'), 400, 'bad_request');
    assert.equal((await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/orders' })).statusCode, 401);
  });

  it('stable while orders are being created: every order that existed at the first page is seen exactly once', async () => {
    const existing = ids(await page('limit=100'));
    let inserting = true;
    let inserted = 0;
    // Another task creates orders the whole time, some in the same millisecond as the pages' rows.
    const inserter = (async () => {
      while (inserting) {
        await createOrder(h);
        inserted += 1;
        if (inserted % 3 === 0) await advance(h, 1);
      }
    })();
    const seen: string[] = [];
    let cursor: string | null = null;
    try {
      do {
        const p: Page = await page(`limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        seen.push(...ids(p));
        cursor = p.next_cursor;
        // At least one order is created between two pages (bounded: the inserter may have failed).
        const before = inserted;
        for (let waited = 0; inserted === before && waited < 10_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
      } while (cursor !== null);
    } finally {
      inserting = false;
      await inserter;
    }
    assert.ok(inserted >= 3, `only ${inserted} orders were created while paging`);
    assert.equal(new Set(seen).size, seen.length, 'an order was listed twice');
    for (const id of existing) assert.ok(seen.includes(id), `order ${id} that existed at the first page was skipped`);
  });
});
