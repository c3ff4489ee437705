import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app-types.js';
import { peekDepositIndex } from '../../src/db/repositories/deposit-addresses-repository.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const BTC_ETH = {
  coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float',
  recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
};

interface Placed {
  id: string;
  address: string;
}

/**
 * Issue 36.6: after a restore the chains' index sequences are back where the backup left them;
 * the next orders must not get the addresses handed out after the backup. A "restore" here
 * removes what was written after the backup (the orders and their addresses) and puts the BTC
 * sequence back, as a restored database has it; a "restart" is a second app on that database.
 */
describe('deposit index resync after a restore (issue 36.6)', () => {
  let t: TestApp;
  let restarted: App | undefined;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', ADDRESS_RESYNC_GAP: '100' } });
    ({ apiKey } = await t.createPartner({ rate_limit_per_minute: 100_000 }));
  });
  after(async () => {
    await restarted?.close();
    await t.close();
  });

  const db = () => t.db.handle.db;

  async function place(app: App): Promise<Placed> {
    const res = await app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { authorization: `Bearer ${apiKey}` }, payload: BTC_ETH });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json<{ id: string; deposit_address: string }>();
    return { id: order.id, address: order.deposit_address };
  }

  /** What a restore of a backup taken when the sequence stood at `next` leaves: the later orders gone, the sequence back. */
  async function restore(next: number, later: readonly Placed[]): Promise<void> {
    const ids = later.map((order) => order.id);
    await db().transaction().execute(async (tx) => {
      // A restored database has no trace of them, in any table: foreign keys are not the point here.
      await sql`set local session_replication_role = replica`.execute(tx);
      await sql`delete from deposit_addresses where order_id = any(${ids}::uuid[])`.execute(tx);
      await sql`delete from orders where id = any(${ids}::uuid[])`.execute(tx);
    });
    await sql`select setval('deposit_index_btc', ${next}::bigint, false)`.execute(db());
  }

  it('a restart after a restore hands out no address twice; the operator route moves the sequences again', async () => {
    const first = await place(t.app);
    const afterBackup = [await place(t.app), await place(t.app)];
    // Indexes are drawn in blocks (deposit-address-stock.ts): the backup is taken as the
    // sequence stood before the later orders' indexes were drawn.
    const backupNext = Number(
      (await sql<{ n: string }>`select min(derivation_index) as n from deposit_addresses where order_id = any(${afterBackup.map((order) => order.id)}::uuid[])`.execute(db())).rows[0]?.n,
    );
    await restore(backupNext, afterBackup);

    // The restarted process (a second app on the restored database).
    restarted = await buildApp({ config: t.config, database: t.db.handle, logDestination: new Writable({ write: (_c, _e, cb) => cb() }) });
    await restarted.ready();
    const handedOut = new Set([first.address, ...afterBackup.map((order) => order.address)]);
    for (let i = 0; i < 5; i += 1) {
      const next = await place(restarted);
      assert.ok(!handedOut.has(next.address), `order ${i + 1} after the restore got ${next.address}, already handed out`);
      handedOut.add(next.address);
    }

    // By hand (npm run admin -- addresses resync): after another restore, on a running process.
    const highest = Number((await sql<{ n: string }>`select max(derivation_index) as n from deposit_addresses where chain = 'BTC'`.execute(db())).rows[0]?.n);
    await sql`select setval('deposit_index_btc', 0, false)`.execute(db());
    const res = await t.admin('POST', '/admin/v1/addresses/resync');
    assert.equal(res.statusCode, 200, res.body);
    const btc = res.json<{ chains: Array<{ chain: string; highest_index_known: number; next_index_before: number; next_index: number }> }>().chains.find(
      (chain) => chain.chain === 'BTC',
    );
    assert.deepEqual(btc, { chain: 'BTC', highest_index_known: highest, next_index_before: 0, next_index: highest + 101 });
    assert.equal(await peekDepositIndex(db(), 'BTC'), highest + 101);
    // Never back: a second resync leaves it.
    const again = await t.admin('POST', '/admin/v1/addresses/resync');
    assert.equal(again.json<{ chains: Array<{ chain: string; next_index: number }> }>().chains.find((chain) => chain.chain === 'BTC')?.next_index, highest + 101);
  });
});
