// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';

interface Currency {
  coin: string;
  network: string;
  is_deposit_enabled: boolean;
  is_withdraw_enabled: boolean;
}

const BTC_TO_ETH = {
  coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float',
  recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
};
const ETH_TO_BTC = {
  coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', amount_from: 1, rate_type: 'float',
  recipient_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
};

const production =
  testEngine() !== 'postgres' ? 'DATABASE_URL is a PostgreSQL configuration: runs on the PostgreSQL pass' : false;

async function currencies(t: TestApp, apiKey?: string): Promise<Map<string, Currency>> {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies', headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` } });
  assert.equal(res.statusCode, 200, res.body);
  return new Map(res.json<Currency[]>().map((row) => [`${row.coin}/${row.network}`, row]));
}

async function gauge(t: TestApp): Promise<string | undefined> {
  const res = await t.operator({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  return /^simulated_live_payouts (\S+)$/m.exec(res.body)?.[1];
}

async function sandboxKey(t: TestApp, partnerId: string): Promise<string> {
  const res = await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, { sandbox: true });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ api_key: string }>().api_key;
}

const order = (t: TestApp, apiKey: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { authorization: `Bearer ${apiKey}` }, payload: body });

/**
 * Issue 36.1, docs/contract.md §11.1: under DATABASE_URL no live order is settled on the simulator unless
 * the operator says so, and a currency whose deposits are not configured is listed disabled
 * (not a 422 at order time).
 */
describe('money paths under DATABASE_URL (issue 36.1)', { skip: production }, () => {
  describe('SIMULATE_LIVE_PAYOUTS unset: no chain has a payout path', () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp({ production: true, env: { WORKER: 'off', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin } });
    });
    after(() => t.close());

    it('lists every currency withdraw-disabled, and deposit-disabled where no wallet is configured', async () => {
      const listed = await currencies(t);
      assert.ok(listed.size > 5);
      for (const [name, row] of listed) assert.equal(row.is_withdraw_enabled, false, name);
      assert.equal(listed.get('BTC/BTC')?.is_deposit_enabled, true);
      // No xpub (hd), no shared address (memo), no pool loaded (pool).
      assert.equal(listed.get('ETH/ETH')?.is_deposit_enabled, false);
      assert.equal(listed.get('XRP/XRP')?.is_deposit_enabled, false);
      assert.equal(listed.get('SOL/SOL')?.is_deposit_enabled, false);
      assert.equal(await gauge(t), '0');
    });

    it('refuses live quotes and orders with 422 pair_unavailable', async () => {
      const partner = await t.createPartner();
      const rates = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH' });
      assert.equal(rates.statusCode, 422, rates.body);
      assert.equal(rates.json<{ code: string }>().code, 'pair_unavailable');
      const keyed = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH', headers: { authorization: `Bearer ${partner.apiKey}` } });
      assert.equal(keyed.statusCode, 422, keyed.body);

      const live = await order(t, partner.apiKey, BTC_TO_ETH);
      assert.equal(live.statusCode, 422, live.body);
      assert.deepEqual(live.json(), { detail: 'payouts of ETH are not configured on this server for live orders', code: 'pair_unavailable', errors: [{ code: 'pair_unavailable', field: 'coin_to', detail: 'payouts of ETH are not configured on this server for live orders' }] });
      // A currency without a deposit wallet: the same 422 as a disabled one, before any address is sought.
      const noWallet = await order(t, partner.apiKey, ETH_TO_BTC);
      assert.equal(noWallet.statusCode, 422, noWallet.body);
      // Both sides are closed (no ETH wallet, no BTC payout path): v1.2 lists both (docs/contract.md §10.4), the first one on top.
      assert.deepEqual(noWallet.json(), {
        detail: 'deposits of ETH are not configured on this server',
        code: 'pair_unavailable',
        errors: [
          { code: 'pair_unavailable', field: 'coin_from', detail: 'deposits of ETH are not configured on this server' },
          { code: 'pair_unavailable', field: 'coin_to', detail: 'payouts of BTC are not configured on this server for live orders' },
        ],
      });
    });

    it('keeps sandbox keys working: their orders are paid by the simulator', async () => {
      const partner = await t.createPartner();
      const key = await sandboxKey(t, partner.id);
      const listed = await currencies(t, key);
      assert.equal(listed.get('ETH/ETH')?.is_withdraw_enabled, true);
      // Deposits as for live orders: a sandbox order answers as its live twin would.
      assert.equal(listed.get('ETH/ETH')?.is_deposit_enabled, false);
      const rates = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH', headers: { authorization: `Bearer ${key}` } });
      assert.equal(rates.statusCode, 200, rates.body);
      const created = await order(t, key, BTC_TO_ETH);
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json<{ sandbox: boolean }>().sandbox, true);
    });

    it('a pool chain takes deposits once its pool is loaded', async () => {
      assert.equal((await currencies(t)).get('SOL/SOL')?.is_deposit_enabled, false);
      const loaded = await t.admin('POST', '/admin/v1/address-pools/SOL', { addresses: ['7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV'] });
      assert.equal(loaded.statusCode, 200, loaded.body);
      assert.equal((await currencies(t)).get('SOL/SOL')?.is_deposit_enabled, true);
    });
  });

  describe('SIMULATE_LIVE_PAYOUTS=true: offered, and loudly so', () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp({ production: true, env: { WORKER: 'off', SIMULATE_LIVE_PAYOUTS: 'true', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin } });
    });
    after(() => t.close());

    it('warns at start, sets the gauge, and takes live orders', async () => {
      assert.ok(
        t.logs.some((line) => line.includes('"level":40') && line.includes('SIMULATE_LIVE_PAYOUTS=true')),
        'a warning at start',
      );
      assert.equal(await gauge(t), '1');
      const listed = await currencies(t);
      assert.equal(listed.get('ETH/ETH')?.is_withdraw_enabled, true);
      assert.equal(listed.get('ETH/ETH')?.is_deposit_enabled, false);
      const partner = await t.createPartner();
      const created = await order(t, partner.apiKey, BTC_TO_ETH);
      assert.equal(created.statusCode, 201, created.body);
    });
  });
});

describe('money paths on the embedded default (unchanged)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
  });
  after(() => t.close());

  it('offers every switched-on currency: the simulator pays, the demo wallet takes deposits', async () => {
    for (const [name, row] of await currencies(t)) {
      assert.equal(row.is_withdraw_enabled, true, name);
      assert.equal(row.is_deposit_enabled, true, name);
    }
    assert.equal(await gauge(t), '0');
    const partner = await t.createPartner();
    assert.equal((await order(t, partner.apiKey, ETH_TO_BTC)).statusCode, 201);
  });
});
