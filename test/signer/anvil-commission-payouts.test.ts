// test-engines: postgres (scripts/run-tests.ts): real payouts need DATABASE_URL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { insertPayoutAddress } from '../../src/db/repositories/commission-payouts-repository.js';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal, toBaseUnits } from '../../src/domain/money.js';
import { EvmPayer } from '../../src/signer/evm/evm-payer.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { newMnemonics } from '../../src/signer/key-file.js';
import { PayoutLoop } from '../../src/signer/payout-loop.js';
import { parseSignerPolicy } from '../../src/signer/policy.js';
import { anvilSkip, startAnvil, type Anvil } from '../helpers/anvil-node.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { buildPayoutsTestApp } from './payouts-test-app.js';

/**
 * Commission payouts (docs/contract.md §11.6) on a real EVM node: two partners earn ETH commission in
 * November from orders the signer pays out on anvil; on December 1st the operator pays November:
 * one signer payout per partner, mined on anvil, each recipient getting exactly what the ledger
 * credited the partner; run again, nothing more is paid. The ledger posts each payout in the
 * statement that confirms it and the books still balance.
 */

const production = testEngine() !== 'postgres' ? 'real payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;

const WEI_PER_ETH = 10n ** 18n;
const GWEI = 10n ** 9n;
const BTC_CONFIRMATIONS = 2;
const SIGNER_FOLLOW_MS = 2000;

interface RunJson {
  period: string;
  payouts: { partner_id: string; asset: string; amount: string; payout_id: string; address: string; status: string; txid: string | null; created: boolean }[];
  skipped: { partner_id: string; asset: string; amount: string; reason: string }[];
}

describe('commission payouts for two partners, mined on anvil, paid once when run twice', { skip: production || anvilSkip() }, () => {
  let node: Anvil;
  let chain: PublicClient;
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-11-10T12:00:00.000Z'));
  const hot = new HotWallet(newMnemonics());
  const logs: string[] = [];
  const policy = parseSignerPolicy({ SIGNER_MAX_PAYOUT_ETH: '50', SIGNER_MAX_DAILY_ETH: '1000' });
  const hotAddress = (): Address => hot.fundingAddress('ETH') as Address;
  let loop: PayoutLoop;

  const recipient = (): Address => privateKeyToAccount(generatePrivateKey()).address;
  const db = () => t.db.handle.db;

  /** A BTC → ETH order of the partner, deposited on the simulator and paid out by the signer on anvil. */
  const completedOrder = async (apiKey: string): Promise<string> => {
    await t.runtime.prices.refresh();
    await t.runtime.liquidity.refresh();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: '0.05', rate_type: 'float', recipient_address: recipient() },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/deposit`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/confirmations`, { count: BTC_CONFIRMATIONS })).statusCode, 200);
    for (let i = 0; i < 12; i++) {
      await t.runtime.worker.tick();
      await loop.pass();
      const status = (await db().selectFrom('orders').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
      if (status === 'completed') return id;
      clock.advance(SIGNER_FOLLOW_MS);
      await t.runtime.prices.refresh();
    }
    assert.fail(`order ${id} not completed\n${logs.slice(-5).join('\n')}`);
  };

  /** The partner's partner_commission balance in ETH (credit negative), exact. */
  const owed = async (partnerId: string): Promise<Decimal> => {
    const rows = await db()
      .selectFrom('ledger_entries')
      .select('amount')
      .where('account', '=', 'partner_commission')
      .where('asset', '=', 'ETH')
      .where('partner_id', '=', partnerId)
      .execute();
    return rows.reduce((sum, row) => sum.plus(row.amount), new Decimal(0)).negated();
  };

  const pay = async (period: string): Promise<RunJson> => {
    const res = await t.admin('POST', '/admin/v1/commissions/payouts', { period });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<RunJson>();
  };

  before(async () => {
    node = await startAnvil();
    chain = createPublicClient({ transport: http(node.rpcUrl), cacheTime: 0 });
    t = await buildPayoutsTestApp(clock, { PAYOUT_SIGNER_CHAINS: 'ETH', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin });
    await node.send({ to: hotAddress(), value: 1000n * WEI_PER_ETH });
    const payer = await EvmPayer.create('ETH', hot.account('ETH'), node.rpcUrl, { fees: { minPriorityFee: GWEI / 100n, maxFee: 500n * GWEI }, replaceAfterBlocks: 3, onBoundedFee: () => undefined });
    await payer.start();
    loop = new PayoutLoop(db(), [payer], policy, { batchIntervalMs: 0, confirmations: 1, intervalMs: 50 }, () => clock.now(), recordingLogger(logs));
    // The first pass publishes what the hot wallet can pay (quotes need it).
    await loop.pass();
  });

  after(async () => {
    await t?.close();
    await node?.close();
  });

  it('pays November to each partner address in force, exactly the commission the ledger credited; the second run pays nothing more', async () => {
    const ann = await t.createPartner({ name: 'Ann Wallet', markup_bps: 100 });
    const bob = await t.createPartner({ name: 'Bob Wallet', markup_bps: 50 });
    const cyd = await t.createPartner({ name: 'Cyd Wallet (no address)', markup_bps: 30 });
    await completedOrder(ann.apiKey);
    await completedOrder(ann.apiKey);
    await completedOrder(bob.apiKey);
    await completedOrder(cyd.apiKey);
    const earned = { ann: await owed(ann.id), bob: await owed(bob.id), cyd: await owed(cyd.id) };
    assert.ok(earned.ann.gt(0) && earned.bob.gt(0) && earned.cyd.gt(0), JSON.stringify(earned));

    // Ann and Bob have an address in force (set in the cabinet more than 24 hours ago); Cyd none.
    const annTo = recipient();
    const bobTo = recipient();
    for (const [partner, address] of [[ann.id, annTo], [bob.id, bobTo]] as const) {
      const eth = await db().selectFrom('currencies').select('id').where('coin', '=', 'ETH').where('network', '=', 'ETH').executeTakeFirstOrThrow();
      await insertPayoutAddress(db(), { partner_id: partner, currency_id: eth.id, address, tag: null, requested_by: null, requested_at: new Date('2026-11-01T00:00:00Z'), effective_at: new Date('2026-11-02T00:00:00Z') });
    }

    // November is not over yet: nothing is paid.
    const early = await t.admin('POST', '/admin/v1/commissions/payouts', { period: '2026-11' });
    assert.equal(early.statusCode, 400, early.body);
    assert.match(early.json<{ detail: string }>().detail, /not over yet/);

    clock.set(new Date('2026-12-01T00:00:05.000Z'));
    const first = await pay('2026-11');
    assert.equal(first.payouts.length, 2, JSON.stringify(first));
    const annLine = first.payouts.find((line) => line.partner_id === ann.id);
    const bobLine = first.payouts.find((line) => line.partner_id === bob.id);
    assert.equal(annLine?.amount, earned.ann.toFixed());
    assert.equal(bobLine?.amount, earned.bob.toFixed());
    assert.equal(annLine?.address, annTo);
    assert.ok(first.payouts.every((line) => line.created && line.status === 'requested' && line.asset === 'ETH'));
    assert.deepEqual(first.skipped, [{ partner_id: cyd.id, asset: 'ETH', amount: earned.cyd.toFixed(), reason: 'no_payout_address' }]);

    // The signer signs and broadcasts (anvil mines at once), then confirms.
    const minedBefore = await chain.getTransactionCount({ address: hotAddress(), blockTag: 'latest' });
    await loop.pass();
    await loop.pass();
    const rows = await db().selectFrom('payouts').selectAll().where('kind', '=', 'commission').orderBy('amount').execute();
    assert.equal(rows.length, 2);
    for (const row of rows) assert.equal(row.status, 'confirmed', JSON.stringify(row));
    assert.equal(await chain.getTransactionCount({ address: hotAddress(), blockTag: 'latest' }), minedBefore + 2, 'two transactions mined');
    assert.equal(await chain.getBalance({ address: annTo }), toBaseUnits(earned.ann, 18), 'Ann got exactly her commission, to the wei');
    assert.equal(await chain.getBalance({ address: bobTo }), toBaseUnits(earned.bob, 18));

    // Posted with the confirmation: nothing owed to Ann and Bob, Cyd's still owed; the books balance.
    assert.equal((await owed(ann.id)).toFixed(), '0');
    assert.equal((await owed(bob.id)).toFixed(), '0');
    assert.equal((await owed(cyd.id)).toFixed(), earned.cyd.toFixed());
    const postings = await db().selectFrom('ledger_transactions').selectAll().where('kind', '=', 'commission_payout').execute();
    assert.deepEqual(new Set(postings.map((row) => row.payout_id)), new Set(rows.map((row) => row.id)));
    const trial = await t.admin('GET', '/admin/v1/ledger/trial-balance');
    assert.equal(trial.statusCode, 200);
    for (const total of Object.values(trial.json<{ totals: Record<string, string> }>().totals)) assert.equal(new Decimal(total).toFixed(), '0');
    // The ledger's hot wallet is what anvil says it holds, to the wei: payouts and their fees included.
    const hotLedger = await db().selectFrom('ledger_entries').select('amount').where('account', '=', 'hot_wallet').where('asset', '=', 'ETH').execute();
    const funded = new Decimal(1000);
    const ledgerHeld = hotLedger.reduce((sum, row) => sum.plus(row.amount), funded);
    assert.equal(toBaseUnits(ledgerHeld, 18), await chain.getBalance({ address: hotAddress() }));

    // Run again (the CLI's `commissions pay --period 2026-11` is this call): the same payouts, none made, nothing signed.
    const second = await pay('2026-11');
    assert.equal(second.payouts.length, 2);
    assert.ok(second.payouts.every((line) => !line.created && line.status === 'confirmed' && line.txid !== null));
    await loop.pass();
    assert.equal(await chain.getTransactionCount({ address: hotAddress(), blockTag: 'latest' }), minedBefore + 2, 'nothing more sent');
    assert.equal(await chain.getBalance({ address: annTo }), toBaseUnits(earned.ann, 18));

    // The database holds it too, whatever the code does: a second row for the period is refused.
    await assert.rejects(
      db()
        .insertInto('payouts')
        .values({ kind: 'commission', order_id: null, partner_id: ann.id, period: '2026-11', currency_id: rows[0]!.currency_id, chain: 'ETH', address: annTo, tag: null, amount: '1', payer: 'signer', created_at: clock.now() })
        .execute(),
      /payouts_commission_once_idx|duplicate key/,
    );
    // Each run is in the operator audit log.
    const audit = await db().selectFrom('operator_audit').select(['action', 'status']).where('action', '=', 'POST /admin/v1/commissions/payouts').execute();
    assert.deepEqual(audit.map((row) => row.status).sort(), [200, 200, 400]);
  });
});
