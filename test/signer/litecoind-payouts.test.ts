// test-engines: postgres (scripts/run-tests.ts): real payouts need DATABASE_URL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'lossless-json';
import { nodeNetworkAddress } from '../../src/chains/nodes/node-network-address.js';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal } from '../../src/domain/money.js';
import { BitcoinPayer } from '../../src/signer/bitcoin/bitcoin-payer.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { newMnemonics } from '../../src/signer/key-file.js';
import { signedSince } from '../../src/db/repositories/signer-repository.js';
import { PayoutLoop, type PayoutLoopHooks } from '../../src/signer/payout-loop.js';
import { parseSignerPolicy } from '../../src/signer/policy.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { startLitecoind, type Litecoind } from '../helpers/litecoind-node.js';
import { litecoindSkip } from '../helpers/requirements.js';
import { ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { buildPayoutsTestApp, fundLitecoinFloat, standInReading } from './payouts-test-app.js';

/**
 * Issue 28, docs/contract.md §11.2: live payouts on LTC made by the signer on a real litecoind (regtest),
 * from a hot wallet whose keys are made here. The deposit side is the simulator (BTC): what is
 * real here is everything after the exchange: the claim, the policy, the signature, the stored
 * transaction, the broadcast, the confirmation and the order completing with the mined txid.
 */

const production = testEngine() !== 'postgres' ? 'real payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;

const SIGNER_FOLLOW_MS = 2000;
const BTC_CONFIRMATIONS = 2;
const LTC_CONFIRMATIONS = 6;

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
  const logger = recordingLogger(logs);
  const policy = parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '50', SIGNER_MAX_DAILY_LTC: '1000' });

  const makeLoop = async (hooks: PayoutLoopHooks = {}, limits = policy, confirmations = 1, now?: () => Date): Promise<PayoutLoop> => {
    const payer = await BitcoinPayer.create('LTC', hot.account('LTC'), ltc.rpcUrl, {
      fees: { min: new Decimal(1), max: new Decimal(100), targetBlocks: 6 },
      batchMax: 50,
      walletBirthday: 0,
      onBoundedFee: () => undefined,
      ...(now === undefined ? {} : { now }),
    });
    await payer.start(t.db.handle.db);
    return new PayoutLoop(t.db.handle.db, [payer], limits, { batchIntervalMs: 0, confirmations, intervalMs: 50 }, () => clock.now(), logger, hooks);
  };

  const recipient = () => ltc.recipient();

  /** One at a time: litecoind answers "Work queue depth exceeded" past 16 calls at once. */
  const recipientsOf = async (count: number): Promise<{ regtest: string; mainnet: string }[]> => {
    const list = [];
    for (let i = 0; i < count; i++) list.push(await recipient());
    return list;
  };

  /** What the test wallet holds at `address` in outputs with at least one confirmation. */
  const received = async (address: string): Promise<Decimal> => (await ltc.received(address)).amount;

  const getOrder = async (id: string): Promise<OrderJson> => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    return parse(res.body, null, (literal: string) => literal) as OrderJson;
  };

  /**
   * A BTC → LTC order to `address` (`amount`: amount_from, or `{ to }`: amount_to), deposited and
   * confirmed on the simulator, moved to sending. The API reads what the hot wallet can pay as
   * the last signer pass published it (docs/contract.md §11.7), as its timer would.
   */
  const orderInSending = async (address: string, amount: string | { to: string } = '0.01'): Promise<OrderJson> => {
    await t.runtime.liquidity.refresh();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: {
        coin_from: 'BTC', network_from: 'BTC', coin_to: 'LTC', network_to: 'LTC', rate_type: 'float', recipient_address: address,
        ...(typeof amount === 'string' ? { amount_from: amount } : { amount_to: amount.to }),
      },
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
    t = await buildPayoutsTestApp(clock, {
      // BTC is listed so LTC → BTC orders can be made for the refund test; no BTC payout is made here.
      PAYOUT_SIGNER_CHAINS: 'LTC,BTC',
      DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin,
      // LTC deposits are real too (the refund test): watched on the same litecoind.
      DEPOSIT_XPUB_LTC: createDemoXpubs().litecoin,
      CHAIN_LTC_RPC_URL: ltc.rpcUrl,
    });
    ({ apiKey } = await t.createPartner());
    // The float: 200 LTC in two coins.
    await fundLitecoinFloat(ltc, hot, ['100', '100']);
    // A first pass publishes what the hot wallet can pay: before it, LTC is quoted as unavailable.
    await (await makeLoop()).pass();
    // The refund test's LTC → BTC order needs a BTC reading: this test runs no BTC payer, so it
    // stands in for the signer's (one BTC spendable).
    await standInReading(t, 'BTC', '1', clock.now());
    await t.runtime.liquidity.refresh();
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

  it('the signer publishes what the hot wallet can pay, and a quote past it is 422 insufficient_liquidity (docs/contract.md §11.7)', async () => {
    const ltcCurrency = await t.db.handle.db.selectFrom('currencies').select('id').where('coin', '=', 'LTC').where('network', '=', 'LTC').executeTakeFirstOrThrow();
    const reading = await t.db.handle.db.selectFrom('hot_wallet_balances').selectAll().where('currency_id', '=', ltcCurrency.id).executeTakeFirstOrThrow();
    // The two confirmed coins the funding sent, nothing spent yet.
    assert.equal(new Decimal(reading.spendable).toFixed(), '200');
    assert.equal(reading.chain, 'LTC');
    const rate = (query: string) => t.app.inject({ method: 'GET', url: `/api/v1/partner/rates?coin_from=BTC&coin_to=LTC&${query}` });
    assert.equal((await rate('amount_to=150')).statusCode, 200);
    const short = await rate('amount_to=250');
    assert.equal(short.statusCode, 422, short.body);
    const body = short.json<{ code: string; errors: { code: string; field: string; detail: string }[] }>();
    assert.equal(body.code, 'pair_unavailable');
    assert.deepEqual(body.errors.map((item) => [item.code, item.field]), [['insufficient_liquidity', 'coin_to']]);
    // The partner learns it cannot be paid now, never how much the wallet holds.
    assert.doesNotMatch(short.body, /200/);
    // An order for it is refused the same way: nothing is created that cannot be paid.
    const order = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'LTC', network_to: 'LTC', amount_to: '250', rate_type: 'float', recipient_address: (await recipient()).mainnet },
    });
    assert.equal(order.statusCode, 422, order.body);
    assert.equal(order.json<{ errors: { code: string }[] }>().errors[0]?.code, 'insufficient_liquidity');
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
    const operatorView = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json<{ payouts: Array<{ payer: string; status: string; fee: string | null; txid: string }> }>();
    assert.deepEqual(
      operatorView.payouts.map((p) => [p.payer, p.status, p.txid, p.fee !== null]),
      [['signer', 'confirmed', row.txid, true]],
      'the operator sees who paid it, where it stands and its fee',
    );
    assert.ok(done.amount_to_final !== null);
    assert.equal((await received(to.regtest)).toFixed(), new Decimal(done.amount_to_final).toFixed(), 'the recipient got exactly amount_to_final');
  });

  it('20 payouts requested together are mined in one transaction', async () => {
    const recipients = await recipientsOf(20);
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

  it('a payout above SIGNER_APPROVAL_ABOVE waits for an operator; approved (who and when recorded), it is paid', async () => {
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    const careful = await makeLoop({}, parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '50', SIGNER_MAX_DAILY_LTC: '1000', SIGNER_APPROVAL_ABOVE_LTC: '0.001' }));
    await careful.pass();
    let row = await payoutRow(order.id);
    assert.equal(row.status, 'awaiting_approval');
    assert.match(row.status_reason ?? '', /above SIGNER_APPROVAL_ABOVE_LTC/);
    const health = await t.admin('GET', '/admin/v1/health');
    assert.equal(health.json<{ payouts: Record<string, Record<string, number>> }>().payouts.LTC?.awaiting_approval, 1, health.body);
    const waiting = await t.admin('GET', '/admin/v1/payouts?status=awaiting_approval&chain=LTC');
    assert.deepEqual(waiting.json<{ id: string }[]>().map((payout) => payout.id), [row.id]);

    assert.equal((await t.admin('POST', `/admin/v1/payouts/${order.id}/approve`, { by: 'alice' })).statusCode, 404, 'an order id is not a payout id');
    const approved = await t.admin('POST', `/admin/v1/payouts/${row.id}/approve`, { by: 'alice' });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal(approved.json<{ approved_by: string }>().approved_by, 'alice');
    assert.equal((await t.admin('POST', `/admin/v1/payouts/${row.id}/approve`, { by: 'alice' })).statusCode, 409, 'approved once');

    await careful.pass();
    await ltc.mine(1);
    await careful.pass();
    row = await payoutRow(order.id);
    assert.equal(row.status, 'confirmed');
    assert.equal(row.approved_by, 'alice');
    assert.ok(row.approved_at !== null);
    await workUntil([order.id], 'completed');
    assert.equal((await received(to.regtest)).toFixed(), new Decimal((await getOrder(order.id)).amount_to_final!).toFixed());
  });

  it('paused, the signer signs nothing new (payouts wait, reason paused); resumed, it pays', async () => {
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    const paused = await t.admin('POST', '/admin/v1/signer/pause', { chain: 'LTC', by: 'bob', reason: 'drill' });
    assert.equal(paused.statusCode, 200, paused.body);
    assert.deepEqual(paused.json<{ paused: { chain: string; by: string }[] }>().paused.map((p) => [p.chain, p.by]), [['LTC', 'bob']]);
    const loop = await makeLoop();
    await loop.pass();
    let row = await payoutRow(order.id);
    assert.equal(row.status, 'requested');
    assert.equal(row.status_reason, 'paused');
    const health = await t.admin('GET', '/admin/v1/health');
    assert.equal(health.json<{ payouts: Record<string, Record<string, number>> }>().payouts.LTC?.paused, 1, health.body);

    const resumed = await t.admin('POST', '/admin/v1/signer/resume', { chain: 'LTC', by: 'bob' });
    assert.deepEqual(resumed.json<{ paused: unknown[] }>().paused, []);
    const trail = await t.db.handle.db.selectFrom('signer_pause_events').select(['action', 'actor', 'reason']).orderBy('created_at').execute();
    assert.deepEqual(trail.map((event) => [event.action, event.actor]), [['pause', 'bob'], ['resume', 'bob']]);
    await loop.pass();
    await ltc.mine(1);
    await loop.pass();
    row = await payoutRow(order.id);
    assert.equal(row.status, 'confirmed');
    await workUntil([order.id], 'completed');
  });

  it('a payout the hot wallet cannot cover waits, awaiting_liquidity on the order, the health and the gauge; funded, it is paid', async () => {
    // Quotes see payouts once they are requested, not orders on their way to one: two orders made
    // together, each within what the wallet can pay but not both, are both created; the second
    // payout waits.
    const generous = parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '100000', SIGNER_MAX_DAILY_LTC: '1000000' });
    const loop = await makeLoop({}, generous);
    await loop.pass();
    const ltcCurrency = await t.db.handle.db.selectFrom('currencies').select('id').where('coin', '=', 'LTC').where('network', '=', 'LTC').executeTakeFirstOrThrow();
    const reading = await t.db.handle.db.selectFrom('hot_wallet_balances').select('spendable').where('currency_id', '=', ltcCurrency.id).executeTakeFirstOrThrow();
    const each = new Decimal(reading.spendable).times('0.6').toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed();
    const recipients = [await recipient(), await recipient()];
    const made = [await orderInSending(recipients[0]!.mainnet, { to: each }), await orderInSending(recipients[1]!.mainnet, { to: each })];
    await workUntil(made.map((placed) => placed.id), 'sending');
    await loop.pass();
    // One of the two is paid: requested in one worker pass, they are equally old.
    const rows = await Promise.all(made.map((placed) => payoutRow(placed.id)));
    assert.deepEqual(rows.map((row) => row.status).sort(), ['broadcast', 'requested']);
    const waitingAt = rows.findIndex((row) => row.status === 'requested');
    const [row, order, to] = [rows[waitingAt]!, made[waitingAt]!, recipients[waitingAt]!];
    assert.equal(row.status_reason, 'awaiting_liquidity', `the payout of ${row.amount} LTC is more than the hot wallet holds`);
    // Meanwhile a quote for as much again is refused: the waiting payout is counted.
    await t.runtime.liquidity.refresh();
    const again = await t.app.inject({ method: 'GET', url: `/api/v1/partner/rates?coin_from=BTC&coin_to=LTC&amount_to=${each}` });
    assert.equal(again.statusCode, 422, again.body);
    assert.equal(again.json<{ errors: { code: string }[] }>().errors[0]?.code, 'insufficient_liquidity');

    clock.advance(SIGNER_FOLLOW_MS);
    await t.runtime.worker.tick();
    const waiting = await getOrder(order.id);
    assert.equal(waiting.status, 'sending');
    assert.equal(waiting.status_reason, 'awaiting_liquidity');
    const health = await t.admin('GET', '/admin/v1/health');
    assert.equal(health.json<{ payouts: Record<string, Record<string, number>> }>().payouts.LTC?.awaiting_liquidity, 1, health.body);
    await t.runtime.signerPayoutsGauge.refresh();
    const metrics = await t.operator({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /^signer_payouts\{chain="LTC",state="awaiting_liquidity"\} 1$/m);

    // The operator tops the hot wallet up: mined coinbase coins first, then the float.
    await ltc.mine(Math.ceil(Number(row.amount) / 25) + 2);
    await ltc.rpc('sendtoaddress', [hot.fundingAddress('LTC', 'regtest'), new Decimal(row.amount).plus(5).toFixed(8)]);
    await ltc.mine(1);
    await loop.pass();
    await ltc.mine(1);
    await loop.pass();
    assert.equal((await payoutRow(order.id)).status, 'confirmed');
    await workUntil([order.id], 'completed');
    const done = await getOrder(order.id);
    assert.equal(done.status_reason, null, 'no longer waiting');
    assert.equal((await received(to.regtest)).toFixed(), new Decimal(done.amount_to_final!).toFixed());
  });

  it('20 payouts with two signers at once never pass SIGNER_MAX_DAILY together: those past it are refused', async () => {
    const recipients = await recipientsOf(20);
    const orders = [];
    for (const to of recipients) orders.push(await orderInSending(to.mainnet, '0.001'));
    await workUntil(orders.map((order) => order.id), 'sending');
    const ltcCurrency = await t.db.handle.db.selectFrom('currencies').select('id').where('coin', '=', 'LTC').where('network', '=', 'LTC').executeTakeFirstOrThrow();
    const signedBefore = new Decimal(await signedSince(t.db.handle.db, ltcCurrency.id, new Date(clock.now().getTime() - 24 * 3600_000)));
    const each = new Decimal((await payoutRow(orders[0]!.id)).amount);
    // Room for four of them in the 24 hours, whatever earlier tests signed.
    const maxDaily = signedBefore.plus(each.times(4.5));
    const limits = parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '50', SIGNER_MAX_DAILY_LTC: maxDaily.toFixed() });
    const [first, second] = [await makeLoop({}, limits), await makeLoop({}, limits)];
    await Promise.all([first.pass(), second.pass()]);

    const rows = await Promise.all(orders.map((order) => payoutRow(order.id)));
    const signed = rows.filter((row) => row.status === 'broadcast');
    const refused = rows.filter((row) => row.status === 'failed');
    const total = signed.reduce((sum, row) => sum.plus(row.amount), new Decimal(0));
    assert.ok(signedBefore.plus(total).lte(maxDaily), `signed ${total.toFixed()} past the daily room`);
    assert.equal(signed.length + refused.length, 20, rows.map((row) => row.status).join(','));
    assert.ok(signed.length >= 1 && signed.length <= 4, `${signed.length} signed`);
    for (const row of refused) assert.match(row.failure_reason ?? '', /^policy: would pass SIGNER_MAX_DAILY_LTC/);
    await ltc.mine(1);
    await first.pass();
  });

  it('a refund is paid on regtest: a deposit below the minimum, mined on litecoind, goes back to the refund address exactly', async () => {
    const refundTo = await recipient();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: {
        coin_from: 'LTC', network_from: 'LTC', coin_to: 'BTC', network_to: 'BTC', amount_from: '1', rate_type: 'float',
        recipient_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', refund_address: refundTo.mainnet,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json<{ id: string; deposit_address: string }>();
    await t.runtime.worker.tick();
    await ltc.rpc('sendtoaddress', [nodeNetworkAddress('LTC', 'regtest', order.deposit_address), '0.0001']);
    await ltc.mine(LTC_CONFIRMATIONS);
    await workUntil([order.id], 'refunding');
    assert.equal((await getOrder(order.id)).status_reason, 'amount_below_min');
    const refund = await t.db.handle.db.selectFrom('payouts').selectAll().where('order_id', '=', order.id).where('kind', '=', 'refund').executeTakeFirstOrThrow();
    assert.equal(refund.payer, 'signer');
    assert.equal(new Decimal(refund.amount).toFixed(), '0.0001');

    const loop = await makeLoop();
    await loop.pass();
    await ltc.mine(1);
    await loop.pass();
    await workUntil([order.id], 'refunded');
    const done = await getOrder(order.id);
    const row = await t.db.handle.db.selectFrom('payouts').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'confirmed');
    assert.equal(done.refund_txid, row.txid);
    assert.equal(done.amount_refunded, '0.0001');
    assert.equal((await received(refundTo.regtest)).toFixed(), '0.0001', 'the refund address got exactly what was received');
  });

  it('a payout reorged out before PAYOUT_CONFIRMATIONS and lost by a restarted node is broadcast again, the same bytes, and paid once', async () => {
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    const loop = await makeLoop({}, policy, 2);
    await loop.pass();
    const { txid } = await payoutRow(order.id);
    assert.ok(txid !== null);
    const [block] = await ltc.mine(1);
    await loop.pass();
    let transaction = await t.db.handle.db.selectFrom('payout_transactions').selectAll().where('txid', '=', txid).executeTakeFirstOrThrow();
    assert.equal(transaction.confirmations, 1);
    assert.equal((await payoutRow(order.id)).status, 'broadcast', 'one confirmation of the two asked');

    // The block is reorged out, and the node restarts without its mempool: the payout is nowhere.
    await ltc.rpc('invalidateblock', [block]);
    await ltc.stop();
    await ltc.restart({ dropMempool: true });
    assert.equal((await ltc.rpc<string[]>('getrawmempool')).includes(txid), false);
    await loop.pass();
    assert.ok((await ltc.rpc<string[]>('getrawmempool')).includes(txid), 'the same transaction is back in the mempool');
    await ltc.mine(2);
    await loop.pass();
    const row = await payoutRow(order.id);
    assert.equal(row.status, 'confirmed');
    assert.equal(row.txid, txid, 'never signed anew');
    transaction = await t.db.handle.db.selectFrom('payout_transactions').selectAll().where('txid', '=', txid).executeTakeFirstOrThrow();
    assert.equal(transaction.state, 'mined');
    await workUntil([order.id], 'completed');
    assert.equal((await received(to.regtest)).toFixed(), new Decimal((await getOrder(order.id)).amount_to_final!).toFixed(), 'paid once');
  });

  it('a node whose newest block is too old signs nothing (the chain waits, said once, gauged); caught up, it pays', async () => {
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    // The machine's clock three hours past the node's newest block: SIGNER_FEE_MAX_AGE_SECONDS_LTC
    // is 7200 by default.
    const ahead = await makeLoop({}, policy, 1, () => new Date(Date.now() + 3 * 3600_000));
    const logged = logs.length;
    await ahead.pass();
    await ahead.pass();
    assert.equal((await payoutRow(order.id)).status, 'requested', 'nothing signed on a node behind its chain');
    assert.equal(logs.slice(logged).filter((line) => line.includes('the LTC node is behind')).length, 1, 'said once, not on every pass');
    const reading = await t.db.handle.db.selectFrom('signer_chain_readings').selectAll().where('chain', '=', 'LTC').executeTakeFirstOrThrow();
    assert.match(reading.node_behind ?? '', /newest block is \d+ s old, SIGNER_FEE_MAX_AGE_SECONDS is 7200/);
    await t.runtime.liquidity.refresh();
    const behind = await t.operator({ method: 'GET', url: '/metrics' });
    assert.match(behind.body, /^signer_node_behind\{chain="LTC"\} 1$/m);

    const loop = await makeLoop();
    await loop.pass();
    assert.equal((await payoutRow(order.id)).status, 'broadcast');
    await ltc.mine(1);
    await loop.pass();
    assert.equal((await payoutRow(order.id)).status, 'confirmed');
    const caughtUp = await t.db.handle.db.selectFrom('signer_chain_readings').selectAll().where('chain', '=', 'LTC').executeTakeFirstOrThrow();
    assert.equal(caughtUp.node_behind, null);
    // Regtest gives no estimate: the floor was used, and said so (docs/contract.md §11.7: never silently).
    assert.equal(caughtUp.fee_unit, 'sat/vB');
    assert.equal(caughtUp.fee_estimate, null);
    assert.equal(new Decimal(caughtUp.fee_used ?? '0').toFixed(), '1');
    assert.deepEqual(caughtUp.fee_bounds, ['missing']);
    await t.runtime.liquidity.refresh();
    const metrics = (await t.operator({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^signer_node_behind\{chain="LTC"\} 0$/m);
    assert.match(metrics, /^signer_fee_bounded\{chain="LTC",bound="missing"\} 1$/m);
    assert.match(metrics, /^signer_fee\{chain="LTC",unit="sat\/vB",kind="used"\} 1$/m);
    assert.match(metrics, /^hot_wallet_spendable\{chain="LTC",asset="LTC"\} \d/m);
    assert.match(metrics, /^signer_reading_age_seconds\{chain="LTC"\} \d+$/m);
  });

  it('the admin CLI lists the payouts waiting for approval, approves one (--by recorded) and brakes the signer', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const cli = (...args: string[]) => runAdminCli(args, { DATA_DIR: '/nonexistent', ADMIN_API_URL: address, ADMIN_TOKEN: t.adminToken });
    const to = await recipient();
    const order = await orderInSending(to.mainnet);
    await workUntil([order.id], 'sending');
    const careful = await makeLoop({}, parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '50', SIGNER_MAX_DAILY_LTC: '100000', SIGNER_APPROVAL_ABOVE_LTC: '0.001' }));
    await careful.pass();
    const row = await payoutRow(order.id);
    assert.equal(row.status, 'awaiting_approval');

    const listed = await cli('payouts', 'list', '--status', 'awaiting_approval', '--chain', 'ltc');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${row.id} .*awaiting_approval`));
    const refused = await cli('payouts', 'approve', row.id);
    assert.equal(refused.code, 2, 'no --by: a usage error, nothing sent');
    assert.match(refused.stderr, /needs --by/);
    const approved = await cli('payouts', 'approve', row.id, '--by', 'carol');
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /approved by carol/);
    assert.equal((await payoutRow(order.id)).approved_by, 'carol');

    const paused = await cli('signer', 'pause', '--by', 'carol', '--reason', 'key rotation');
    assert.equal(paused.code, 0, paused.stderr);
    assert.match(paused.stdout, /\* \(every chain\) +carol +key rotation/);
    await careful.pass();
    assert.equal((await payoutRow(order.id)).status_reason, 'paused', 'every chain paused: not signed');
    const resumed = await cli('signer', 'resume', '--by', 'carol');
    assert.match(resumed.stdout, /the signer is not paused/);
    await careful.pass();
    await ltc.mine(1);
    await careful.pass();
    assert.equal((await payoutRow(order.id)).status, 'confirmed');
  });
});

