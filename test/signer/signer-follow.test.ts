import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bech32 } from '@scure/base';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { buildPayoutsTestApp, standInReading } from './payouts-test-app.js';

/**
 * Issue 28: the worker follows the signer's payouts without leasing the orders that wait on it.
 * Found by the payouts bench: orders waiting on the signer were leased again every 2 s and, being
 * the oldest, filled every pass's batch (20), so with more of them than a batch (a paused signer,
 * a hot wallet running dry) a newly deposited order was never exchanged.
 */

const production = testEngine() !== 'postgres' ? 'signer payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;
/** A valid LTC (mainnet) address: 20 bytes of witness program, bech32 with its checksum. */
const LTC_RECIPIENT = bech32.encode('ltc', [0, ...bech32.toWords(new Uint8Array(20).fill(7))]);

describe('orders waiting on the signer never hold up the worker', { skip: production }, () => {
  let t: TestApp;
  let apiKey: string;
  const clock = new ManualClock();

  before(async () => {
    t = await buildPayoutsTestApp(clock, { PAYOUT_SIGNER_CHAINS: 'LTC', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin });
    ({ apiKey } = await t.createPartner());
    // The signer's last reading before it stopped (docs/contract.md §11.7): enough for every order here.
    await standInReading(t, 'LTC', '100000', clock.now());
    await t.runtime.liquidity.refresh();
  });
  after(() => t?.close());

  const deposited = async (): Promise<string> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'LTC', network_to: 'LTC', amount_from: '0.01', rate_type: 'float', recipient_address: LTC_RECIPIENT },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/deposit`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/confirmations`, { count: 2 })).statusCode, 200);
    return id;
  };

  const pass = async (): Promise<void> => {
    await t.runtime.worker.tick();
    clock.advance(2000);
    await t.runtime.prices.refresh();
  };

  const statusOf = async (id: string): Promise<string> =>
    (await t.db.handle.db.selectFrom('orders').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

  it('30 payouts waiting on a signer that does not run; an order deposited after them is exchanged on the next passes', async () => {
    const waiting: string[] = [];
    for (let i = 0; i < 30; i++) waiting.push(await deposited());
    for (let i = 0; i < 6; i++) await pass();
    for (const id of waiting) assert.equal(await statusOf(id), 'sending');

    // Many passes later the 30 still wait on the signer; a new order must not wait behind them.
    for (let i = 0; i < 5; i++) await pass();
    const late = await deposited();
    await pass();
    await pass();
    assert.equal(await statusOf(late), 'sending', 'exchanged, its payout requested, beside the 30 that wait');
    const requested = await t.db.handle.db.selectFrom('payouts').select('status').where('payer', '=', 'signer').execute();
    assert.equal(requested.length, 31);
    assert.ok(requested.every((row) => row.status === 'requested'));
  });
});
