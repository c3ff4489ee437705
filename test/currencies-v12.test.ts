import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AddressFormat } from '../src/domain/address-format.js';
import { VALID_VECTORS } from './domain/addresses/valid-vectors.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

/**
 * A catalog a wallet can map without guessing (docs/contract.md §10.7, issue 27.4): every Currency row
 * carries chain, caip2, caip19, confirmations_required, memo_name and address_regex, for
 * anonymous callers, live and sandbox keys and the operator alike.
 */

interface Currency {
  id: string;
  coin: string;
  network: string;
  min_confirmations: number;
  is_memo: boolean;
  contract_address: string | null;
  chain: string;
  caip2: string;
  caip19: string;
  confirmations_required: number;
  memo_name: string | null;
  address_regex: string;
}

const BTC_CAIP2 = 'bip122:000000000019d6689c085ae165831e93';

/** Hand-written from CAIP-2/CAIP-19, the registered namespaces and SLIP-44 (docs/adr/0031-chains-in-the-catalog.md). */
const EXPECTED: Record<string, Pick<Currency, 'chain' | 'caip2' | 'caip19' | 'memo_name'>> = {
  'BTC/BTC': { chain: 'bitcoin', caip2: BTC_CAIP2, caip19: `${BTC_CAIP2}/slip44:0`, memo_name: null },
  'ETH/ETH': { chain: 'ethereum', caip2: 'eip155:1', caip19: 'eip155:1/slip44:60', memo_name: null },
  'USDT/ERC20': { chain: 'ethereum', caip2: 'eip155:1', caip19: 'eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7', memo_name: null },
  'USDC/ERC20': { chain: 'ethereum', caip2: 'eip155:1', caip19: 'eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', memo_name: null },
  'USDT/TRC20': { chain: 'tron', caip2: 'tron:728126428', caip19: 'tron:728126428/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', memo_name: null },
  'TRX/TRX': { chain: 'tron', caip2: 'tron:728126428', caip19: 'tron:728126428/slip44:195', memo_name: null },
  'USDT/BEP20': { chain: 'bsc', caip2: 'eip155:56', caip19: 'eip155:56/erc20:0x55d398326f99059ff775485246999027b3197955', memo_name: null },
  'BNB/BEP20': { chain: 'bsc', caip2: 'eip155:56', caip19: 'eip155:56/slip44:714', memo_name: null },
  'LTC/LTC': {
    chain: 'litecoin', caip2: 'bip122:12a765e31ffd4059bada1e25190f6e98', caip19: 'bip122:12a765e31ffd4059bada1e25190f6e98/slip44:2', memo_name: null,
  },
  'DOGE/DOGE': {
    chain: 'dogecoin', caip2: 'bip122:1a91e3dace36e2be3bf030a65679fe82', caip19: 'bip122:1a91e3dace36e2be3bf030a65679fe82/slip44:3', memo_name: null,
  },
  'SOL/SOL': {
    chain: 'solana', caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', caip19: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501', memo_name: null,
  },
  'XRP/XRP': { chain: 'xrpl', caip2: 'xrpl:0', caip19: 'xrpl:0/slip44:144', memo_name: 'Destination tag' },
  'XLM/XLM': { chain: 'stellar', caip2: 'stellar:pubnet', caip19: 'stellar:pubnet/slip44:148', memo_name: 'Memo' },
  'TON/TON': { chain: 'ton', caip2: 'tvm:-239', caip19: 'tvm:-239/slip44:607', memo_name: 'Memo' },
};

/** CAIP-2 (namespace:reference) and CAIP-19 (chain/asset namespace:asset reference) syntax. */
const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const CAIP19 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}\/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128}$/;

describe('Currency rows: chain, caip2, caip19, confirmations_required, memo_name, address_regex (docs/contract.md §10.7)', () => {
  let t: TestApp;
  let formats: Map<string, AddressFormat>;
  before(async () => {
    t = await buildTestApp();
    const admin = await t.admin('GET', '/admin/v1/currencies');
    assert.equal(admin.statusCode, 200, admin.body);
    formats = new Map(admin.json<(Currency & { address_format: AddressFormat })[]>().map((row) => [`${row.coin}/${row.network}`, row.address_format]));
  });
  after(() => t.close());

  const list = async (headers: Record<string, string> = {}): Promise<Currency[]> => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies', headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Currency[]>();
  };

  it('every seed currency: its chain, CAIP-2 and CAIP-19 ids and memo name', async () => {
    const rows = await list();
    assert.deepEqual(rows.map((row) => `${row.coin}/${row.network}`).sort(), Object.keys(EXPECTED).sort());
    for (const row of rows) {
      const label = `${row.coin}/${row.network}`;
      const expected = EXPECTED[label];
      assert.deepEqual({ chain: row.chain, caip2: row.caip2, caip19: row.caip19, memo_name: row.memo_name }, expected, label);
      assert.match(row.caip2, CAIP2, label);
      assert.match(row.caip19, CAIP19, label);
      assert.ok(row.caip19.startsWith(`${row.caip2}/`), label);
      // A token's CAIP-19 names its contract; a native coin's, its SLIP-44 type.
      assert.equal(row.caip19.includes('/slip44:'), row.contract_address === null, label);
      // A memo name exactly where the network routes by memo.
      assert.equal(row.memo_name !== null, row.is_memo, label);
    }
  });

  it('confirmations_required is what the lifecycle waits for: the order stores it as deposit_confirmations_required', async () => {
    const rows = await list();
    for (const row of rows) assert.equal(row.confirmations_required, row.min_confirmations, `${row.coin}/${row.network}`);
    const btc = rows.find((row) => row.coin === 'BTC');
    assert.ok(btc !== undefined);
    assert.equal(btc.confirmations_required, 2);
    const patched = await t.admin('PATCH', `/admin/v1/currencies/${btc.id}`, { min_confirmations: 4 });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json<Currency>().confirmations_required, 4);
    assert.equal((await list()).find((row) => row.coin === 'BTC')?.confirmations_required, 4);
    const partner = await t.createPartner();
    const order = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': partner.apiKey, 'content-type': 'application/json' },
      payload: {
        coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.01, rate_type: 'float',
        recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      },
    });
    assert.equal(order.statusCode, 201, order.body);
    assert.equal(order.json<{ deposit_confirmations_required: number }>().deposit_confirmations_required, 4);
    await t.admin('PATCH', `/admin/v1/currencies/${btc.id}`, { min_confirmations: 2 });
  });

  it("address_regex compiles and accepts every valid test vector of the currency's address format", async () => {
    for (const row of await list()) {
      const label = `${row.coin}/${row.network}`;
      const format = formats.get(label);
      assert.ok(format !== undefined, label);
      const regex = new RegExp(row.address_regex);
      assert.ok(row.address_regex.startsWith('^') && row.address_regex.endsWith('$'), `${label}: anchored`);
      for (const address of VALID_VECTORS[format]) assert.match(address, regex, `${label}: ${address}`);
    }
    // A pre-check that tells the chains apart: an EVM address is not a Bitcoin one, nor the reverse.
    const byCoin = new Map((await list()).map((row) => [`${row.coin}/${row.network}`, new RegExp(row.address_regex)]));
    assert.doesNotMatch('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', byCoin.get('BTC/BTC') ?? /./);
    assert.doesNotMatch('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', byCoin.get('ETH/ETH') ?? /./);
    assert.doesNotMatch('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', byCoin.get('USDT/ERC20') ?? /./);
  });

  it('a live key, a sandbox key and the operator see the same fields', async () => {
    const anonymous = await list();
    const live = await t.createPartner();
    const sandboxKey = await t.admin('POST', `/admin/v1/partners/${live.id}/keys`, { sandbox: true });
    assert.equal(sandboxKey.statusCode, 201, sandboxKey.body);
    const pick = (rows: Currency[]) =>
      rows.map(({ id, chain, caip2, caip19, confirmations_required, memo_name, address_regex }) => ({ id, chain, caip2, caip19, confirmations_required, memo_name, address_regex }));
    assert.deepEqual(pick(await list({ 'x-api-key': live.apiKey })), pick(anonymous));
    assert.deepEqual(pick(await list({ 'x-api-key': sandboxKey.json<{ api_key: string }>().api_key })), pick(anonymous));
    const operator = (await t.admin('GET', '/admin/v1/currencies')).json<Currency[]>();
    assert.deepEqual(pick(operator.filter((row) => anonymous.some((a) => a.id === row.id))).sort((a, b) => a.id.localeCompare(b.id)), pick(anonymous).sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('the Currency schema documents the fields as required', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{ components: { schemas: { Currency: { required: string[] } } } }>();
    for (const field of ['chain', 'caip2', 'caip19', 'confirmations_required', 'memo_name', 'address_regex']) {
      assert.ok(doc.components.schemas.Currency.required.includes(field), field);
    }
  });
});
