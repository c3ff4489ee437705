import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bech32 } from '@scure/base';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal } from '../../src/domain/money.js';
import { ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { buildPayoutsTestApp, standInReading } from './payouts-test-app.js';

/**
 * docs/contract.md §11.7, issue 28: quotes and orders on the signer's chains only for what its hot wallet
 * can pay (the signer's last reading, hot_wallet_balances, minus the payouts still waiting for a
 * signature). The signer itself is stood in for by its readings here: test/signer/
 * litecoind-payouts and anvil-evm-payouts check that a real signer publishes them.
 */

const production = testEngine() !== 'postgres' ? 'signer payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;
/** A valid LTC (mainnet) address: 20 bytes of witness program, bech32 with its checksum. */
const LTC_RECIPIENT = bech32.encode('ltc', [0, ...bech32.toWords(new Uint8Array(20).fill(7))]);

interface ErrorJson {
  code: string;
  detail: string;
  errors: { code: string; field: string | null; detail: string }[];
}

describe('quotes and orders against what the hot wallet can pay (docs/contract.md §11.7)', { skip: production }, () => {
  let t: TestApp;
  let live: string;
  let sandbox: string;
  const clock = new ManualClock();

  before(async () => {
    t = await buildPayoutsTestApp(clock, {
      PAYOUT_SIGNER_CHAINS: 'LTC',
      DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin,
      HOT_WALLET_MIN_LTC: '5',
      HOT_WALLET_MAX_LTC: '1000',
    });
    const partner = await t.createPartner({ rate_limit_per_minute: 100_000 });
    live = partner.apiKey;
    const issued = await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { sandbox: true });
    assert.equal(issued.statusCode, 201, issued.body);
    sandbox = issued.json<{ api_key: string }>().api_key;
  });
  after(() => t?.close());

  /** The signer's reading of what LTC can pay, as its pass writes it; then the API reads it. */
  const reading = async (spendable: string): Promise<void> => {
    await standInReading(t, 'LTC', spendable, clock.now());
    await t.runtime.liquidity.refresh();
  };

  const ltcListed = async (key?: string): Promise<boolean | undefined> => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies', headers: key === undefined ? {} : { 'x-api-key': key } });
    return res.json<{ coin: string; network: string; is_withdraw_enabled: boolean }[]>().find((row) => row.coin === 'LTC' && row.network === 'LTC')?.is_withdraw_enabled;
  };
  const rate = (query: string, key?: string) =>
    t.app.inject({ method: 'GET', url: `/api/v1/partner/rates?coin_from=BTC&coin_to=LTC&${query}`, headers: key === undefined ? {} : { 'x-api-key': key } });
  const order = (payload: Record<string, unknown>, key = live) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': key },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'LTC', network_to: 'LTC', rate_type: 'float', recipient_address: LTC_RECIPIENT, ...payload },
    });
  const assertShort = (res: { statusCode: number; body: string; json<T>(): T }): void => {
    assert.equal(res.statusCode, 422, res.body);
    const body = res.json<ErrorJson>();
    assert.equal(body.code, 'pair_unavailable');
    assert.deepEqual(body.errors.map((item) => [item.code, item.field]), [['insufficient_liquidity', 'coin_to']]);
  };

  it('before the signer published anything, LTC is listed withdraw-disabled and not quoted; the sandbox is not affected', async () => {
    assert.equal(await ltcListed(), false);
    assert.equal(await ltcListed(live), false);
    assertShort(await rate('amount=0.01'));
    assertShort(await order({ amount_from: '0.01' }));
    // A sandbox key's orders are paid by the simulator: no hot wallet stands behind them.
    assert.equal(await ltcListed(sandbox), true);
    assert.equal((await rate('amount=0.01', sandbox)).statusCode, 200);
    assert.equal((await order({ amount_from: '0.01' }, sandbox)).statusCode, 201);
    // A chain the signer does not pay is not checked (and not offered live at all: no payout path).
    const eth = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.01' });
    assert.notEqual(eth.json<ErrorJson>().errors[0]?.code, 'insufficient_liquidity');
  });

  it('with a reading: listed, quoted and ordered up to it, refused past it; the amount held is never told', async () => {
    await reading('10');
    assert.equal(await ltcListed(), true);
    // A reverse quote's payout may pass amount_to by the last decimal: just under the reading.
    assert.equal((await rate('amount_to=9.99')).statusCode, 200);
    const past = await rate('amount_to=10.5');
    assertShort(past);
    assert.equal(past.body.replaceAll('10.5', '').includes('10'), false, `the reading is not in the body: ${past.body}`);
    assertShort(await order({ amount_to: '10.5' }));
    // An empty wallet is listed withdraw-disabled again.
    await reading('0');
    assert.equal(await ltcListed(), false);
    assertShort(await rate('amount=0.001'));
  });

  it('payouts waiting for a signature are counted: what they will take is not offered again', async () => {
    await reading('10');
    const res = await order({ amount_to: '7' });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/deposit`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/confirmations`, { count: 2 })).statusCode, 200);
    for (let i = 0; i < 6; i++) {
      await t.runtime.worker.tick();
      clock.advance(2000);
      await t.runtime.prices.refresh();
    }
    const payout = await t.db.handle.db.selectFrom('payouts').select(['status', 'amount']).where('order_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(payout.status, 'requested');
    await t.runtime.liquidity.refresh();
    // 10 held, about 7 waiting: 5 more cannot be paid, 2 can.
    assertShort(await rate('amount_to=5'));
    assert.equal((await rate('amount_to=2')).statusCode, 200);
    // The gauges the alert rules read (ops/prometheus/signer-alerts.yml).
    const metrics = (await t.operator({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^hot_wallet_spendable\{chain="LTC",asset="LTC"\} 10$/m);
    const available = /^hot_wallet_available\{chain="LTC",asset="LTC"\} (\S+)$/m.exec(metrics)?.[1];
    assert.equal(Number(available), new Decimal(10).minus(payout.amount).toNumber());
    assert.match(metrics, /^hot_wallet_threshold\{asset="LTC",bound="min"\} 5$/m);
    assert.match(metrics, /^hot_wallet_threshold\{asset="LTC",bound="max"\} 1000$/m);
    // Once the signer signed it, its reading no longer holds those coins and the payout no
    // longer waits: the same arithmetic from the other side.
    await t.db.handle.db.updateTable('payouts').set({ status: 'broadcast' }).where('order_id', '=', id).execute();
    await reading('3');
    assertShort(await rate('amount_to=5'));
    assert.equal((await rate('amount_to=2')).statusCode, 200);
  });

  it('a fixed quote given while the wallet could pay it is refused at order time once it cannot', async () => {
    await reading('10');
    const quote = await rate('amount_to=6&rate_type=fixed', live);
    assert.equal(quote.statusCode, 200, quote.body);
    const { quote_id: quoteId, amount_from: amountFrom } = quote.json<{ quote_id: string; amount_from: number }>();
    await reading('5');
    const res = await order({ rate_type: 'fixed', quote_id: quoteId, amount_to: '6', amount_from: undefined });
    assertShort(res);
    assert.ok(amountFrom > 0);
  });
});
