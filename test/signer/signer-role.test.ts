import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { reservedNextNonce, takeNonce } from '../../src/db/repositories/evm-nonce-repository.js';
import { chainCurrencies, chainReadings, publishChainReading, publishSpendable } from '../../src/db/repositories/hot-wallet-balance-repository.js';
import {
  claimRequestedPayouts,
  isReplaced,
  lockChain,
  peekChangeIndex,
  replacementFamily,
  reservedInputs,
  signedSince,
  startReplacementClock,
  takeChangeIndex,
  transactionsInFlight,
} from '../../src/db/repositories/signer-repository.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * Issue 28, docs/contract.md §11.1: the signer reaches PostgreSQL with its own role, whose grants
 * (migration 0051) cover the payout tables, the check view and the catalog only. A login role
 * made in `exchange_signer` runs every signer query and is refused everything else: a signer's
 * stolen credentials read no partner, key or order.
 */

const postgresOnly = testEngine() !== 'postgres' ? 'roles and grants are PostgreSQL: runs on the PostgreSQL pass' : false;

describe('the signer role: the payout tables and nothing else', { skip: postgresOnly }, () => {
  let database: TestDatabase;
  let signer: DatabaseHandle;
  const login = `signer_test_${randomBytes(4).toString('hex')}`;

  before(async () => {
    database = await createTestDatabase();
    await sql.raw(`create role ${login} login in role exchange_signer`).execute(database.handle.db);
    const url = new URL(database.url as string);
    url.username = login;
    url.password = '';
    signer = await openDatabase({ engine: 'postgres', url: url.toString(), poolSize: 2, connectTimeoutMs: 10_000 });
  });

  after(async () => {
    await signer?.close();
    if (database !== undefined) {
      await sql.raw(`drop owned by ${login}`).execute(database.handle.db);
      await sql.raw(`drop role ${login}`).execute(database.handle.db);
      await database.drop();
    }
  });

  it('runs every query of the signer', async () => {
    await signer.db.transaction().execute(async (tx) => {
      await lockChain(tx, 'LTC');
      assert.deepEqual(await claimRequestedPayouts(tx, 'LTC', 10), []);
      assert.equal(Number(await signedSince(tx, '00000000-0000-0000-0000-000000000000', new Date(0))), 0);
      assert.equal((await reservedInputs(tx, 'LTC')).size, 0);
      assert.equal(await takeChangeIndex(tx, 'LTC'), 0);
    });
    assert.equal(await peekChangeIndex(signer.db, 'LTC'), 1);
    assert.deepEqual(await transactionsInFlight(signer.db, 'LTC'), []);
  });

  it('reserves EVM nonces (migration 0052) and follows replacement families', async () => {
    const address = '0x00000000000000000000000000000000000000aa';
    await signer.db.transaction().execute(async (tx) => {
      await lockChain(tx, 'ETH');
      assert.equal(await reservedNextNonce(tx, 'ETH', address), undefined);
      await takeNonce(tx, 'ETH', address, 7n);
      await takeNonce(tx, 'ETH', address, 3n);
    });
    assert.equal(await reservedNextNonce(signer.db, 'ETH', address), 8n, 'taken once, never moved back');
    const none = '00000000-0000-0000-0000-000000000000';
    assert.deepEqual(await replacementFamily(signer.db, none), []);
    assert.equal(await isReplaced(signer.db, none), false);
  });

  it('writes what the hot wallets can pay and what it saw of each chain (migration 0054), and starts a replacement clock', async () => {
    const currencies = await chainCurrencies(signer.db, 'LTC');
    assert.ok(currencies.length > 0);
    const now = new Date();
    await publishSpendable(signer.db, 'LTC', new Map(currencies.map((currency) => [currency.id, '1.5'])), now);
    await publishSpendable(signer.db, 'LTC', new Map(currencies.map((currency) => [currency.id, '2'])), now);
    await publishChainReading(signer.db, { chain: 'LTC', fee_unit: 'sat/vB', fee_estimate: null, fee_used: '1', fee_bounds: ['missing'], node_behind: null }, now);
    const readings = await chainReadings(database.handle.db);
    assert.deepEqual(readings.map((row) => [row.chain, row.fee_bounds]), [['LTC', ['missing']]]);
    await startReplacementClock(signer.db, '00000000-0000-0000-0000-000000000000', 5n);
    // What the API reads is not the signer's to delete.
    await assert.rejects(sql`delete from hot_wallet_balances`.execute(signer.db), /permission denied/);
  });

  for (const table of ['partners', 'api_keys', 'orders', 'deposit_addresses', 'webhook_endpoints', 'cabinet_users']) {
    it(`is refused ${table}`, async () => {
      await assert.rejects(sql.raw(`select count(*) from ${table}`).execute(signer.db), /permission denied/);
    });
  }

  it('cannot insert a payout or change what one pays', async () => {
    await assert.rejects(
      sql`insert into payouts (order_id, kind, chain, address, amount, created_at) values (gen_random_uuid(), 'payout', 'LTC', 'x', 1, now())`.execute(signer.db),
      /permission denied/,
    );
    await assert.rejects(sql`delete from payouts`.execute(signer.db), /permission denied/);
    for (const column of ['address', 'amount', 'tag', 'order_id', 'payer', 'approved_by']) {
      await assert.rejects(sql.raw(`update payouts set ${column} = ${column}`).execute(signer.db), /permission denied/, column);
    }
    // The state columns it moves are its own.
    await sql`update payouts set status_reason = status_reason`.execute(signer.db);
  });
});
