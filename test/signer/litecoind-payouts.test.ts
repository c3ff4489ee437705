import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bech32 } from '@scure/base';
import { parse } from 'lossless-json';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal } from '../../src/domain/money.js';
import { BitcoinPayer } from '../../src/signer/bitcoin/bitcoin-payer.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { newMnemonics } from '../../src/signer/key-file.js';
import { PayoutLoop, type PayoutLoopHooks } from '../../src/signer/payout-loop.js';
import { parseSignerPolicy } from '../../src/signer/policy.js';
import { startLitecoind, type Litecoind } from '../helpers/litecoind-node.js';
import { litecoindSkip } from '../helpers/requirements.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';

/**
 * Issue 28, DESIGN §11.2: live payouts on LTC made by the signer on a real litecoind (regtest),
 * from a hot wallet whose keys are made here. The deposit side is the simulator (BTC): what is
 * real here is everything after the exchange: the claim, the policy, the signature, the stored
 * transaction, the broadcast, the confirmation and the order completing with the mined txid.
 */

const production = testEngine() !== 'postgres' ? 'real payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;

const SIGNER_FOLLOW_MS = 2000;
const BTC_CONFIRMATIONS = 2;

interface OrderJson {
  id: string;
  status: string;
  status_reason: string | null;
  amount_to_final: string | null;
  payout_txid: string | null;
  [field: string]: unknown;
}

describe('real LTC payouts signed by the signer on litecoind (regtest)', { skip: production || litecoindSkip() }, () => {
  let ltc: Litecoind;
  let t: TestApp;
  let apiKey: string;
  const clock = new ManualClock();
  const hot = new HotWallet(newMnemonics());
  const logs: string[] = [];
  const logger = { info: (o: object, m: string) => logs.push(`info ${m} ${JSON.stringify(o)}`), warn: (o: object, m: string) => logs.push(`warn ${m} ${JSON.stringify(o)}`), error: (o: object, m: string) => logs.push(`error ${m} ${JSON.stringify(o)}`) };
  const policy = parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '50', SIGNER_MAX_DAILY_LTC: '1000' });

  const makeLoop = async (hooks: PayoutLoopHooks = {}, limits = policy): Promise<PayoutLoop> => {
    const payer = await BitcoinPayer.create('LTC', hot.account('LTC'), ltc.rpcUrl, {
      fees: { min: new Decimal(1), max: new Decimal(100), targetBlocks: 6 },
      batchMax: 50,
      walletBirthday: 0,
      onBoundedFee: () => undefined,
    });
    await payer.start(t.db.handle.db);
    return new PayoutLoop(t.db.handle.db, [payer], limits, { batchIntervalMs: 0, confirmations: 1, intervalMs: 50 }, () => clock.now(), logger, hooks);
  };

  /** A fresh address of litecoind's test wallet, as regtest and as the API (mainnet) spell it. */
  const recipient = async (): Promise<{ regtest: string; mainnet: string }> => {
    const regtest = await ltc.rpc<string>('getnewaddress', ['', 'bech32']);
    const { words } = bech32.decode(regtest as `${string}1${string}`);
    return { regtest, mainnet: bech32.encode('ltc', words) };
  };

  /** What the test wallet holds at `address` in outputs with at least one confirmation. */
  const received = async (address: string): Promise<Decimal> => {
    const utxos = await ltc.rpc<{ amount: string }[]>('listunspent', [1, 9_999_999, [address]]);
    return utxos.reduce((sum, utxo) => sum.plus(utxo.amount), new Decimal(0));
  };

  const getOrder = async (id: string): Promise<OrderJson> => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    return parse(res.body, null, (literal: string) => literal) as OrderJson;
  };

  /** A BTC → LTC order to `address`, deposited and confirmed on the simulator, moved to sending. */
  const orderInSending = async (address: string, amountFrom = '0.01'): Promise<OrderJson> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'LTC', network_to: 'LTC', amount_from: amountFrom, rate_type: 'float', recipient_address: address },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/deposit`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/confirmations`, { count: BTC_CONFIRMATIONS })).statusCode, 200);
    return getOrder(id);
  };

  /** Worker passes (the clock moved past each follow-up) until every order reads `status`. */
  const workUntil = async (ids: readonly string[], status: string): Promise<void> => {
    for (let i = 0; i < 10; i++) {
      await t.runtime.worker.tick();
      const statuses = await Promise.all(ids.map(async (id) => (await getOrder(id)).status));
      if (statuses.every((s) => s === status)) return;
      clock.advance(SIGNER_FOLLOW_MS);
      await t.runtime.prices.refresh();
    }
    const left = await Promise.all(ids.map(async (id) => `${id}: ${(await getOrder(id)).status}`));
    assert.fail(`not all ${status}: ${left.join(', ')}\n${t.logs.filter((line) => /"level":(40|50)/.test(line)).slice(-5).join('\n')}\n${logs.slice(-5).join('\n')}`);
  };

  const payoutRow = (orderId: string) =>
    t.db.handle.db.selectFrom('payouts').selectAll().where('order_id', '=', orderId).where('kind', '=', 'payout').executeTakeFirstOrThrow();

  before(async () => {
    ltc = await startLitecoind();
    t = await buildTestApp({
      production: true,
      clock,
      env: { WORKER: 'off', SIMULATOR_AUTO: '0', PRICE_POLL_SECONDS: '3600', PAYOUT_SIGNER_CHAINS: 'LTC', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin },
    });
    ({ apiKey } = await t.createPartner());
    // The float: 40 LTC in two coins to the hot wallet's funding address, mined (the blocks
    // before make the test wallet's coinbase coins spendable).
    await ltc.mine(5);
    const funding = hot.fundingAddress('LTC', 'regtest');
    await ltc.rpc('sendtoaddress', [funding, '20']);
    await ltc.rpc('sendtoaddress', [funding, '20']);
    await ltc.mine(1);
  });

  after(async () => {
    await t?.close();
    await ltc?.close();
  });

  it('LTC is offered for live orders only because the signer pays it (PAYOUT_SIGNER_CHAINS)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies' });
    const rows = res.json<{ coin: string; network: string; is_withdraw_enabled: boolean }[]>();
    assert.equal(rows.find((row) => row.coin === 'LTC' && row.network === 'LTC')?.is_withdraw_enabled, true);
    assert.equal(rows.find((row) => row.coin === 'ETH' && row.network === 'ETH')?.is_withdraw_enabled, false);
  });

  it('a payout is signed, stored, broadcast, mined, and the order completes with the mined txid and exact amount', async () => {
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    let row = await payoutRow(order.id);
    assert.equal(row.payer, 'signer');
    assert.equal(row.status, 'requested');

    // The worker never pays it: passes leave it requested and the order sending.
    await workUntil([order.id], 'sending');
    assert.equal((await payoutRow(order.id)).status, 'requested');

    const loop = await makeLoop();
    await loop.pass();
    row = await payoutRow(order.id);
    assert.equal(row.status, 'broadcast', JSON.stringify(row));
    assert.ok(row.txid !== null);
    const mempool = await ltc.rpc<string[]>('getrawmempool');
    assert.ok(mempool.includes(row.txid), `${row.txid} in the mempool`);

    await ltc.mine(1);
    await loop.pass();
    row = await payoutRow(order.id);
    assert.equal(row.status, 'confirmed');
    assert.ok(row.fee !== null && new Decimal(row.fee).gt(0), 'its share of the network fee is recorded');

    await workUntil([order.id], 'completed');
    const done = await getOrder(order.id);
    assert.equal(done.payout_txid, row.txid);
    assert.ok(done.amount_to_final !== null);
    assert.equal((await received(to.regtest)).toFixed(), new Decimal(done.amount_to_final).toFixed(), 'the recipient got exactly amount_to_final');
  });

  it('20 payouts requested together are mined in one transaction', async () => {
    const recipients = await Promise.all(Array.from({ length: 20 }, () => recipient()));
    const orders = [];
    for (const to of recipients) orders.push(await orderInSending(to.mainnet, '0.001'));
    await workUntil(orders.map((order) => order.id), 'sending');

    const loop = await makeLoop();
    await loop.pass();
    await ltc.mine(1);
    await loop.pass();
    await workUntil(orders.map((order) => order.id), 'completed');

    const txids = new Set(await Promise.all(orders.map(async (order) => (await getOrder(order.id)).payout_txid)));
    assert.equal(txids.size, 1, `mined in ${txids.size} transactions`);
    for (const [i, to] of recipients.entries()) {
      const done = await getOrder(orders[i]!.id);
      assert.equal((await received(to.regtest)).toFixed(), new Decimal(done.amount_to_final!).toFixed());
    }
  });

  it('a crash after the transaction is stored broadcasts the same bytes on restart: one txid, paid once', async () => {
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    let stored: string | undefined;
    const crashing = await makeLoop({
      afterStore: (txid) => {
        stored = txid;
        throw new Error('killed after store');
      },
    });
    await crashing.pass();
    assert.ok(stored !== undefined);
    let row = await payoutRow(order.id);
    assert.equal(row.status, 'signed');
    assert.equal(row.txid, stored);
    assert.equal((await ltc.rpc<string[]>('getrawmempool')).includes(stored), false, 'not broadcast before the crash');

    // A new signer process: it finds the stored transaction and sends it, never signing anew.
    const restarted = await makeLoop();
    await restarted.pass();
    await ltc.mine(1);
    await restarted.pass();
    row = await payoutRow(order.id);
    assert.equal(row.status, 'confirmed');
    assert.equal(row.txid, stored);
    const transactions = await t.db.handle.db.selectFrom('payout_transactions').select('txid').where('id', '=', row.transaction_id!).execute();
    assert.deepEqual(transactions.map((tx) => tx.txid), [stored]);
    await workUntil([order.id], 'completed');
    const done = await getOrder(order.id);
    assert.equal((await received(to.regtest)).toFixed(), new Decimal(done.amount_to_final!).toFixed(), 'paid exactly once');
  });

  it('a payout above SIGNER_MAX_PAYOUT is never signed: it fails with the policy reason and the order fails', async () => {
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    const strict = await makeLoop({}, parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '0.0001', SIGNER_MAX_DAILY_LTC: '1' }));
    await strict.pass();
    const row = await payoutRow(order.id);
    assert.equal(row.status, 'failed');
    assert.match(row.failure_reason ?? '', /^policy: above SIGNER_MAX_PAYOUT_LTC/);
    assert.equal(row.txid, null);
    await workUntil([order.id], 'failed');
    assert.equal((await getOrder(order.id)).status_reason, 'payout_failed');
    assert.equal((await received(to.regtest)).toFixed(), '0');
  });
});
