// test-engines: postgres (scripts/run-tests.ts): real payouts need DATABASE_URL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'lossless-json';
import { createPublicClient, erc20Abi, http, parseTransaction, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal, toBaseUnits } from '../../src/domain/money.js';
import { EvmPayer } from '../../src/signer/evm/evm-payer.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { newMnemonics } from '../../src/signer/key-file.js';
import { PayoutLoop, type PayoutLoopHooks } from '../../src/signer/payout-loop.js';
import { parseSignerPolicy } from '../../src/signer/policy.js';
import { anvilSkip, startAnvil, type Anvil } from '../helpers/anvil-node.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { buildPayoutsTestApp } from './payouts-test-app.js';
import { compileTestToken, deployData, transferData } from '../helpers/test-erc20-token.js';

/**
 * Issue 28, docs/contract.md §11.2 and §11.7: live ETH and ERC-20 payouts made by the signer on a real
 * EVM node (anvil), from a hot wallet whose keys are made here. The deposit side is the
 * simulator (BTC); what is real is everything after the exchange: the claim, the policy, the
 * nonce reserved in the database, the EIP-1559 signature, the stored transaction, the
 * broadcast, replacement with higher fees, the confirmation and the order completing with the
 * mined txid. Balances and transaction counts are read from the chain itself.
 */

const production = testEngine() !== 'postgres' ? 'real payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;

const SIGNER_FOLLOW_MS = 2000;
const BTC_CONFIRMATIONS = 2;
const WEI_PER_ETH = 10n ** 18n;
const USDT_UNIT = 10n ** 6n;
const GWEI = 10n ** 9n;
const REPLACE_AFTER_BLOCKS = 3;

interface OrderJson {
  id: string;
  status: string;
  status_reason: string | null;
  amount_to_final: string | null;
  payout_txid: string | null;
  [field: string]: unknown;
}

describe('real ETH and ERC-20 payouts signed by the signer on anvil', { skip: production || anvilSkip() }, () => {
  let node: Anvil;
  let chain: PublicClient;
  let t: TestApp;
  let apiKey: string;
  let token: Address;
  const clock = new ManualClock();
  const hot = new HotWallet(newMnemonics());
  const logs: string[] = [];
  const logger = recordingLogger(logs);
  const policy = parseSignerPolicy({ SIGNER_MAX_PAYOUT_ETH: '50', SIGNER_MAX_DAILY_ETH: '1000', SIGNER_MAX_PAYOUT_USDT_ERC20: '100000', SIGNER_MAX_DAILY_USDT_ERC20: '1000000' });
  const hotAddress = (): Address => hot.fundingAddress('ETH') as Address;

  /** A new signer process, as far as the payouts go: a new payer (no memory) and a new loop. */
  const makeLoop = async (hooks: PayoutLoopHooks = {}, limits = policy): Promise<PayoutLoop> => {
    const payer = await EvmPayer.create('ETH', hot.account('ETH'), node.rpcUrl, {
      fees: { minPriorityFee: GWEI / 100n, maxFee: 500n * GWEI },
      replaceAfterBlocks: REPLACE_AFTER_BLOCKS,
      onBoundedFee: () => undefined,
    });
    await payer.start();
    return new PayoutLoop(t.db.handle.db, [payer], limits, { batchIntervalMs: 0, confirmations: 1, intervalMs: 50 }, () => clock.now(), logger, hooks);
  };

  const recipient = (): Address => privateKeyToAccount(generatePrivateKey()).address;
  const ethBalance = (address: Address): Promise<bigint> => chain.getBalance({ address });
  const tokenBalance = (address: Address): Promise<bigint> => chain.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
  /** Transactions the hot wallet has had mined: its nonce on the chain. */
  const minedCount = async (): Promise<number> => chain.getTransactionCount({ address: hotAddress(), blockTag: 'latest' });
  const inPool = async (txid: string): Promise<boolean> => (await node.rpc<unknown>('eth_getTransactionByHash', [txid])) !== null;

  const getOrder = async (id: string): Promise<OrderJson> => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    return parse(res.body, null, (literal: string) => literal) as OrderJson;
  };

  /** A BTC → ETH (or USDT on ERC20) order to `address`, deposited and confirmed on the simulator, moved to sending. */
  const orderInSending = async (address: string, coin: 'ETH' | 'USDT' = 'ETH', amountFrom = '0.01'): Promise<OrderJson> => {
    // What the last signer pass published, read as the API's timer would (docs/contract.md §11.7).
    await t.runtime.liquidity.refresh();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: coin, network_to: coin === 'ETH' ? 'ETH' : 'ERC20', amount_from: amountFrom, rate_type: 'float', recipient_address: address },
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

  /** Orders moved to sending with their payouts requested. */
  const requested = async (addresses: readonly string[], coin: 'ETH' | 'USDT' = 'ETH'): Promise<OrderJson[]> => {
    const orders: OrderJson[] = [];
    for (const address of addresses) orders.push(await orderInSending(address, coin));
    await workUntil(orders.map((order) => order.id), 'sending');
    return orders;
  };

  const payoutRow = (orderId: string) =>
    t.db.handle.db.selectFrom('payouts').selectAll().where('order_id', '=', orderId).where('kind', '=', 'payout').executeTakeFirstOrThrow();

  /**
   * Every transaction stored for a payout, oldest of its replacement family first: the one it
   * pays through now (or was mined) and every one it replaced or that replaced it.
   */
  const transactionsOf = async (orderId: string) => {
    const row = await payoutRow(orderId);
    const all = await t.db.handle.db.selectFrom('payout_transactions').selectAll().where('chain', '=', 'ETH').execute();
    const byId = new Map(all.map((tx) => [tx.id, tx]));
    let oldest = byId.get(row.transaction_id ?? '');
    while (oldest?.replaces_id != null) oldest = byId.get(oldest.replaces_id);
    const family = [];
    for (let tx = oldest; tx !== undefined; tx = all.find((next) => next.replaces_id === tx.id)) family.push(tx);
    return family;
  };

  const expectedUnits = (order: OrderJson, decimals: number): bigint => {
    assert.ok(order.amount_to_final !== null);
    return toBaseUnits(new Decimal(order.amount_to_final), decimals);
  };

  before(async () => {
    node = await startAnvil();
    chain = createPublicClient({ transport: http(node.rpcUrl), cacheTime: 0 });
    t = await buildPayoutsTestApp(clock, { PAYOUT_SIGNER_CHAINS: 'ETH', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin });
    ({ apiKey } = await t.createPartner());
    // The float: 1000 ETH and 100,000 of a test token deployed as the catalog's USDT (ERC20).
    await node.send({ to: hotAddress(), value: 1000n * WEI_PER_ETH });
    token = (await node.send({ data: deployData(compileTestToken(), 6, 1_000_000n * USDT_UNIT) })).contractAddress as Address;
    await node.send({ to: token, data: transferData(hotAddress(), 100_000n * USDT_UNIT) });
    await t.db.handle.db.updateTable('currencies').set({ token_contract: token }).where('coin', '=', 'USDT').where('network', '=', 'ERC20').execute();
    // A first pass publishes what the hot wallet can pay: before it, ETH and USDT are quoted as unavailable.
    await (await makeLoop()).pass();
  });

  after(async () => {
    await t?.close();
    await node?.close();
  });

  it('signs from the funding address that `npm run signer -- addresses` shows, for the chain id the node reports or the one pinned', async () => {
    const options = { fees: { minPriorityFee: 0n, maxFee: GWEI }, replaceAfterBlocks: 1, onBoundedFee: () => undefined };
    const payer = await EvmPayer.create('ETH', hot.account('ETH'), node.rpcUrl, options);
    assert.equal(payer.address, hotAddress());
    assert.equal(payer.chainIdSigned, await chain.getChainId());
    await assert.rejects(EvmPayer.create('ETH', hot.account('ETH'), node.rpcUrl, { ...options, expectedChainId: 1 }), /not SIGNER_CHAIN_ID_ETH=1/);
  });

  it('the signer publishes what the hot wallet can pay per currency: ETH at the latest block, the token by balanceOf (docs/contract.md §11.7)', async () => {
    const readings = await t.db.handle.db
      .selectFrom('hot_wallet_balances as b')
      .innerJoin('currencies as c', 'c.id', 'b.currency_id')
      .select(['c.coin', 'c.network', 'b.spendable', 'b.chain'])
      .where('b.chain', '=', 'ETH')
      .execute();
    const of = (coin: string, network: string) => readings.find((row) => row.coin === coin && row.network === network);
    assert.equal(new Decimal(of('ETH', 'ETH')?.spendable ?? '-1').toFixed(), '1000');
    assert.equal(new Decimal(of('USDT', 'ERC20')?.spendable ?? '-1').toFixed(), '100000');
    await t.runtime.liquidity.refresh();
    const currencies = (await t.app.inject({ method: 'GET', url: '/api/v1/currencies' })).json<{ coin: string; network: string; is_withdraw_enabled: boolean }[]>();
    assert.equal(currencies.find((row) => row.coin === 'USDT' && row.network === 'ERC20')?.is_withdraw_enabled, true);
    // 150,000 USDT is more than the wallet's 100,000 (and within the pair's limits).
    const short = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=ERC20&amount_to=150000' });
    assert.equal(short.statusCode, 422, short.body);
    assert.equal(short.json<{ errors: { code: string }[] }>().errors[0]?.code, 'insufficient_liquidity');
  });

  it('BTC → ETH: the payout is signed, stored, broadcast and mined; the recipient gets exactly amount_to_final; the real fee is recorded', async () => {
    const to = recipient();
    const [order] = await requested([to]);
    const sentBefore = await minedCount();
    const loop = await makeLoop();
    await loop.pass();
    let row = await payoutRow(order!.id);
    assert.equal(row.payer, 'signer');
    assert.ok(row.txid !== null);
    // anvil mines at once; the next pass confirms it.
    await loop.pass();
    row = await payoutRow(order!.id);
    assert.equal(row.status, 'confirmed', JSON.stringify(row));

    const receipt = await chain.getTransactionReceipt({ hash: row.txid as Hex });
    assert.equal(receipt.status, 'success');
    const realFee = receipt.gasUsed * receipt.effectiveGasPrice;
    assert.equal(row.fee === null ? undefined : toBaseUnits(new Decimal(row.fee), 18), realFee, 'the real fee, gasUsed × effectiveGasPrice');
    const [stored] = await transactionsOf(order!.id);
    assert.equal(stored?.state, 'mined');
    assert.equal(toBaseUnits(new Decimal(stored.fee), 18), realFee);
    const signed = parseTransaction(stored.raw as Hex);
    assert.equal(signed.type, 'eip1559');
    assert.equal(signed.chainId, await chain.getChainId());

    await workUntil([order!.id], 'completed');
    const done = await getOrder(order!.id);
    assert.equal(done.payout_txid, row.txid);
    assert.equal(await ethBalance(to), expectedUnits(done, 18), 'the recipient got exactly amount_to_final');
    assert.equal(await minedCount(), sentBefore + 1, 'one transaction from the hot wallet');
  });

  it('BTC → USDT (ERC20): a token transfer of exactly amount_to_final', async () => {
    const to = recipient();
    const [order] = await requested([to], 'USDT');
    const held = await tokenBalance(hotAddress());
    const loop = await makeLoop();
    await loop.pass();
    await loop.pass();
    const row = await payoutRow(order!.id);
    assert.equal(row.status, 'confirmed', JSON.stringify(row));
    await workUntil([order!.id], 'completed');
    const done = await getOrder(order!.id);
    assert.equal(done.payout_txid, row.txid);
    const units = expectedUnits(done, 6);
    assert.equal(await tokenBalance(to), units, 'the recipient got exactly amount_to_final in token units');
    assert.equal(await tokenBalance(hotAddress()), held - units);
    assert.equal(await ethBalance(to), 0n, 'no ether sent with it');
  });

  it('5 payouts in a row take consecutive nonces, no gap and no reuse, all mined', async () => {
    const recipients = Array.from({ length: 5 }, () => recipient());
    const orders = await requested(recipients);
    const first = await minedCount();
    const loop = await makeLoop();
    await loop.pass();
    await loop.pass();
    await workUntil(orders.map((order) => order.id), 'completed');

    const nonces: number[] = [];
    // Payouts recorded in one worker pass are claimed in id order: any order, each its own nonce.
    for (const [i, order] of orders.entries()) {
      const done = await getOrder(order.id);
      const onChain = await chain.getTransaction({ hash: done.payout_txid as Hex });
      nonces.push(onChain.nonce);
      const [stored] = await transactionsOf(order.id);
      assert.equal(String(stored?.nonce), String(onChain.nonce), 'the stored nonce is the signed one');
      assert.equal(await ethBalance(recipients[i]!), expectedUnits(done, 18));
    }
    assert.deepEqual(nonces.sort((a, b) => a - b), [0, 1, 2, 3, 4].map((i) => first + i));
    assert.equal(await minedCount(), first + 5);
    const reserved = await t.db.handle.db.selectFrom('evm_nonces').select('next_nonce').where('chain', '=', 'ETH').where('address', '=', hotAddress().toLowerCase()).executeTakeFirstOrThrow();
    assert.equal(String(reserved.next_nonce), String(first + 5), 'the table holds the next nonce');
  });

  it('two signers at once: 6 payouts, 6 distinct consecutive nonces, each paid once', async () => {
    const recipients = Array.from({ length: 6 }, () => recipient());
    const orders = await requested(recipients);
    const first = await minedCount();
    const [a, b] = [await makeLoop(), await makeLoop()];
    await Promise.all([a.pass(), b.pass()]);
    await Promise.all([a.pass(), b.pass()]);
    await workUntil(orders.map((order) => order.id), 'completed');
    const nonces = await Promise.all(orders.map(async (order) => (await chain.getTransaction({ hash: (await getOrder(order.id)).payout_txid as Hex })).nonce));
    assert.deepEqual(nonces.sort((x, y) => x - y), [0, 1, 2, 3, 4, 5].map((i) => first + i));
    assert.equal(await minedCount(), first + 6);
    for (const [i, to] of recipients.entries()) assert.equal(await ethBalance(to), expectedUnits(await getOrder(orders[i]!.id), 18));
  });

  it('a transaction dropped and not mined within EVM_REPLACE_AFTER_BLOCKS is replaced: same nonce, fees ≥ +10 %, both hashes kept, one mined', async () => {
    const to = recipient();
    const [order] = await requested([to]);
    const first = await minedCount();
    await node.rpc('evm_setAutomine', [false]);
    try {
      const loop = await makeLoop();
      await loop.pass();
      const original = (await payoutRow(order!.id)).txid as Hex;
      assert.ok(await inPool(original));
      await node.rpc('anvil_dropTransaction', [original]);
      assert.equal(await inPool(original), false);

      // Fewer blocks than the limit: the same bytes are sent again (the gap filled), no replacement.
      await node.mine(1);
      await loop.pass();
      assert.ok(await inPool(original), 'broadcast again byte for byte');
      assert.equal((await transactionsOf(order!.id)).length, 1);
      await node.rpc('anvil_dropTransaction', [original]);

      await node.mine(REPLACE_AFTER_BLOCKS);
      await loop.pass();
      const family = await transactionsOf(order!.id);
      assert.equal(family.length, 2, 'a replacement stored beside the original');
      const [old, replacement] = family;
      assert.equal(replacement!.replaces_id, old!.id);
      assert.equal(String(replacement!.nonce), String(old!.nonce));
      assert.equal((await payoutRow(order!.id)).txid, replacement!.txid, 'the payout shows the newest');
      const [a, b] = [parseTransaction(old!.raw as Hex), parseTransaction(replacement!.raw as Hex)];
      assert.equal(b.nonce, a.nonce);
      assert.equal(b.to, a.to);
      assert.equal(b.value, a.value);
      assert.ok(b.maxFeePerGas! * 10n >= a.maxFeePerGas! * 11n, 'maxFeePerGas at least 10 % higher');
      assert.ok(b.maxPriorityFeePerGas! * 10n >= a.maxPriorityFeePerGas! * 11n, 'maxPriorityFeePerGas at least 10 % higher');
      assert.ok(await inPool(replacement!.txid));

      await node.mine(1);
      await loop.pass();
      const row = await payoutRow(order!.id);
      assert.equal(row.status, 'confirmed');
      assert.equal(row.txid, replacement!.txid);
      const states = await transactionsOf(order!.id);
      assert.deepEqual(states.map((tx) => tx.state), ['replaced', 'mined']);
      await workUntil([order!.id], 'completed');
      assert.equal((await getOrder(order!.id)).payout_txid, replacement!.txid);
      assert.equal(await ethBalance(to), expectedUnits(await getOrder(order!.id), 18), 'paid once');
      assert.equal(await minedCount(), first + 1, 'one nonce used');
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('when the replaced transaction is the one mined, it becomes the payout\'s txid and the replacement is marked replaced', async () => {
    const to = recipient();
    const [order] = await requested([to]);
    const first = await minedCount();
    await node.rpc('evm_setAutomine', [false]);
    try {
      const loop = await makeLoop();
      await loop.pass();
      const original = (await payoutRow(order!.id)).txid as Hex;
      const originalRaw = (await transactionsOf(order!.id))[0]!.raw as Hex;
      await node.rpc('anvil_dropTransaction', [original]);
      await node.mine(REPLACE_AFTER_BLOCKS);
      await loop.pass();
      const replacement = (await payoutRow(order!.id)).txid as Hex;
      assert.notEqual(replacement, original);
      // The node loses the replacement and gets the original back (another node's mempool, say).
      await node.rpc('anvil_dropTransaction', [replacement]);
      await node.rpc('eth_sendRawTransaction', [originalRaw]);
      await node.mine(1);
      await loop.pass();
      const row = await payoutRow(order!.id);
      assert.equal(row.status, 'confirmed');
      assert.equal(row.txid, original, 'the mined hash is the payout\'s txid');
      assert.deepEqual((await transactionsOf(order!.id)).map((tx) => [tx.txid, tx.state]), [
        [original, 'mined'],
        [replacement, 'replaced'],
      ]);
      await workUntil([order!.id], 'completed');
      assert.equal((await getOrder(order!.id)).payout_txid, original);
      assert.equal(await ethBalance(to), expectedUnits(await getOrder(order!.id), 18), 'paid once');
      assert.equal(await minedCount(), first + 1);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('a nonce gap (an earlier transaction dropped) is filled before a later payout is sent', async () => {
    const recipients = [recipient(), recipient()];
    const orders = await requested(recipients);
    const first = await minedCount();
    await node.rpc('evm_setAutomine', [false]);
    try {
      const loop = await makeLoop();
      await loop.pass();
      const sent = await Promise.all(orders.map(async (order) => (await transactionsOf(order.id))[0]!));
      const gap = sent.find((tx) => Number(tx.nonce) === first);
      assert.ok(gap !== undefined && sent.some((tx) => Number(tx.nonce) === first + 1));
      await node.rpc('anvil_dropTransaction', [gap.txid]);
      // The later nonce is stuck behind the gap; a third payout arrives meanwhile.
      await node.mine(1);
      assert.equal(await minedCount(), first);
      const third = recipient();
      const [late] = await requested([third]);
      await loop.pass();
      assert.ok(await inPool(gap.txid), 'the missing nonce is sent again');
      await node.mine(1);
      await loop.pass();
      const all = [...orders, late!];
      await workUntil(all.map((order) => order.id), 'completed');
      const nonces = await Promise.all(all.map(async (order) => (await chain.getTransaction({ hash: (await getOrder(order.id)).payout_txid as Hex })).nonce));
      assert.equal(nonces[2], first + 2, 'the later payout took the next nonce');
      assert.deepEqual(nonces.slice(0, 2).sort((a, b) => a - b), [first, first + 1]);
      assert.equal(await minedCount(), first + 3);
      for (const [i, to] of [...recipients, third].entries()) assert.equal(await ethBalance(to), expectedUnits(await getOrder(all[i]!.id), 18));
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('a crash after the transaction is stored broadcasts the same transaction on restart: one nonce, one txid, paid once', async () => {
    const to = recipient();
    const [order] = await requested([to]);
    const first = await minedCount();
    let stored: string | undefined;
    const crashing = await makeLoop({
      afterStore: (txid) => {
        stored = txid;
        throw new Error('killed after store');
      },
    });
    await crashing.pass();
    assert.ok(stored !== undefined);
    let row = await payoutRow(order!.id);
    assert.equal(row.status, 'signed');
    assert.equal(row.txid, stored);
    assert.equal(await inPool(stored), false, 'not broadcast before the crash');
    assert.equal(await minedCount(), first);

    const restarted = await makeLoop();
    await restarted.pass();
    await restarted.pass();
    row = await payoutRow(order!.id);
    assert.equal(row.status, 'confirmed');
    assert.equal(row.txid, stored);
    assert.deepEqual((await transactionsOf(order!.id)).map((tx) => tx.txid), [stored]);
    await workUntil([order!.id], 'completed');
    assert.equal(await ethBalance(to), expectedUnits(await getOrder(order!.id), 18), 'paid exactly once');
    assert.equal(await minedCount(), first + 1, 'one nonce');
  });

  it('a crash after a replacement is stored broadcasts that replacement on restart: one nonce, paid once', async () => {
    const to = recipient();
    const [order] = await requested([to]);
    const first = await minedCount();
    await node.rpc('evm_setAutomine', [false]);
    try {
      let replacement: string | undefined;
      let stores = 0;
      const loop = await makeLoop({
        afterStore: (txid) => {
          // The first store is the payout's transaction; the second, its replacement.
          if (++stores === 2) {
            replacement = txid;
            throw new Error('killed after the replacement was stored');
          }
        },
      });
      await loop.pass();
      const original = (await payoutRow(order!.id)).txid!;
      await node.rpc('anvil_dropTransaction', [original]);
      await node.mine(REPLACE_AFTER_BLOCKS);
      await loop.pass();
      assert.ok(replacement !== undefined && replacement !== original);
      assert.equal(await inPool(replacement), false, 'the replacement was not broadcast before the crash');
      assert.deepEqual((await transactionsOf(order!.id)).map((tx) => tx.state), ['broadcast', 'signed']);

      const restarted = await makeLoop();
      await restarted.pass();
      assert.ok(await inPool(replacement), 'the stored replacement is broadcast');
      await node.mine(1);
      await restarted.pass();
      const row = await payoutRow(order!.id);
      assert.equal(row.status, 'confirmed');
      assert.equal(row.txid, replacement);
      await workUntil([order!.id], 'completed');
      assert.equal(await ethBalance(to), expectedUnits(await getOrder(order!.id), 18), 'paid once');
      assert.equal(await minedCount(), first + 1);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('the replacement clock is kept in the database: a signer restarted after EVM_REPLACE_AFTER_BLOCKS replaces at once', async () => {
    const to = recipient();
    const [order] = await requested([to]);
    const first = await minedCount();
    await node.rpc('evm_setAutomine', [false]);
    try {
      const before = await makeLoop();
      await before.pass();
      const [signed] = await transactionsOf(order!.id);
      assert.equal(String(signed!.seen_unmined_at_block), String(await chain.getBlockNumber()), 'the clock starts when it is signed');
      await node.rpc('anvil_dropTransaction', [signed!.txid]);
      await node.mine(REPLACE_AFTER_BLOCKS);
      // A new signer process (no memory): it does not wait EVM_REPLACE_AFTER_BLOCKS more.
      const restarted = await makeLoop();
      await restarted.pass();
      const family = await transactionsOf(order!.id);
      assert.equal(family.length, 2, 'replaced on the restarted signer\'s first pass');
      assert.equal(String(family[1]!.nonce), String(signed!.nonce));
      await node.mine(1);
      await restarted.pass();
      assert.equal((await payoutRow(order!.id)).status, 'confirmed');
      await workUntil([order!.id], 'completed');
      assert.equal(await ethBalance(to), expectedUnits(await getOrder(order!.id), 18), 'paid once');
      assert.equal(await minedCount(), first + 1);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('a payout above SIGNER_MAX_PAYOUT_ETH is never signed: no nonce taken, nothing sent, the order fails', async () => {
    const to = recipient();
    const [order] = await requested([to]);
    const first = await minedCount();
    const reservedBefore = await t.db.handle.db.selectFrom('evm_nonces').select('next_nonce').where('chain', '=', 'ETH').executeTakeFirst();
    const strict = await makeLoop({}, parseSignerPolicy({ SIGNER_MAX_PAYOUT_ETH: '0.0001', SIGNER_MAX_DAILY_ETH: '1' }));
    await strict.pass();
    const row = await payoutRow(order!.id);
    assert.equal(row.status, 'failed');
    assert.match(row.failure_reason ?? '', /^policy: above SIGNER_MAX_PAYOUT_ETH/);
    assert.equal(row.txid, null);
    await workUntil([order!.id], 'failed');
    assert.equal((await getOrder(order!.id)).status_reason, 'payout_failed');
    assert.equal(await ethBalance(to), 0n);
    assert.equal(await minedCount(), first);
    assert.deepEqual(await t.db.handle.db.selectFrom('evm_nonces').select('next_nonce').where('chain', '=', 'ETH').executeTakeFirst(), reservedBefore);
  });
});
