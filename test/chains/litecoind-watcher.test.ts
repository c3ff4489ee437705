import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { bech32 } from '@scure/base';
import { createChainWatchers } from '../../src/chains/nodes/create-chain-watchers.js';
import { nodeNetworkAddress } from '../../src/chains/nodes/node-network-address.js';
import { peekDepositIndex } from '../../src/db/repositories/deposit-addresses-repository.js';
import { deriveDepositAddress } from '../../src/domain/deposit-addresses/index.js';
import { createMetrics } from '../../src/metrics.js';
import { loadDepositWallets } from '../../src/services/deposit-wallets.js';
import {
  advance,
  BTC_ADDRESS,
  createOrder,
  getOrder,
  metricValue,
  moves,
  startChainHarness,
  tickUntil,
  watchedOrder,
  WINDOW_MS,
  type ChainHarness,
  type OrderJson,
} from '../helpers/chain-order-helpers.js';
import { startLitecoind, type Litecoind } from '../helpers/litecoind-node.js';
import { litecoindSkip } from '../helpers/requirements.js';
import { ManualClock } from '../helpers/test-app.js';

/** A valid LTC mainnet refund address (random witness program). */
const LTC_REFUND = bech32.encode('ltc', [0, ...bech32.toWords(randomBytes(20))]);
/** LTC needs 6 confirmations in the seed catalog (migration 0002). */
const LTC_CONFIRMATIONS = 6;

/**
 * A real litecoind in regtest behind CHAIN_LTC_RPC_URL: deposits sent with the node's wallet
 * move LTC → BTC orders through the worker; a reorg (invalidateblock) sends them back.
 */
describe('Bitcoin-family node watcher against litecoind (regtest)', { skip: litecoindSkip() }, () => {
  let node: Litecoind;
  let h: ChainHarness;

  before(async () => {
    node = await startLitecoind();
    h = await startChainHarness({ CHAIN_LTC_RPC_URL: node.rpcUrl }, new ManualClock());
  });
  after(async () => {
    await h?.t.close();
    await node?.close();
  });

  const ltcOrder = (fields: Record<string, unknown> = {}): Promise<OrderJson> =>
    createOrder(h, {
      coin_from: 'LTC',
      network_from: 'LTC',
      coin_to: 'BTC',
      network_to: 'BTC',
      amount_from: '0.5',
      recipient_address: BTC_ADDRESS,
      refund_address: LTC_REFUND,
      ...fields,
    });

  /** Pays the order's (mainnet) deposit address, spelled for regtest, from the node's wallet. */
  const pay = (order: OrderJson, amount: string): Promise<string> =>
    node.rpc<string>('sendtoaddress', [nodeNetworkAddress('LTC', 'regtest', order.deposit_address), amount]);

  it('deposit seen when mined, dropped by a reorg, then confirmed through to exchanging', async () => {
    const order = await ltcOrder();
    assert.match(order.deposit_address, /^ltc1q/);
    await h.t.runtime.worker.tick();

    const txid = await pay(order, '0.52345678');
    // In the mempool only: not a deposit yet.
    await h.t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'waiting_deposit');

    const [block] = await node.mine(1);
    await h.t.runtime.worker.tick();
    const confirming = await getOrder(h, order.id);
    assert.equal(confirming.status, 'confirming');
    assert.equal(confirming.deposit_txid, txid);
    assert.equal(confirming.deposit_confirmations, '1');
    assert.equal(confirming.amount_from_received, '0.52345678');

    await h.t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'confirming', 'no double counting on the next pass');

    // Reorg: the deposit's block leaves the chain (its tx goes back to the mempool).
    await node.rpc('invalidateblock', [block]);
    await h.t.runtime.worker.tick();
    const back = await getOrder(h, order.id);
    assert.equal(back.status, 'waiting_deposit');
    assert.equal(back.deposit_txid, null);
    assert.equal(back.amount_from_received, null);

    // Mined again on the new branch, then confirmed.
    await node.mine(2);
    await h.t.runtime.worker.tick();
    const again = await getOrder(h, order.id);
    assert.equal(again.status, 'confirming');
    assert.equal(again.deposit_txid, txid);
    assert.equal(again.deposit_confirmations, '2');

    await node.mine(LTC_CONFIRMATIONS - 2);
    await tickUntil(h, order.id, 'completed');
    const trail = await moves(h, order.id);
    assert.deepEqual(trail.slice(0, 6), [
      '∅→waiting_deposit',
      'waiting_deposit→confirming',
      'confirming→waiting_deposit',
      'waiting_deposit→confirming',
      'confirming→exchanging',
      'exchanging→sending',
    ]);
    const done = await getOrder(h, order.id);
    assert.equal(done.deposit_confirmations, String(LTC_CONFIRMATIONS));
    assert.equal(done.amount_from_received, '0.52345678');
  });

  it('never watches a sandbox order, even on a chain with a node: only its simulated deposit moves it', async () => {
    const partner = await h.t.createPartner({ name: 'Sandbox on LTC' });
    const issued = await h.t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { sandbox: true });
    assert.equal(issued.statusCode, 201, issued.body);
    const sandboxKey = issued.json<{ api_key: string }>().api_key;
    const created = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': sandboxKey, 'content-type': 'application/json' },
      payload: `{"amount_from":0.5,"coin_from":"LTC","network_from":"LTC","coin_to":"BTC","network_to":"BTC","rate_type":"float","recipient_address":"${BTC_ADDRESS}","refund_address":"${LTC_REFUND}"}`,
    });
    assert.equal(created.statusCode, 201, created.body);
    const order = created.json<OrderJson & { sandbox: boolean }>();
    assert.equal(order.sandbox, true);
    // Its address is a keyless one of the service's, not the next of the operator's wallet (the
    // chain has a node): a mainnet form, recorded as a sandbox address without an index, and the
    // live orders on each side of it took consecutive indexes.
    assert.match(order.deposit_address, /^ltc1q/);
    const db = h.t.db.handle.db;
    const addressOf = (orderId: string) =>
      db.selectFrom('deposit_addresses').select(['strategy', 'derivation_index']).where('order_id', '=', orderId).executeTakeFirstOrThrow();
    assert.deepEqual(await addressOf(order.id), { strategy: 'sandbox', derivation_index: null });
    const [liveBefore, liveAfter] = [await ltcOrder(), await ltcOrder()];
    const [first, second] = [await addressOf(liveBefore.id), await addressOf(liveAfter.id)];
    assert.equal(Number(second.derivation_index), Number(first.derivation_index) + 1);
    assert.notEqual(order.deposit_address, liveBefore.deposit_address);
    const read = async (): Promise<OrderJson> => {
      const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${order.id}`, headers: { 'x-api-key': sandboxKey } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<OrderJson>();
    };

    // Real coins to its address, mined and confirmed: the node watcher is never given the order.
    await pay(order, '0.5');
    await node.mine(LTC_CONFIRMATIONS);
    for (let i = 0; i < 3; i++) await h.t.runtime.worker.tick();
    assert.equal((await read()).status, 'waiting_deposit');
    const recorded = await h.t.db.handle.db.selectFrom('chain_deposits').select('order_id').where('order_id', '=', order.id).execute();
    assert.deepEqual(recorded, []);

    // The partner's simulated deposit is what moves it, on the simulator, to the end.
    const deposit = await h.t.app.inject({
      method: 'POST',
      url: `/api/v1/partner/sandbox/orders/${order.id}/deposit`,
      headers: { 'x-api-key': sandboxKey },
    });
    assert.equal(deposit.statusCode, 200, deposit.body);
    let status = (await read()).status;
    for (let i = 0; i < 8 && status !== 'completed'; i++) {
      await h.t.runtime.worker.tick();
      status = (await read()).status;
    }
    assert.equal(status, 'completed');
    const simulated = await h.t.db.handle.db.selectFrom('simulated_deposits').select('txid').where('order_id', '=', order.id).executeTakeFirstOrThrow();
    assert.equal((await read()).deposit_txid, simulated.txid);
    const sends = await h.t.db.handle.db.selectFrom('simulated_sends').select('idempotency_key').where('idempotency_key', '=', `${order.id}:payout`).execute();
    assert.equal(sends.length, 1);
  });

  it('a reorg past expires_at expires the order; the deposit mined again is a late deposit (refund)', async () => {
    const order = await ltcOrder();
    await h.t.runtime.worker.tick();
    const txid = await pay(order, '0.5');
    const [block] = await node.mine(1);
    await h.t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'confirming');

    await advance(h, WINDOW_MS + 60_000);
    await node.rpc('invalidateblock', [block]);
    await h.t.runtime.worker.tick();
    const expired = await getOrder(h, order.id);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.deposit_txid, null);

    await node.mine(1);
    await tickUntil(h, order.id, 'refunded');
    const refunded = await getOrder(h, order.id);
    assert.equal(refunded.deposit_txid, txid);
    assert.equal(refunded.status_reason, 'late_deposit');
    assert.deepEqual(await moves(h, order.id), [
      '∅→waiting_deposit',
      'waiting_deposit→confirming',
      'confirming→expired',
      'expired→refunding',
      'refunding→refunded',
    ]);
  });

  it('a restarted watcher resumes from the stored cursor: a deposit mined while it was down is found once', async () => {
    const order = await ltcOrder();
    await h.t.runtime.worker.tick();
    const cursorBefore = await h.t.db.handle.db.selectFrom('chain_cursors').selectAll().where('chain', '=', 'LTC').executeTakeFirstOrThrow();

    // "Down": nobody polls while the deposit is mined and buried under more blocks than any lookback.
    const txid = await pay(order, '0.2');
    await node.mine(LTC_CONFIRMATIONS);

    const restarted = createChainWatchers(h.t.config, h.t.db.handle.db, h.clock, createMetrics(), { error: () => undefined, warn: () => undefined, info: () => undefined });
    assert.equal(restarted.length, 1);
    const watcher = restarted[0]!;
    const watched = () => watchedOrder(h, order.id, 'LTC');
    const first = await watcher.poll([await watched()]);
    assert.deepEqual(
      first.map((event) => ({ ...event, amount: 'amount' in event ? event.amount.toFixed() : undefined })),
      [{ kind: 'deposit_seen', orderId: order.id, txid, amount: '0.2', confirmations: LTC_CONFIRMATIONS }],
    );
    const cursorAfter = await h.t.db.handle.db.selectFrom('chain_cursors').selectAll().where('chain', '=', 'LTC').executeTakeFirstOrThrow();
    assert.equal(cursorAfter.height, (cursorBefore.height as number) + LTC_CONFIRMATIONS);

    // The worker takes it from here; a second watcher pass reports nothing new.
    await tickUntil(h, order.id, 'completed');
    assert.deepEqual(await watcher.poll([await watched()]), []);
    const rows = await h.t.db.handle.db.selectFrom('chain_deposits').selectAll().where('order_id', '=', order.id).execute();
    assert.equal(rows.length, 1);
  });

  it('an address paid on chain that no order has (a restore lost its order) is retired and the sequence moves past it', async () => {
    const db = h.t.db.handle.db;
    const wallet = (await loadDepositWallets(h.t.config, h.t.runtime.catalog.all())).hd.get('LTC');
    assert.ok(wallet !== undefined);
    const first = await ltcOrder();
    await h.t.runtime.worker.tick();
    const known = await db.selectFrom('deposit_addresses').select('derivation_index').where('address', '=', first.deposit_address).executeTakeFirstOrThrow();
    const k = known.derivation_index as number;
    const next = await peekDepositIndex(db, 'LTC');
    // Handed out after the backup by the database that was lost: one index this process holds
    // in its stock (drawn, no order yet), one past the sequence.
    const inStock = k + 2;
    const pastSequence = next + 5;
    assert.ok(inStock < next, `index ${inStock} is drawn already (next ${next})`);
    const lost = [inStock, pastSequence].map((index) => deriveDepositAddress(wallet.format, wallet.account, index));
    for (const address of lost) await node.rpc('sendtoaddress', [nodeNetworkAddress('LTC', 'regtest', address), '0.01']);
    await node.mine(1);
    await h.t.runtime.worker.tick();

    assert.equal(await metricValue(h, 'deposit_addresses_paid_unknown_total{chain="LTC"}'), 2);
    const gap = h.t.config.addressResyncGap;
    assert.ok((await peekDepositIndex(db, 'LTC')) >= pastSequence + 1 + gap, 'the sequence moved past the index seen plus the gap');
    const retired = await db.selectFrom('deposit_addresses').select(['address', 'derivation_index', 'order_id']).where('address', 'in', lost).orderBy('derivation_index').execute();
    assert.deepEqual(retired, [
      { address: lost[0], derivation_index: inStock, order_id: null },
      { address: lost[1], derivation_index: pastSequence, order_id: null },
    ]);

    // The stock walks on: k + 1, then k + 2 is refused by the unique index and k + 3 follows.
    const after = [await ltcOrder(), await ltcOrder()];
    assert.deepEqual(
      after.map((order) => order.deposit_address),
      [k + 1, k + 3].map((index) => deriveDepositAddress(wallet.format, wallet.account, index)),
    );
    // Seen again (a later pass, a rescan): counted once.
    await node.mine(1);
    await h.t.runtime.worker.tick();
    assert.equal(await metricValue(h, 'deposit_addresses_paid_unknown_total{chain="LTC"}'), 2);
  });

  it('a node outage fails no pass and no readiness: counted, shown in /readyz, then recovered', async () => {
    const order = await ltcOrder();
    await node.stop();
    await h.t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'waiting_deposit');
    assert.equal(await metricValue(h, 'chain_watcher_errors_total{chain="LTC"}'), 1);

    const down = await h.t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(down.statusCode, 200, 'a node outage does not take the API out of service');
    // Public: ready or not and the dependency by name, nothing of the node (issue 12). No worker
    // loop runs here (the test ticks the worker itself), so none is reported alive (issue 36.2).
    assert.deepEqual(down.json(), { ready: true, checks: { database: true, workers: false, chains: { LTC: false } } });
    // The operator sees why, where and since when.
    const health = await h.t.admin('GET', '/admin/v1/health');
    assert.equal(health.statusCode, 200, health.body);
    const downHealth = health.json<{ ready: boolean; chains: Record<string, { ok: boolean; last_error: string | null; node: string; lag_seconds: number | null }> }>();
    assert.equal(downHealth.ready, true);
    assert.equal(downHealth.chains.LTC?.ok, false);
    assert.match(downHealth.chains.LTC?.last_error ?? '', /unreachable/);
    assert.match(downHealth.chains.LTC?.node ?? '', /^127\.0\.0\.1:\d+$/);
    assert.equal(typeof downHealth.chains.LTC?.lag_seconds, 'number');
    for (const body of [down.body, health.body]) assert.doesNotMatch(body, /regtest-only/, 'the RPC password never shows');
    assert.ok(!h.t.logs.join('').includes('regtest-only'), 'nor in the logs');

    // Backoff: the next pass within the delay does not even ask the node.
    await h.t.runtime.worker.tick();
    assert.equal(await metricValue(h, 'chain_watcher_errors_total{chain="LTC"}'), 1);

    await node.restart();
    await advance(h, 2_000);
    const txid = await pay(order, '0.3');
    await node.mine(1);
    await h.t.runtime.worker.tick();
    const seen = await getOrder(h, order.id);
    assert.equal(seen.status, 'confirming');
    assert.equal(seen.deposit_txid, txid);

    const up = await h.t.app.inject({ method: 'GET', url: '/readyz' });
    assert.deepEqual(up.json(), { ready: true, checks: { database: true, workers: false, chains: { LTC: true } } });
    const upBody = (await h.t.admin('GET', '/admin/v1/health')).json<{ chains: Record<string, { ok: boolean; network: string; height: number }> }>();
    assert.equal(upBody.chains.LTC?.ok, true);
    assert.equal(upBody.chains.LTC?.network, 'regtest');
    assert.equal(upBody.chains.LTC?.height, await node.rpc<number>('getblockcount').then(Number));
  });
});
