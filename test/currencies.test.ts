import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LosslessNumber, parse } from 'lossless-json';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

/** The Currency object of spec 2.1, key for key, with v1.1's contract_address and chain_id and v1.2's chain facts (docs/contract.md §10.7). */
const SPEC_KEYS = [
  'id', 'coin', 'network', 'name', 'is_active', 'is_deposit_enabled', 'is_withdraw_enabled',
  'min_amount', 'max_amount', 'min_confirmations', 'decimals', 'is_memo',
  'explorer_tx_url', 'explorer_address_url', 'icon_url', 'contract_address', 'chain_id',
  'chain', 'caip2', 'caip19', 'confirmations_required', 'memo_name', 'address_regex',
].sort();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** coin/network → real on-chain decimals and whether the network needs a memo. */
const EXPECTED: Record<string, { decimals: number; memo: boolean }> = {
  'BTC/BTC': { decimals: 8, memo: false },
  'ETH/ETH': { decimals: 18, memo: false },
  'USDT/ERC20': { decimals: 6, memo: false },
  'USDT/TRC20': { decimals: 6, memo: false },
  'USDT/BEP20': { decimals: 18, memo: false },
  'USDC/ERC20': { decimals: 6, memo: false },
  'LTC/LTC': { decimals: 8, memo: false },
  'DOGE/DOGE': { decimals: 8, memo: false },
  'TRX/TRX': { decimals: 6, memo: false },
  'BNB/BEP20': { decimals: 18, memo: false },
  'SOL/SOL': { decimals: 9, memo: false },
  'XRP/XRP': { decimals: 6, memo: true },
  'XLM/XLM': { decimals: 7, memo: true },
  'TON/TON': { decimals: 9, memo: true },
};

interface Currency {
  id: string;
  coin: string;
  network: string;
  name: string;
  is_active: boolean;
  is_deposit_enabled: boolean;
  is_withdraw_enabled: boolean;
  min_amount: number;
  max_amount: number;
  min_confirmations: number;
  decimals: number;
  is_memo: boolean;
  explorer_tx_url: string | null;
  explorer_address_url: string | null;
  icon_url: string | null;
  contract_address: string | null;
  chain_id: number | null;
}

describe('GET /api/v1/currencies', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const list = async (): Promise<{ body: string; currencies: Currency[] }> => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    return { body: res.body, currencies: res.json<Currency[]>() };
  };
  const find = (currencies: Currency[], coin: string, network: string): Currency | undefined =>
    currencies.find((c) => c.coin === coin && c.network === network);

  it('is a public 200 array of spec 2.1 objects with exactly the spec keys', async () => {
    const { currencies } = await list();
    assert.ok(Array.isArray(currencies));
    assert.ok(currencies.length >= Object.keys(EXPECTED).length);
    const ids = new Set<string>();
    for (const c of currencies) {
      const label = `${c.coin}/${c.network}`;
      assert.deepEqual(Object.keys(c).sort(), SPEC_KEYS, `${label} keys`);
      assert.match(c.id, UUID, label);
      ids.add(c.id);
      for (const field of ['coin', 'network', 'name'] as const) {
        assert.equal(typeof c[field], 'string', `${label} ${field}`);
        assert.ok(c[field].length > 0, `${label} ${field}`);
      }
      for (const field of ['is_active', 'is_deposit_enabled', 'is_withdraw_enabled', 'is_memo'] as const) {
        assert.equal(typeof c[field], 'boolean', `${label} ${field}`);
      }
      assert.equal(c.is_active, true, `${label} only active currencies are listed`);
      for (const field of ['min_amount', 'max_amount'] as const) {
        assert.equal(typeof c[field], 'number', `${label} ${field}`);
        assert.ok(Number.isFinite(c[field]) && c[field] > 0, `${label} ${field}`);
      }
      assert.ok(c.min_amount <= c.max_amount, `${label} min <= max`);
      assert.ok(Number.isInteger(c.min_confirmations) && c.min_confirmations >= 0, `${label} min_confirmations`);
      assert.ok(Number.isInteger(c.decimals) && c.decimals >= 0 && c.decimals <= 18, `${label} decimals`);
      for (const field of ['explorer_tx_url', 'explorer_address_url', 'icon_url'] as const) {
        assert.ok(c[field] === null || typeof c[field] === 'string', `${label} ${field}`);
      }
    }
    assert.equal(ids.size, currencies.length, 'ids are unique');
  });

  it('leaks no internal column', async () => {
    const { body } = await list();
    for (const internal of ['payout_fee', 'address_format', 'deposit_strategy', 'price_symbol', 'token_contract', 'sort_order', 'updated_at']) {
      assert.ok(!body.includes(internal), `body mentions ${internal}`);
    }
  });

  it('holds the expected coins and networks with their real decimals; memo exactly for XRP, XLM, TON', async () => {
    const { currencies } = await list();
    for (const [pair, expected] of Object.entries(EXPECTED)) {
      const [coin = '', network = ''] = pair.split('/');
      const c = find(currencies, coin, network);
      assert.ok(c !== undefined, `${pair} is listed`);
      assert.equal(c.decimals, expected.decimals, `${pair} decimals`);
      assert.equal(c.is_memo, expected.memo, `${pair} is_memo`);
    }
    const memoCoins = currencies.filter((c) => c.is_memo).map((c) => c.coin).sort();
    assert.deepEqual(memoCoins, ['TON', 'XLM', 'XRP']);
  });

  it('v1.1: tokens carry their contract address, EVM networks their chain id; native coins null', async () => {
    const { currencies } = await list();
    const tokenOf = (pair: string) => {
      const [coin = '', network = ''] = pair.split('/');
      const c = find(currencies, coin, network);
      assert.ok(c !== undefined, `${pair} is listed`);
      return { contract_address: c.contract_address, chain_id: c.chain_id };
    };
    // Contracts as the token issuers publish them (mainnet).
    assert.deepEqual(tokenOf('USDT/ERC20'), { contract_address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', chain_id: 1 });
    assert.deepEqual(tokenOf('USDC/ERC20'), { contract_address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', chain_id: 1 });
    assert.deepEqual(tokenOf('USDT/BEP20'), { contract_address: '0x55d398326f99059fF775485246999027B3197955', chain_id: 56 });
    assert.deepEqual(tokenOf('USDT/TRC20'), { contract_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', chain_id: null });
    assert.deepEqual(tokenOf('ETH/ETH'), { contract_address: null, chain_id: 1 });
    assert.deepEqual(tokenOf('BNB/BEP20'), { contract_address: null, chain_id: 56 });
    for (const pair of ['BTC/BTC', 'LTC/LTC', 'DOGE/DOGE', 'TRX/TRX', 'SOL/SOL', 'XRP/XRP', 'XLM/XLM', 'TON/TON']) {
      assert.deepEqual(tokenOf(pair), { contract_address: null, chain_id: null }, pair);
    }
  });

  it('writes min/max as plain JSON numbers with no more fraction digits than decimals', async () => {
    const { body } = await list();
    // lossless-json keeps each number's literal text exactly as the body spells it.
    const raw = parse(body) as Array<Record<string, unknown>>;
    assert.ok(raw.length > 0);
    for (const c of raw) {
      const decimals = Number((c.decimals as LosslessNumber).value);
      for (const field of ['min_amount', 'max_amount']) {
        const value = c[field];
        assert.ok(value instanceof LosslessNumber, `${String(c.coin)} ${field} is a JSON number, not a string`);
        const literal = value.value;
        assert.match(literal, /^\d+(\.\d+)?$/, `${String(c.coin)} ${field} literal ${literal}`);
        const fraction = literal.split('.')[1] ?? '';
        assert.ok(fraction.length <= decimals, `${String(c.coin)} ${field} ${literal} exceeds ${decimals} decimals`);
      }
    }
  });

  it('explorer templates carry {txid} and {address}', async () => {
    const { currencies } = await list();
    for (const c of currencies) {
      if (c.explorer_tx_url !== null) {
        assert.ok(c.explorer_tx_url.includes('{txid}'), c.explorer_tx_url);
        assert.match(c.explorer_tx_url, /^https:\/\//);
      }
      if (c.explorer_address_url !== null) {
        assert.ok(c.explorer_address_url.includes('{address}'), c.explorer_address_url);
        assert.match(c.explorer_address_url, /^https:\/\//);
      }
    }
    const btc = find(currencies, 'BTC', 'BTC');
    assert.ok(btc !== undefined);
    assert.ok(btc.explorer_tx_url?.includes('{txid}'));
    assert.ok(btc.explorer_address_url?.includes('{address}'));
  });

  it('every icon_url is a relative path served by the service as SVG', async () => {
    const { currencies } = await list();
    const withIcons = currencies.filter((c): c is Currency & { icon_url: string } => c.icon_url !== null);
    assert.equal(withIcons.length, currencies.length, 'every seeded currency has an icon');
    for (const c of withIcons) {
      assert.match(c.icon_url, /^\/[^/]/, `${c.coin} icon_url is relative`);
      const res = await t.app.inject({ method: 'GET', url: c.icon_url });
      assert.equal(res.statusCode, 200, `${c.coin} ${c.icon_url}`);
      assert.match(String(res.headers['content-type']), /^image\/svg\+xml/);
      assert.ok(res.body.includes('<svg'), `${c.coin} icon is an SVG`);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/static/icons/nope.svg' });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { detail: 'no such icon', code: 'not_found', errors: [{ code: 'not_found', field: null, detail: 'no such icon' }] });
  });

  describe('operator changes show up at once', () => {
    it('deactivating removes the currency from the list; reactivating brings it back', async () => {
      const before = find((await list()).currencies, 'DOGE', 'DOGE');
      assert.ok(before !== undefined);
      const off = await t.admin('PATCH', `/admin/v1/currencies/${before.id}`, { is_active: false });
      assert.equal(off.statusCode, 200);
      assert.equal(off.json<Currency>().is_active, false);
      const afterOff = await list();
      assert.equal(find(afterOff.currencies, 'DOGE', 'DOGE'), undefined);
      assert.ok(!afterOff.currencies.some((c) => c.id === before.id));

      const on = await t.admin('PATCH', `/admin/v1/currencies/${before.id}`, { is_active: true });
      assert.equal(on.statusCode, 200);
      assert.deepEqual(find((await list()).currencies, 'DOGE', 'DOGE'), before);
    });

    it('a new min_amount is listed exactly', async () => {
      const ltc = find((await list()).currencies, 'LTC', 'LTC');
      assert.ok(ltc !== undefined);
      const res = await t.admin('PATCH', `/admin/v1/currencies/${ltc.id}`, { min_amount: '0.12345678' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json<Currency>().min_amount, 0.12345678);
      const { body, currencies } = await list();
      assert.equal(find(currencies, 'LTC', 'LTC')?.min_amount, 0.12345678);
      assert.ok(body.includes('"min_amount":0.12345678'), 'written as the exact literal');

      const asNumber = await t.admin('PATCH', `/admin/v1/currencies/${ltc.id}`, { min_amount: 0.07 });
      assert.equal(asNumber.statusCode, 200);
      assert.equal(find((await list()).currencies, 'LTC', 'LTC')?.min_amount, 0.07);
    });

    it('a min_amount with more decimals than the coin has is 400 and changes nothing', async () => {
      const btc = find((await list()).currencies, 'BTC', 'BTC');
      assert.ok(btc !== undefined);
      for (const min_amount of ['0.000000001', 0.000000001]) {
        const res = await t.admin('PATCH', `/admin/v1/currencies/${btc.id}`, { min_amount });
        assert.equal(res.statusCode, 400, JSON.stringify(min_amount));
        assert.deepEqual(res.json(), { detail: 'min_amount has more than 8 decimals', code: 'bad_request', errors: [{ code: 'bad_request', field: null, detail: 'min_amount has more than 8 decimals' }] });
      }
      assert.deepEqual(find((await list()).currencies, 'BTC', 'BTC'), btc);
    });

    it('min_amount above max_amount is 422 and changes nothing', async () => {
      const sol = find((await list()).currencies, 'SOL', 'SOL');
      assert.ok(sol !== undefined);
      const res = await t.admin('PATCH', `/admin/v1/currencies/${sol.id}`, { min_amount: '30000' });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), { detail: 'min_amount must not exceed max_amount', code: 'unprocessable', errors: [{ code: 'unprocessable', field: null, detail: 'min_amount must not exceed max_amount' }] });
      const both = await t.admin('PATCH', `/admin/v1/currencies/${sol.id}`, { min_amount: '5', max_amount: '4' });
      assert.equal(both.statusCode, 422);
      assert.equal(both.json<{ code: string }>().code, 'unprocessable');
      assert.deepEqual(find((await list()).currencies, 'SOL', 'SOL'), sol);
    });
  });
});
