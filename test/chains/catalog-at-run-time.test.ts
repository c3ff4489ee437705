import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { anvilSkip, startAnvil, type Anvil } from '../helpers/anvil-node.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { BTC_ADDRESS, createOrder, getOrder, startChainHarness, tickUntil, type ChainHarness } from '../helpers/chain-order-helpers.js';
import { ManualClock } from '../helpers/test-app.js';
import { compileTestToken, deployData, transferData } from '../helpers/test-erc20-token.js';

/** Test tokens here have 8 decimals, unlike the catalog's USDT, so a wrong scale would show. */
const UNIT = 10n ** 8n;
/** ETH-chain deposits need 12 confirmations: a new ERC-20 row takes it from ETH's own. */
const ETH_CONFIRMATIONS = 12;

interface AdminCurrencyJson {
  id: string;
  coin: string;
  network: string;
  name: string;
  decimals: number;
  token_contract: string | null;
  address_format: string;
  deposit_strategy: string;
  min_confirmations: number;
  explorer_tx_url: string | null;
  price_symbol: string;
  is_withdraw_enabled: boolean;
}

/**
 * docs/contract.md §12, issue 30: coins, tokens and networks are added and edited at run time, through the
 * operator API and the CLI, without a migration. A token freshly deployed on anvil, added with
 * POST /admin/v1/currencies, is listed, priced, quoted, ordered and its deposit watched on the
 * chain right after; what the body leaves out comes from the chain's own coin.
 */
describe('the catalog at run time: a new ERC-20 token, from POST to a completed order', { skip: anvilSkip() }, () => {
  let node: Anvil;
  let h: ChainHarness;
  let token: string;

  before(async () => {
    node = await startAnvil();
    token = (await node.send({ data: deployData(compileTestToken(), 8, 1_000_000n * UNIT) })).contractAddress as string;
    h = await startChainHarness({ CHAIN_ETH_RPC_URL: node.rpcUrl }, new ManualClock());
  });
  after(async () => {
    await h?.t.close();
    await node?.close();
  });

  const add = (body: Record<string, unknown>) => h.t.admin('POST', '/admin/v1/currencies', body);
  const tokenBody = (): Record<string, unknown> => ({
    coin: 'TST',
    network: 'ERC20',
    chain: 'ETH',
    name: 'Test Token',
    decimals: 8,
    token_contract: token,
    min_amount: '1',
    max_amount: '100000',
    payout_fee: '0.5',
  });

  it('POST adds the token, filled from the chain\'s own coin; GET /currencies lists it at once', async () => {
    const res = await add(tokenBody());
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json<AdminCurrencyJson>();
    assert.equal(created.coin, 'TST');
    assert.equal(created.token_contract, token);
    assert.equal(created.address_format, 'evm');
    assert.equal(created.deposit_strategy, 'hd');
    assert.equal(created.min_confirmations, ETH_CONFIRMATIONS);
    assert.equal(created.price_symbol, 'TST');
    const eth = h.t.runtime.catalog.all().find((row) => row.coin === 'ETH' && row.network === 'ETH');
    assert.equal(created.explorer_tx_url, eth?.explorer_tx_url);
    const listed = await h.t.app.inject({ method: 'GET', url: '/api/v1/currencies' });
    const row = listed.json<{ coin: string; network: string; contract_address: string | null; caip19: string }[]>().find((r) => r.coin === 'TST');
    assert.equal(row?.contract_address, token);
    assert.equal(row?.caip19, `eip155:1/erc20:${token}`);
  });

  it('refuses a taken coin and network, a taken contract, an unknown chain, a malformed contract and bad amounts', async () => {
    assert.equal((await add(tokenBody())).statusCode, 409);
    assert.equal((await add({ ...tokenBody(), coin: 'TST2' })).statusCode, 409, 'the same contract under another name');
    const chain = await add({ ...tokenBody(), coin: 'NEW', chain: 'NOPE' });
    assert.equal(chain.statusCode, 422);
    assert.equal(chain.json<{ errors: { field: string }[] }>().errors[0]?.field, 'chain');
    const contract = await add({ ...tokenBody(), coin: 'BAD', token_contract: '0x1234' });
    assert.equal(contract.statusCode, 422);
    assert.equal(contract.json<{ errors: { code: string }[] }>().errors[0]?.code, 'address_invalid');
    assert.equal((await add({ ...tokenBody(), coin: 'BAD', token_contract: null, min_amount: '0.000000001' })).statusCode, 400, 'more decimals than the coin');
    assert.equal((await add({ ...tokenBody(), coin: 'BAD', token_contract: null, min_amount: '10', max_amount: '5' })).statusCode, 422);
    assert.equal((await add({ ...tokenBody(), coin: 'BAD', extra: 1 })).statusCode, 400);
  });

  it('priced by the operator, it is quoted; an order\'s deposit of the new token is watched on anvil and the order completes', async () => {
    // No feed knows TST: without a price the pair is unavailable, with the operator's it is quoted.
    const before = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=TST&network_from=ERC20&coin_to=BTC&amount=10' });
    assert.equal(before.statusCode, 422, before.body);
    assert.equal((await h.t.admin('PUT', '/admin/v1/prices/TST', { price_usd: '2' })).statusCode, 200);
    const quote = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=TST&network_from=ERC20&coin_to=BTC&amount=10' });
    assert.equal(quote.statusCode, 200, quote.body);

    const created = await createOrder(h, { coin_from: 'TST', network_from: 'ERC20', coin_to: 'BTC', network_to: 'BTC', amount_from: '10', recipient_address: BTC_ADDRESS });
    await h.t.runtime.worker.tick();
    const paid = await node.send({ to: token, data: transferData(created.deposit_address, 10n * UNIT + 5n) });
    assert.equal(paid.status, '0x1');
    await h.t.runtime.worker.tick();
    const confirming = await getOrder(h, created.id);
    assert.equal(confirming.status, 'confirming');
    assert.equal(confirming.deposit_txid, paid.transactionHash);
    assert.equal(confirming.amount_from_received, '10.00000005', 'scaled by the row\'s 8 decimals');
    await node.mine(ETH_CONFIRMATIONS - 1);
    await tickUntil(h, created.id, 'completed');
  });

  it('PATCH edits name, links and switches; a native coin gets no contract; decimals cannot change', async () => {
    const id = h.t.runtime.catalog.all().find((row) => row.coin === 'TST')?.id;
    const res = await h.t.admin('PATCH', `/admin/v1/currencies/${id}`, { name: 'Test Token II', explorer_tx_url: 'https://explorer.example/tx/{txid}', is_withdraw_enabled: false });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<AdminCurrencyJson>().name, 'Test Token II');
    const listed = await h.t.app.inject({ method: 'GET', url: '/api/v1/currencies' });
    const row = listed.json<{ coin: string; name: string; is_withdraw_enabled: boolean; explorer_tx_url: string }[]>().find((r) => r.coin === 'TST');
    assert.deepEqual([row?.name, row?.is_withdraw_enabled, row?.explorer_tx_url], ['Test Token II', false, 'https://explorer.example/tx/{txid}']);
    const ethId = h.t.runtime.catalog.all().find((r) => r.coin === 'ETH' && r.network === 'ETH')?.id;
    assert.equal((await h.t.admin('PATCH', `/admin/v1/currencies/${ethId}`, { token_contract: token })).statusCode, 422);
    assert.equal((await h.t.admin('PATCH', `/admin/v1/currencies/${id}`, { decimals: 6 })).statusCode, 400);
  });

  it('the CLI adds one too: currencies add COIN:NETWORK with the chain, name, decimals, contract and limits', async () => {
    const other = (await node.send({ data: deployData(compileTestToken(), 8, 1_000n * UNIT) })).contractAddress as string;
    const address = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    const cli = (...args: string[]) => runAdminCli(args, { DATA_DIR: '/nonexistent', ADMIN_API_URL: address, ADMIN_TOKEN: h.t.adminToken });
    const out = await cli('currencies', 'add', 'tsu:erc20', '--chain', 'eth', '--name', 'Other Token', '--decimals', '8', '--contract', other, '--min-amount', '1', '--max-amount', '1000', '--payout-fee', '0.1');
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^added TSU:ERC20/);
    assert.equal(h.t.runtime.catalog.all().find((row) => row.coin === 'TSU')?.token_contract, other);
    const usage = await cli('currencies', 'add', 'TSV:ERC20', '--chain', 'ETH');
    assert.notEqual(usage.code, 0);
    assert.match(usage.stderr, /needs --name/);
  });
});
