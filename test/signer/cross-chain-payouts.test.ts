// test-engines: postgres (scripts/run-tests.ts): real payouts need DATABASE_URL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { hex } from '@scure/base';
import { parse } from 'lossless-json';
import { nodeNetworkAddress } from '../../src/chains/nodes/node-network-address.js';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal, toBaseUnits } from '../../src/domain/money.js';
import { BitcoinPayer } from '../../src/signer/bitcoin/bitcoin-payer.js';
import { EvmPayer } from '../../src/signer/evm/evm-payer.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { newMnemonics } from '../../src/signer/key-file.js';
import { PayoutLoop } from '../../src/signer/payout-loop.js';
import { parseSignerPolicy } from '../../src/signer/policy.js';
import { anvilSkip, startAnvil, type Anvil } from '../helpers/anvil-node.js';
import { startLitecoind, type Litecoind } from '../helpers/litecoind-node.js';
import { litecoindSkip } from '../helpers/requirements.js';
import { ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { buildPayoutsTestApp, fundLitecoinFloat } from './payouts-test-app.js';
import { compileTestToken, deployData, transferData } from '../helpers/test-erc20-token.js';

/**
 * Issue 28's proof, end to end on two real nodes: a deposit mined on one chain ends in a payout
 * mined on the other, signed by the signer. The API watches litecoind (regtest) and anvil for
 * deposits as production does (CHAIN_<CHAIN>_RPC_URL, DEPOSIT_XPUB_<CHAIN>); the signer pays from
 * its hot wallet on both. LTC → ETH, ETH → LTC and an ERC-20 token (deployed here as the
 * catalog's USDT on ERC20) → LTC; each recipient's balance on its chain rises by exactly
 * amount_to_final.
 */

const production = testEngine() !== 'postgres' ? 'real payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;
const LTC_CONFIRMATIONS = 6;
const EVM_CONFIRMATIONS = 12;
const USDT_UNIT = 10n ** 6n;

interface OrderJson {
  id: string;
  status: string;
  deposit_address: string;
  amount_to_final: string | null;
  payout_txid: string | null;
  [field: string]: unknown;
}

describe('a deposit mined on one real node, a payout mined on another', { skip: production || litecoindSkip() || anvilSkip() }, () => {
  let ltc: Litecoind;
  let eth: Anvil;
  let t: TestApp;
  let apiKey: string;
  let token: string;
  let loop: PayoutLoop;
  const clock = new ManualClock();
  const hot = new HotWallet(newMnemonics());

  before(async () => {
    [ltc, eth] = await Promise.all([startLitecoind(), startAnvil()]);
    token = (await eth.send({ data: deployData(compileTestToken(), 6, 1_000_000n * USDT_UNIT) })).contractAddress as string;
    const demo = createDemoXpubs();
    t = await buildPayoutsTestApp(clock, {
      PAYOUT_SIGNER_CHAINS: 'LTC,ETH',
      DEPOSIT_XPUB_LTC: demo.litecoin,
      DEPOSIT_XPUB_ETH: demo.evm,
      CHAIN_LTC_RPC_URL: ltc.rpcUrl,
      CHAIN_ETH_RPC_URL: eth.rpcUrl,
    });
    // The catalog's USDT (ERC20) is the token just deployed (mainnet's contract is not on anvil).
    await t.db.handle.db.updateTable('currencies').set({ token_contract: token }).where('coin', '=', 'USDT').where('network', '=', 'ERC20').execute();
    await t.runtime.catalog.reload();
    ({ apiKey } = await t.createPartner());

    // The hot wallet's float on both chains.
    await fundLitecoinFloat(ltc, hot, ['100']);
    await eth.send({ to: hot.fundingAddress('ETH'), value: 100n * 10n ** 18n });

    const ltcPayer = await BitcoinPayer.create('LTC', hot.account('LTC'), ltc.rpcUrl, {
      fees: { min: new Decimal(1), max: new Decimal(100), targetBlocks: 6 },
      batchMax: 50,
      walletBirthday: 0,
      onBoundedFee: () => undefined,
    });
    const ethPayer = await EvmPayer.create('ETH', hot.account('ETH'), eth.rpcUrl, { fees: { minPriorityFee: 10n ** 7n, maxFee: 500n * 10n ** 9n }, replaceAfterBlocks: 12, onBoundedFee: () => undefined });
    await ltcPayer.start(t.db.handle.db);
    await ethPayer.start();
    const silent = { info: () => undefined, warn: () => undefined, error: (o: object, m: string) => console.error(m, o) };
    loop = new PayoutLoop(
      t.db.handle.db,
      [ltcPayer, ethPayer],
      parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '1000', SIGNER_MAX_DAILY_LTC: '10000', SIGNER_MAX_PAYOUT_ETH: '50', SIGNER_MAX_DAILY_ETH: '500' }),
      { batchIntervalMs: 0, confirmations: 1, intervalMs: 50 },
      () => clock.now(),
      silent,
    );
    // The first pass publishes what the hot wallets can pay (docs/contract.md §11.7): orders come after it.
    await loop.pass();
  });

  after(async () => {
    await t?.close();
    await ltc?.close();
    await eth?.close();
  });

  const ltcRecipient = async (): Promise<{ node: string; mainnet: string }> => {
    const { regtest, mainnet } = await ltc.recipient();
    return { node: regtest, mainnet };
  };
  const ltcReceived = async (address: string): Promise<Decimal> => (await ltc.received(address)).amount;

  const create = async (payload: Record<string, unknown>): Promise<OrderJson> => {
    await t.runtime.liquidity.refresh();
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { 'x-api-key': apiKey }, payload: { rate_type: 'float', ...payload } });
    assert.equal(res.statusCode, 201, res.body);
    return parse(res.body, null, (literal: string) => literal) as OrderJson;
  };
  const getOrder = async (id: string): Promise<OrderJson> => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': apiKey } });
    return parse(res.body, null, (literal: string) => literal) as OrderJson;
  };
  const workUntil = async (id: string, status: string): Promise<OrderJson> => {
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      await t.runtime.worker.tick();
      const order = await getOrder(id);
      seen.push(order.status);
      if (order.status === status) return order;
      clock.advance(2000);
      await t.runtime.prices.refresh();
    }
    return assert.fail(`order ${id} did not reach ${status}: ${seen.join(' → ')}`);
  };
  /** The signer pays what is requested; one block on each chain; the signer confirms. */
  const signerRound = async (): Promise<void> => {
    await loop.pass();
    await ltc.mine(1);
    await eth.mine(1);
    await loop.pass();
  };

  it('LTC → ETH: an LTC deposit mined on litecoind, an ETH payout mined on anvil, exactly amount_to_final', async () => {
    const recipient = `0x${hex.encode(randomBytes(20))}`;
    const order = await create({ coin_from: 'LTC', network_from: 'LTC', coin_to: 'ETH', network_to: 'ETH', amount_from: '2', recipient_address: recipient });
    await t.runtime.worker.tick();
    await ltc.rpc('sendtoaddress', [nodeNetworkAddress('LTC', 'regtest', order.deposit_address), '2']);
    await ltc.mine(LTC_CONFIRMATIONS);
    await workUntil(order.id, 'sending');
    await signerRound();
    const done = await workUntil(order.id, 'completed');
    const balance = BigInt(await eth.rpc<string>('eth_getBalance', [recipient, 'latest']));
    assert.equal(balance, toBaseUnits(new Decimal(done.amount_to_final!), 18));
    const receipt = await eth.rpc<{ status: string } | null>('eth_getTransactionReceipt', [done.payout_txid]);
    assert.equal(receipt?.status, '0x1', 'the payout txid is the mined transaction on anvil');
  });

  it('ETH → LTC: an ETH deposit mined on anvil, an LTC payout mined on litecoind, exactly amount_to_final', async () => {
    const to = await ltcRecipient();
    const order = await create({ coin_from: 'ETH', network_from: 'ETH', coin_to: 'LTC', network_to: 'LTC', amount_from: '0.5', recipient_address: to.mainnet });
    await t.runtime.worker.tick();
    await eth.send({ to: order.deposit_address, value: 5n * 10n ** 17n });
    await eth.mine(EVM_CONFIRMATIONS);
    await workUntil(order.id, 'sending');
    await signerRound();
    const done = await workUntil(order.id, 'completed');
    assert.equal((await ltcReceived(to.node)).toFixed(), new Decimal(done.amount_to_final!).toFixed());
  });

  it('an ERC-20 token → LTC: a token transfer mined on anvil, an LTC payout mined on litecoind, exactly amount_to_final', async () => {
    const to = await ltcRecipient();
    const order = await create({ coin_from: 'USDT', network_from: 'ERC20', coin_to: 'LTC', network_to: 'LTC', amount_from: '500', recipient_address: to.mainnet });
    await t.runtime.worker.tick();
    await eth.send({ to: token, data: transferData(order.deposit_address, 500n * USDT_UNIT) });
    await eth.mine(EVM_CONFIRMATIONS);
    await workUntil(order.id, 'sending');
    await signerRound();
    const done = await workUntil(order.id, 'completed');
    assert.equal((await ltcReceived(to.node)).toFixed(), new Decimal(done.amount_to_final!).toFixed());
  });

  it("the books (issue 29): the ledger's ETH hot wallet, its float recorded, is anvil's balance to the wei; the signer's readings of ETH and LTC show no drift; fees booked as paid; totals zero", async () => {
    // The 100 ETH and 100 LTC sent to the hot wallets before the orders, recorded as the operator records a funding.
    for (const asset of ['ETH', 'LTC']) {
      const funding = await t.admin('POST', '/admin/v1/ledger/transfers', { asset, from: 'equity', to: 'hot_wallet', amount: '100', memo: 'the float', by: 'test' });
      assert.equal(funding.statusCode, 201, funding.body);
    }
    type Line = { holdings_ledger: string; holdings_chain: string | null; drift: string | null; pending_payouts: string };
    const treasury = parse((await t.admin('GET', '/admin/v1/treasury')).body, null, (literal: string) => literal) as Record<string, Line>;
    const onChain = BigInt(await eth.rpc<string>('eth_getBalance', [hot.fundingAddress('ETH'), 'latest']));
    assert.equal(treasury.ETH?.pending_payouts, '0');
    assert.equal(toBaseUnits(new Decimal(treasury.ETH?.holdings_ledger ?? 'NaN'), 18), onChain);
    // The signer's own reading of both hot wallets (hot_wallet_balances) agrees with the books: no drift.
    for (const asset of ['ETH', 'LTC']) {
      assert.equal(treasury[asset]?.holdings_chain, treasury[asset]?.holdings_ledger, `${asset}: ${JSON.stringify(treasury[asset])}`);
      assert.equal(treasury[asset]?.drift, '0', asset);
    }
    const fees = await t.db.handle.db.selectFrom('payouts').select('fee').where('chain', '=', 'ETH').where('status', '=', 'confirmed').execute();
    const paid = fees.reduce((sum, row) => sum.plus(row.fee ?? '0'), new Decimal(0));
    assert.ok(paid.gt(0));
    const balance = parse((await t.admin('GET', '/admin/v1/ledger/trial-balance')).body, null, (literal: string) => literal) as {
      accounts: { account: string; asset: string; balance: string }[];
      totals: Record<string, string>;
    };
    assert.equal(balance.accounts.find((row) => row.account === 'network_fees' && row.asset === 'ETH')?.balance, paid.toFixed());
    for (const [asset, total] of Object.entries(balance.totals)) assert.equal(total, '0', asset);
  });
});
