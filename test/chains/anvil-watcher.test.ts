import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unitsToDecimal } from '../../src/chains/nodes/evm-reader.js';
import { anvilSkip, startAnvil, type Anvil } from '../helpers/anvil-node.js';
import {
  BTC_ADDRESS,
  createOrder,
  getOrder,
  moves,
  startChainHarness,
  tickUntil,
  type ChainHarness,
  type OrderJson,
} from '../helpers/chain-order-helpers.js';
import { ManualClock } from '../helpers/test-app.js';
import { compileTestToken, deployData, transferData } from '../helpers/test-erc20-token.js';

/** ETH and ERC-20 deposits need 12 confirmations in the seed catalog (migration 0002). */
const ETH_CONFIRMATIONS = 12;
const WEI_PER_ETH = 10n ** 18n;
/** USDT has 6 decimals, like the test token deployed as the catalog's USDT (ERC20) contract. */
const USDT_UNIT = 10n ** 6n;

/**
 * A real EVM node (anvil) behind CHAIN_ETH_RPC_URL: native ETH and ERC-20 Transfer deposits
 * move ETH → BTC and USDT → BTC orders through the worker; a reorg (evm_revert) sends one back.
 */
describe('EVM node watcher against anvil', { skip: anvilSkip() }, () => {
  let node: Anvil;
  let h: ChainHarness;
  let token: string;
  let decoy: string;

  before(async () => {
    node = await startAnvil();
    const bytecode = compileTestToken();
    token = (await node.send({ data: deployData(bytecode, 6, 1_000_000n * USDT_UNIT) })).contractAddress as string;
    decoy = (await node.send({ data: deployData(bytecode, 6, 1_000_000n * USDT_UNIT) })).contractAddress as string;
    h = await startChainHarness({ CHAIN_ETH_RPC_URL: node.rpcUrl }, new ManualClock());
    // The catalog's USDT (ERC20) is the token just deployed (mainnet's contract does not exist here).
    await h.t.db.handle.db.updateTable('currencies').set({ token_contract: token }).where('coin', '=', 'USDT').where('network', '=', 'ERC20').execute();
  });
  after(async () => {
    await h?.t.close();
    await node?.close();
  });

  const order = (coin: 'ETH' | 'USDT', amount: string): Promise<OrderJson> =>
    createOrder(h, {
      coin_from: coin,
      network_from: coin === 'ETH' ? 'ETH' : 'ERC20',
      coin_to: 'BTC',
      network_to: 'BTC',
      amount_from: amount,
      recipient_address: BTC_ADDRESS,
    });

  it('native ETH: seen in its block, confirmed after 12 blocks, then exchanged', async () => {
    const created = await order('ETH', '0.5');
    await h.t.runtime.worker.tick();

    const paid = await node.send({ to: created.deposit_address, value: WEI_PER_ETH / 2n + 1n });
    await h.t.runtime.worker.tick();
    const confirming = await getOrder(h, created.id);
    assert.equal(confirming.status, 'confirming');
    assert.equal(confirming.deposit_txid, paid.transactionHash);
    assert.equal(confirming.deposit_confirmations, '1');
    assert.equal(confirming.amount_from_received, '0.500000000000000001', 'one wei more, exactly');

    await node.mine(ETH_CONFIRMATIONS - 2);
    await h.t.runtime.worker.tick();
    assert.equal((await getOrder(h, created.id)).deposit_confirmations, String(ETH_CONFIRMATIONS - 1));
    await node.mine(1);
    await tickUntil(h, created.id, 'completed');
    assert.deepEqual((await moves(h, created.id)).slice(0, 4), [
      '∅→waiting_deposit',
      'waiting_deposit→confirming',
      'confirming→exchanging',
      'exchanging→sending',
    ]);
  });

  it('ERC-20: a Transfer of the order token counts; another token to the same address does not', async () => {
    const created = await order('USDT', '100');
    await h.t.runtime.worker.tick();

    await node.send({ to: decoy, data: transferData(created.deposit_address, 500n * USDT_UNIT) });
    await h.t.runtime.worker.tick();
    assert.equal((await getOrder(h, created.id)).status, 'waiting_deposit', 'a transfer of another token is not this deposit');

    const paid = await node.send({ to: token, data: transferData(created.deposit_address, 100_500_000n) });
    assert.equal(paid.status, '0x1');
    await h.t.runtime.worker.tick();
    const confirming = await getOrder(h, created.id);
    assert.equal(confirming.status, 'confirming');
    assert.equal(confirming.deposit_txid, paid.transactionHash);
    assert.equal(confirming.amount_from_received, '100.5');

    await node.mine(ETH_CONFIRMATIONS - 1);
    await tickUntil(h, created.id, 'completed');
    assert.ok((await moves(h, created.id)).includes('confirming→exchanging'));
  });

  it('a reorg that removes the deposit sends the order back to waiting_deposit', async () => {
    const created = await order('ETH', '0.5');
    await h.t.runtime.worker.tick();
    const snapshot = await node.rpc<string>('evm_snapshot');
    const paid = await node.send({ to: created.deposit_address, value: WEI_PER_ETH / 2n });
    await node.mine(2);
    await h.t.runtime.worker.tick();
    const confirming = await getOrder(h, created.id);
    assert.equal(confirming.status, 'confirming');
    assert.equal(confirming.deposit_txid, paid.transactionHash);
    assert.equal(confirming.deposit_confirmations, '3');

    // The deposit's blocks are replaced by other (empty) ones at the same heights and beyond.
    assert.equal(await node.rpc<boolean>('evm_revert', [snapshot]), true);
    await node.mine(4);
    await h.t.runtime.worker.tick();
    const back = await getOrder(h, created.id);
    assert.equal(back.status, 'waiting_deposit');
    assert.equal(back.deposit_txid, null);
    assert.equal(back.amount_from_received, null);
    assert.deepEqual(await moves(h, created.id), ['∅→waiting_deposit', 'waiting_deposit→confirming', 'confirming→waiting_deposit']);
  });

  it('turns integer units into exact decimals', () => {
    assert.equal(unitsToDecimal(1n, 18).toFixed(), '0.000000000000000001');
    assert.equal(unitsToDecimal(123_456_789_012_345_678_901_234_567n, 18).toFixed(), '123456789.012345678901234567');
    assert.equal(unitsToDecimal(100_500_000n, 6).toFixed(), '100.5');
    assert.equal(unitsToDecimal(42n, 0).toFixed(), '42');
  });
});
