import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { insertOpeningLines } from '../../src/db/migrations/0057-ledger-opening.js';
import type { Database } from '../../src/db/schema/index.js';
import { Decimal } from '../../src/domain/money.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import {
  createOrder,
  depositAndRun,
  fixedQuote,
  getOrder,
  simulateDeposit,
  startHarness,
  storedOrder,
  type Harness,
} from '../lifecycle/lifecycle-helpers.js';

/**
 * The books of docs/contract.md §11.4 kept by the database (migration 0056) and posted by the order
 * moves (domain/ledger.ts, in OrderLifecycle's transaction): a ledger transaction that does not
 * balance per asset cannot commit, the tables are append-only, and each move of an order's
 * path posts its lines, exactly.
 */

type Line = { account: string; asset: string; amount: string };

async function transfer(db: Kysely<Database>, lines: Line[]): Promise<string> {
  const id = randomUUID();
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('ledger_transactions').values({ id, kind: 'transfer', order_id: null, memo: 'test', actor: 'test', created_at: new Date() }).execute();
    for (const line of lines) {
      await tx.insertInto('ledger_entries').values({ transaction_id: id, order_id: null, partner_id: null, ...line } as never).execute();
    }
  });
  return id;
}

describe('ledger: the database keeps the books', () => {
  let database: TestDatabase;
  let db: Kysely<Database>;
  before(async () => {
    database = await createTestDatabase();
    db = database.handle.db;
  });
  after(() => database.drop());

  const count = async () => Number((await sql<{ n: string }>`select count(*) as n from ledger_entries`.execute(db)).rows[0]?.n);

  it('commits a transaction that balances in every asset, lines in any order, to the last decimal', async () => {
    await transfer(db, [
      { account: 'hot_wallet', asset: 'BTC', amount: '0.000000000000000000000000000001' },
      { account: 'hot_wallet', asset: 'ETH', amount: '12.5' },
      { account: 'equity', asset: 'ETH', amount: '-12.5' },
      { account: 'equity', asset: 'BTC', amount: '-0.000000000000000000000000000001' },
    ]);
    const stored = await db.selectFrom('ledger_entries').select(['asset', 'amount']).where('asset', '=', 'BTC').orderBy('id').execute();
    assert.deepEqual(stored.map((row) => row.amount), ['0.000000000000000000000000000001', '-0.000000000000000000000000000001']);
  });

  it('refuses at commit a transaction that does not balance in one asset, and keeps nothing of it', async () => {
    const before = await count();
    await assert.rejects(
      transfer(db, [
        { account: 'hot_wallet', asset: 'BTC', amount: '1' },
        { account: 'equity', asset: 'BTC', amount: '-1' },
        { account: 'hot_wallet', asset: 'ETH', amount: '1' },
        { account: 'equity', asset: 'ETH', amount: '-0.999999999999999999999' },
      ]),
      /does not balance: ETH 0\.000000000000000000001/,
    );
    // Balanced in sum over assets, not in each: still refused.
    await assert.rejects(
      transfer(db, [
        { account: 'hot_wallet', asset: 'BTC', amount: '1' },
        { account: 'equity', asset: 'ETH', amount: '-1' },
      ]),
      /does not balance: BTC 1, ETH -1/,
    );
    assert.equal(await count(), before);
  });

  it('refuses a transaction without lines, a line of zero, an unknown account, payable without its order', async () => {
    await assert.rejects(
      db.insertInto('ledger_transactions').values({ kind: 'transfer', order_id: null, memo: 'empty', actor: 'test', created_at: new Date() }).execute(),
      /has no entries/,
    );
    await assert.rejects(transfer(db, [{ account: 'hot_wallet', asset: 'BTC', amount: '0' }]), /ledger_entries_amount_check/);
    await assert.rejects(
      transfer(db, [{ account: 'cash', asset: 'BTC', amount: '1' }, { account: 'equity', asset: 'BTC', amount: '-1' }]),
      /ledger_entries_account_check/,
    );
    await assert.rejects(
      transfer(db, [{ account: 'payable', asset: 'BTC', amount: '1' }, { account: 'equity', asset: 'BTC', amount: '-1' }]),
      /ledger_entries_check/,
    );
  });

  it('refuses to update, delete or truncate either table: a correction is a new entry', async () => {
    const id = await transfer(db, [{ account: 'hot_wallet', asset: 'LTC', amount: '2' }, { account: 'equity', asset: 'LTC', amount: '-2' }]);
    await assert.rejects(db.updateTable('ledger_entries').set({ amount: '3' }).where('transaction_id', '=', id).execute(), /append-only: update refused/);
    await assert.rejects(db.deleteFrom('ledger_entries').where('transaction_id', '=', id).execute(), /append-only: delete refused/);
    await assert.rejects(db.updateTable('ledger_transactions').set({ memo: 'x' }).where('id', '=', id).execute(), /append-only: update refused/);
    await assert.rejects(db.deleteFrom('ledger_transactions').where('id', '=', id).execute(), /append-only: delete refused/);
    await assert.rejects(sql`truncate ledger_entries, ledger_transactions`.execute(db), /append-only: truncate refused/);
    const rows = await db.selectFrom('ledger_entries').select('amount').where('transaction_id', '=', id).execute();
    assert.deepEqual(rows.map((row) => row.amount).sort(), ['-2', '2']);
  });
});

describe('ledger: the order moves post their lines in their own transaction', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '0' });
    const res = await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: 137 });
    assert.equal(res.statusCode, 200, res.body);
  });
  after(() => h.t.close());

  async function postings(orderId: string) {
    const rows = await h.t.db.handle.db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
      .select(['t.kind', 'e.account', 'e.asset', 'e.amount', 'e.order_id', 'e.partner_id'])
      .where('t.order_id', '=', orderId)
      .orderBy('e.id')
      .execute();
    for (const row of rows) {
      assert.equal(row.order_id, orderId);
      assert.equal(row.partner_id, h.partner.id);
    }
    return rows.map((row) => `${row.kind} ${row.account} ${row.asset} ${row.amount}`);
  }

  it('completed: the deposit at its confirmation, the exchange at its fill, the payout when sent', async () => {
    const order = await createOrder(h, { amount_from: '0.5' });
    await depositAndRun(h, order.id, 'completed');
    const row = await storedOrder(h, order.id);
    const fee = row.partner_fee ?? '0';
    assert.ok(new Decimal(fee).gt(0), 'the markup earns the partner a commission');
    const toRevenue = new Decimal(row.amount_to_final ?? '0').plus(fee).toFixed();
    assert.deepEqual(await postings(order.id), [
      'deposit deposits BTC 0.5',
      'deposit payable BTC -0.5',
      'exchange payable BTC 0.5',
      'exchange revenue BTC -0.5',
      `exchange revenue ETH ${toRevenue}`,
      `exchange payable ETH -${row.amount_to_final}`,
      `exchange partner_commission ETH -${fee}`,
      `payout payable ETH ${row.amount_to_final}`,
      `payout hot_wallet ETH -${row.amount_to_final}`,
    ]);
  });

  it('nothing before the deposit is confirmed; a seen deposit that is dropped posts nothing', async () => {
    const order = await createOrder(h);
    await simulateDeposit(h, order.id, { amount: '0.3' });
    await h.t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'confirming');
    assert.deepEqual(await postings(order.id), []);
  });

  it('refunded: a fixed order paid short owes its deposit back, and the refund settles it', async () => {
    const order = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
    const paid = new Decimal(order.amount_from_expected).times('0.9').toFixed();
    await depositAndRun(h, order.id, 'refunded', { amount: paid });
    assert.deepEqual(await postings(order.id), [
      `deposit deposits BTC ${paid}`,
      `deposit payable BTC -${paid}`,
      `refund_owed payable BTC ${paid}`,
      `refund_owed refunds BTC -${paid}`,
      `refund refunds BTC ${paid}`,
      `refund hot_wallet BTC -${paid}`,
    ]);
  });

  it('a payout whose transaction reverted on chain: the order fails still owing it, and the spent fee is booked', async () => {
    const order = await createOrder(h, { amount_from: '0.2' });
    await depositAndRun(h, order.id, 'sending');
    const db = h.t.db.handle.db;
    // What the signer leaves behind when its EVM transaction is mined and reverts (signer-repository markReverted).
    const { id: transactionId } = await db
      .insertInto('payout_transactions')
      .values({ chain: 'ETH', txid: '0xreverted', raw: '0x00', fee: '0.000031337', state: 'mined', confirmations: 1, created_at: new Date(), mined_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .updateTable('payouts')
      .set({ payer: 'signer', status: 'failed', transaction_id: transactionId, txid: '0xreverted', failure_reason: 'reverted on chain: 0xreverted' })
      .where('order_id', '=', order.id)
      .execute();
    const failed = await h.t.runtime.lifecycle.apply(order.id, 'payout_failed', { reason: 'payout_failed' });
    assert.ok(failed.ok);
    const row = await storedOrder(h, order.id);
    const lines = await postings(order.id);
    assert.deepEqual(lines.slice(-2), ['network_fee network_fees ETH 0.000031337', 'network_fee hot_wallet ETH -0.000031337']);
    assert.ok(lines.includes(`exchange payable ETH -${row.amount_to_final}`), 'the payout is still owed');
    assert.ok(!lines.some((line) => line.startsWith('payout ')));
  });

  it('a payout settled without its payouts row (lost by hand) posts what the order says it sent, and the move commits', async () => {
    const order = await createOrder(h, { amount_from: '0.15' });
    await depositAndRun(h, order.id, 'sending');
    await h.t.db.handle.db.deleteFrom('payouts').where('order_id', '=', order.id).execute();
    const done = await h.t.runtime.lifecycle.apply(order.id, 'payout_sent', { changes: { payout_txid: '0xbyhand' } });
    assert.ok(done.ok);
    const row = await storedOrder(h, order.id);
    assert.deepEqual((await postings(order.id)).slice(-2), [`payout payable ETH ${row.amount_to_final}`, `payout hot_wallet ETH -${row.amount_to_final}`]);
  });

  it('a sandbox order posts to the sandbox: accounts', async () => {
    const res = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true });
    assert.equal(res.statusCode, 201, res.body);
    const sandboxKey = res.json<{ api_key: string }>().api_key;
    const order = await createOrder(h, {}, sandboxKey);
    await depositAndRun(h, order.id, 'completed', {}, sandboxKey);
    const lines = await postings(order.id);
    assert.equal(lines.length, 9, lines.join('\n'));
    for (const line of lines) assert.match(line, /^[a-z_]+ sandbox:[a-z_]+ /);
  });

  it('migration 0057 opens orders that predate the ledger with what their moves would have posted, balanced', async () => {
    const db = h.t.db.handle.db;
    const balances = async () =>
      (
        await sql<{ key: string; amount: string }>`
          select order_id || ' ' || account || ' ' || asset as key, sum(amount)::text as amount from ledger_entries
           group by order_id, account, asset having sum(amount) <> 0 order by 1`.execute(db)
      ).rows.map((row) => `${row.key} ${new Decimal(row.amount).toFixed()}`);
    const posted = await balances();
    assert.ok(posted.length > 10);
    // As an upgraded database is: the orders with their moves made, and no ledger at all.
    await db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx);
      await sql`delete from ledger_entries`.execute(tx);
      await sql`delete from ledger_transactions`.execute(tx);
      await insertOpeningLines(tx as unknown as Kysely<unknown>);
    });
    assert.deepEqual(await balances(), posted);
    const kinds = await db.selectFrom('ledger_transactions').select('kind').distinct().execute();
    assert.deepEqual(kinds.map((row) => row.kind), ['opening']);
    const unbalanced = await sql`select transaction_id, asset from ledger_entries group by transaction_id, asset having sum(amount) <> 0`.execute(db);
    assert.deepEqual(unbalanced.rows, []);
  });
});
