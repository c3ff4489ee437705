// test-cost: long (50 rounds of a signer process killed: about two minutes; scripts/run-tests.ts starts it early)
// test-engines: postgres (scripts/run-tests.ts): the signer reaches payouts through PostgreSQL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hex } from '@scure/base';
import { randomBytes } from 'node:crypto';
import { JsonRpcClient } from '../../src/chains/nodes/json-rpc-client.js';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal } from '../../src/domain/money.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { newMnemonics, writeKeyFile } from '../../src/signer/key-file.js';
import { srcModule } from '../helpers/compiled-src.js';
import { anvilSkip, startAnvil, type Anvil } from '../helpers/anvil-node.js';
import { startLitecoind, type Litecoind } from '../helpers/litecoind-node.js';
import { childEnv, spawnManaged, type ManagedProcess } from '../helpers/process/managed-process.js';
import { sleep, waitFor } from '../helpers/process/waits.js';
import { litecoindSkip } from '../helpers/requirements.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { databaseEnv, testEngine } from '../helpers/test-database.js';

/**
 * Issue 28: "exactly once under crashes". The signer runs as its own process (`npm run signer`,
 * as production runs it) against PostgreSQL, a real litecoind and a real anvil, paying LTC and
 * ETH at once, and is killed with SIGKILL
 * at varied points for ROUNDS rounds while payouts are in flight: during start-up (before it
 * signs), the moment it reports a transaction signed and stored (before or just after the
 * broadcast), the moment it reports one broadcast (before its state is written), while it
 * follows confirmations, and the moment it reports an EVM replacement stored (before it is
 * broadcast: the round's ETH transaction was dropped from anvil and blocks passed without it). New payouts on both chains are requested every round and blocks are
 * mined between rounds. Afterwards one signer runs to the end, and the chains themselves are
 * asked: every recipient received exactly its order's amount_to_final (a payout sent twice would
 * show twice); on litecoind the hot wallet's spends are exactly the stored transactions, all
 * mined; on anvil the hot wallet's nonce equals the number of stored transactions mined, so no
 * transaction was sent unstored and no nonce gap blocks the queue.
 */

const ROUNDS = 50;
const PER_ROUND = 3;
const PASSPHRASE = 'crash-rounds-passphrase';
const BTC_CONFIRMATIONS = 2;
const production = testEngine() !== 'postgres' ? 'the signer reaches payouts through PostgreSQL: runs on the PostgreSQL pass' : false;

type KillPoint = 'start-up' | 'stored' | 'broadcast' | 'following' | 'replacement';
const KILL_POINTS: readonly KillPoint[] = ['start-up', 'stored', 'broadcast', 'following', 'replacement'];
/** EVM_REPLACE_AFTER_BLOCKS of the signer here: the replacement rounds mine this many empty blocks. */
const REPLACE_AFTER_BLOCKS = 2;

describe('the signer killed at random points: every payout paid exactly once', { skip: production || litecoindSkip() || anvilSkip() }, () => {
  let ltc: Litecoind;
  let eth: Anvil;
  let t: TestApp;
  let apiKey: string;
  let keyDir: string;
  const clock = new ManualClock();
  const mnemonics = newMnemonics();

  before(async () => {
    ltc = await startLitecoind();
    eth = await startAnvil();
    keyDir = mkdtempSync(path.join(tmpdir(), 'epa-signer-keys-'));
    // The lowest scrypt cost a signer reads: this test starts a signer 51 times and is about
    // crashes, not the KDF (at the default cost each start spent about a second of CPU on it).
    await writeKeyFile(path.join(keyDir, 'keys.json'), PASSPHRASE, mnemonics, { N: 2 ** 14 });
    t = await buildTestApp({
      production: true,
      clock,
      env: { WORKER: 'off', SIMULATOR_AUTO: '0', PRICE_POLL_SECONDS: '3600', PAYOUT_SIGNER_CHAINS: 'LTC,ETH', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin },
    });
    ({ apiKey } = await t.createPartner());
    await ltc.mine(5);
    const funding = new HotWallet(mnemonics).fundingAddress('LTC', 'regtest');
    for (let i = 0; i < 4; i++) await ltc.rpc('sendtoaddress', [funding, '40']);
    await ltc.mine(1);
    await eth.send({ to: new HotWallet(mnemonics).fundingAddress('ETH'), value: 100n * 10n ** 18n });
    // The signer's first pass publishes what the hot wallets can pay (docs/contract.md §11.7): before it,
    // no order to LTC or ETH is taken.
    const first = startSigner();
    try {
      await waitFor('the signer to publish what LTC and ETH can pay', async () => {
        const chains = await t.db.handle.db.selectFrom('hot_wallet_balances').select('chain').distinct().where('chain', 'in', ['LTC', 'ETH']).execute();
        return chains.length === 2 ? true : undefined;
      }, { timeoutMs: 60_000, intervalMs: 100 });
    } finally {
      await first.stop();
    }
  });

  after(async () => {
    await t?.close();
    await ltc?.close();
    await eth?.close();
    if (keyDir !== undefined) rmSync(keyDir, { recursive: true, force: true });
  });

  const startSigner = (): ManagedProcess => {
    const entry = srcModule('signer/main.ts');
    return spawnManaged('signer', process.execPath, [...entry.loader, entry.file], {
      env: childEnv({
        ...databaseEnv(t.db),
        CHAIN_LTC_RPC_URL: ltc.rpcUrl,
        CHAIN_ETH_RPC_URL: eth.rpcUrl,
        SIGNER_MAX_PAYOUT_ETH: '10',
        SIGNER_MAX_DAILY_ETH: '100000',
        SIGNER_KEY_FILE: path.join(keyDir, 'keys.json'),
        SIGNER_PASSPHRASE: PASSPHRASE,
        SIGNER_MAX_PAYOUT_LTC: '10',
        SIGNER_MAX_DAILY_LTC: '100000',
        PAYOUT_BATCH_SECONDS: '0',
        SIGNER_INTERVAL_MS: '50',
        EVM_REPLACE_AFTER_BLOCKS: String(REPLACE_AFTER_BLOCKS),
      }),
    });
  };

  /** A recipient of `chain`: as the API spells it, and as its node does (LTC regtest; EVM: the same). */
  const recipient = async (chain: 'LTC' | 'ETH'): Promise<{ chain: 'LTC' | 'ETH'; node: string; mainnet: string }> => {
    if (chain === 'ETH') {
      const address = `0x${hex.encode(randomBytes(20))}`;
      return { chain, node: address, mainnet: address };
    }
    const { regtest, mainnet } = await ltc.recipient();
    return { chain, node: regtest, mainnet };
  };

  /** What the recipient holds on its chain, exactly. */
  const received = async (to: { chain: 'LTC' | 'ETH'; node: string }): Promise<{ amount: Decimal; txids: string[] }> => {
    if (to.chain === 'ETH') {
      const wei = await eth.rpc<string>('eth_getBalance', [to.node, 'latest']);
      return { amount: new Decimal(BigInt(wei).toString()).div(new Decimal(10).pow(18)), txids: [] };
    }
    return ltc.received(to.node);
  };

  /** A BTC → LTC or ETH order deposited (simulator) and confirmed: the next worker passes make it sending. */
  const depositedOrder = async (to: { chain: 'LTC' | 'ETH'; mainnet: string }): Promise<string> => {
    await t.runtime.liquidity.refresh();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: to.chain, network_to: to.chain, amount_from: '0.0005', rate_type: 'float', recipient_address: to.mainnet },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/deposit`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/confirmations`, { count: BTC_CONFIRMATIONS })).statusCode, 200);
    return id;
  };

  const workerPasses = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      await t.runtime.worker.tick();
      clock.advance(2000);
      await t.runtime.prices.refresh();
    }
  };

  const payoutStates = async (): Promise<Map<string, number>> => {
    const rows = await t.db.handle.db.selectFrom('payouts').select(['status', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('status').execute();
    return new Map(rows.map((row) => [row.status, Number(row.n)]));
  };

  const unfinished = async (): Promise<string> => {
    const rows = await t.db.handle.db.selectFrom('payouts').select(['chain', 'status', 'status_reason', 'failure_reason', 'txid']).where('status', '!=', 'confirmed').execute();
    const height = await ltc.rpc<number>('getblockcount');
    const notSending = await t.db.handle.db.selectFrom('orders').select(['id', 'coin_to', 'status', 'status_reason', 'attempts']).where('status', 'not in', ['sending', 'completed']).execute();
    return `litecoind height ${height}; unfinished payouts: ${JSON.stringify(rows)}; orders without one: ${JSON.stringify(notSending)}`;
  };

  it(`${ROUNDS} rounds of kill -9 with payouts in flight, then every order paid exactly once on the chain`, async () => {
    const orders: { id: string; to: { chain: 'LTC' | 'ETH'; node: string; mainnet: string } }[] = [];
    const reached = new Map<KillPoint, number>();
    const leftStored = { rounds: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < PER_ROUND; i++) {
        const to = await recipient(i % 2 === 0 ? 'LTC' : 'ETH');
        orders.push({ id: await depositedOrder(to), to });
      }
      await workerPasses(2);

      const point = KILL_POINTS[round % KILL_POINTS.length] as KillPoint;
      // The replacement rounds: anvil stops mining by itself, so the round's ETH transactions
      // stay unmined; they are dropped from its pool and blocks pass without them, and the signer
      // is killed the moment it reports a replacement stored (before it broadcasts it).
      if (point === 'replacement') await eth.rpc('evm_setAutomine', [false]);
      const signer = startSigner();
      const seen = signer.tail.bind(signer);
      // Polled tightly: the kill should land as close after the line as the machine allows.
      const waitForLine = (pattern: RegExp): Promise<unknown> =>
        waitFor(`the signer to log ${pattern}`, () => signer.saw(pattern) || !signer.running, { timeoutMs: 60_000, intervalMs: 2 }).catch((error: unknown) => {
          throw new Error(`${(error as Error).message}\n${seen(30)}`);
        });
      if (point === 'start-up') {
        await sleep(Math.floor(Math.random() * 1500));
      } else if (point === 'replacement') {
        await waitForLine(/"chain":"ETH"[^\n]*"msg":"payout transaction broadcast"/);
        await eth.rpc('anvil_dropAllTransactions', []);
        await eth.mine(REPLACE_AFTER_BLOCKS);
        await waitForLine(/replaced with higher fees/);
      } else {
        const pattern = point === 'stored' ? /signed and stored/ : point === 'broadcast' ? /payout transaction broadcast/ : /"msg":"signer running"/;
        await waitForLine(pattern);
        if (point === 'following') {
          await ltc.mine(1);
          await sleep(Math.floor(Math.random() * 400));
        }
      }
      assert.ok(signer.running || signer.exit?.signal === null, `the signer stopped by itself: ${seen(30)}`);
      await signer.kill9();
      if (point === 'replacement') await eth.rpc('evm_setAutomine', [true]);
      reached.set(point, (reached.get(point) ?? 0) + 1);
      const stored = await t.db.handle.db.selectFrom('payout_transactions').select('id').where('state', '=', 'signed').execute();
      await eth.mine(1);
      if (stored.length > 0) leftStored.rounds++;
      if (round % 2 === 1) await ltc.mine(1);
      await workerPasses(1);
    }

    // One signer to the end: blocks are mined until every payout is confirmed.
    const last = startSigner();
    try {
      await waitFor(
        'every payout confirmed',
        async () => {
          // The worker moves on any order whose exchange step was put off (a retry's backoff).
          await workerPasses(1);
          const states = await payoutStates();
          if ((states.get('confirmed') ?? 0) === orders.length) return states;
          // Blocks only where payouts wait: litecoind's regtest must stay well below the height
          // where MWEB activates (its blocks then need an MWEB-aware miner).
          const waiting = await t.db.handle.db.selectFrom('payouts').select('chain').distinct().where('status', '!=', 'confirmed').execute();
          if (waiting.some((row) => row.chain === 'LTC')) await ltc.mine(1);
          if (waiting.some((row) => row.chain === 'ETH')) await eth.mine(1);
          return undefined;
        },
        { timeoutMs: 120_000, intervalMs: 300 },
      ).catch(async (error: unknown) => {
        throw new Error(`${(error as Error).message}: ${await unfinished()}\n${last.tail(30)}`);
      });
    } finally {
      await last.stop();
    }
    await workerPasses(3);

    for (const order of orders) {
      const row = await t.db.handle.db.selectFrom('orders').select(['status', 'amount_to_final', 'payout_txid']).where('id', '=', order.id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'completed', order.id);
      const got = await received(order.to);
      assert.equal(got.amount.toFixed(), new Decimal(row.amount_to_final as string).toFixed(), `order ${order.id} (${order.to.chain}) paid exactly once`);
      if (order.to.chain === 'LTC') assert.deepEqual(got.txids, [row.payout_txid]);
    }
    const all = await t.db.handle.db.selectFrom('payout_transactions').select(['chain', 'txid', 'state', 'nonce']).execute();
    const transactions = all.filter((tx) => tx.chain === 'LTC');
    const ethTransactions = all.filter((tx) => tx.chain === 'ETH');
    // EVM: a replacement family is one nonce; exactly one of each family is mined.
    const minedEth = ethTransactions.filter((tx) => tx.state === 'mined');
    assert.equal(new Set(minedEth.map((tx) => String(tx.nonce))).size, minedEth.length, 'one mined transaction per nonce');
    assert.ok(ethTransactions.length - minedEth.length >= (reached.get('replacement') ?? 0), 'each replacement round stored a replacement');
    assert.deepEqual([...new Set(ethTransactions.map((tx) => tx.state))].filter((state) => state !== 'mined' && state !== 'replaced'), [], 'none left signed or broadcast');
    const nonce = Number(BigInt(await eth.rpc<string>('eth_getTransactionCount', [new HotWallet(mnemonics).fundingAddress('ETH'), 'latest'])));
    assert.equal(nonce, minedEth.length, "the hot wallet's nonce on anvil is the number of stored transactions mined: none sent unstored, no gap");
    assert.deepEqual(minedEth.map((tx) => Number(tx.nonce)).sort((a, b) => a - b), Array.from({ length: nonce }, (_, i) => i));
    assert.deepEqual([...new Set(transactions.map((tx) => tx.state))], ['mined'], 'every stored transaction was broadcast and mined: none signed and left');
    // The hot wallet as the node sees it: every transaction that spent its coins is one the
    // signer stored, mined; nothing else left the wallet.
    const account = new HotWallet(mnemonics).account('LTC');
    const walletUrl = new URL(ltc.rpcUrl);
    walletUrl.pathname = `/wallet/hot-ltc-${account.fingerprint.toString(16).padStart(8, '0')}`;
    const hotWallet = new JsonRpcClient(walletUrl.toString());
    const sent = await hotWallet.call<{ category: string; txid: string; confirmations: number }[]>('listtransactions', ['*', 100_000, 0, true]);
    const spends = new Map(sent.filter((entry) => entry.category === 'send').map((entry) => [entry.txid, entry.confirmations]));
    assert.deepEqual([...spends.keys()].sort(), transactions.map((tx) => tx.txid).sort(), 'the transactions that left the hot wallet are exactly those stored');
    for (const [txid, confirmations] of spends) assert.ok(confirmations > 0, `${txid} mined`);
    console.log(
      `# signer crash rounds: ${ROUNDS} kills (${[...reached].map(([point, n]) => `${point} ${n}`).join(', ')}); ` +
        `${leftStored.rounds} left a stored transaction not yet marked broadcast; ${orders.length} payouts: LTC in ${transactions.length} transactions, ` +
        `ETH in ${minedEth.length} (${ethTransactions.length - minedEth.length} replaced), each paid once`,
    );
  });
});
