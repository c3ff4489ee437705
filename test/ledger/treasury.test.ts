import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import { createMetrics } from '../../src/metrics.js';
import { CHAIN_READING_MAX_AGE_MS, SignerChainHoldings, Treasury, type ChainHoldings, type TreasuryLine } from '../../src/services/treasury.js';
import { createOrder, depositAndRun, exactJson, startHarness, storedOrder, type Harness } from '../lifecycle/lifecycle-helpers.js';

/**
 * The treasury (docs/contract.md §11.5, issue 29.3): the ledger's hot wallet against the chain's, with
 * the payouts in flight between them; a payment from the hot wallet that no payout explains is
 * reported as drift, in the view and in treasury_drift{asset}.
 */

/** The chain as a test sets it: the signer's reading of the hot wallet, per asset. */
class FakeChain implements ChainHoldings {
  readonly balances = new Map<string, Decimal>();
  read(): Promise<ReadonlyMap<string, Decimal>> {
    return Promise.resolve(new Map(this.balances));
  }
}

describe('treasury: holdings, drift, commission owed and revenue', () => {
  let h: Harness;
  let paidOut: string;
  let fee: string;
  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '0' });
    const markup = await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: 50 });
    assert.equal(markup.statusCode, 200, markup.body);
    const order = await createOrder(h, { amount_from: '0.5' });
    await depositAndRun(h, order.id, 'completed');
    const row = await storedOrder(h, order.id);
    paidOut = row.amount_to_final ?? 'missing';
    fee = row.partner_fee ?? 'missing';
  });
  after(() => h.t.close());

  async function view(): Promise<Record<string, TreasuryLine>> {
    const res = await h.t.admin('GET', '/admin/v1/treasury');
    assert.equal(res.statusCode, 200, res.body);
    return exactJson<Record<string, TreasuryLine>>(res);
  }

  it('per asset: what the hot wallet paid, commission owed, revenue; no chain reading: null', async () => {
    const treasury = await view();
    const ethUsd = h.t.runtime.prices.getPriceUsd('ETH');
    const btcUsd = h.t.runtime.prices.getPriceUsd('BTC');
    assert.ok(ethUsd !== undefined && btcUsd !== undefined, 'the test prices are fresh');
    // In USD to the cent, half to even: a valuation beside the books, which stay in the coin.
    const usd = (price: Decimal, amount: string) => price.times(amount).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN).toFixed(2);
    const ethRevenue = new Decimal(paidOut).plus(fee).negated().toFixed();
    assert.deepEqual(treasury.ETH, {
      holdings_ledger: `-${paidOut}`,
      holdings_chain: null,
      drift: null,
      pending_payouts: '0',
      commission_owed: fee,
      // What the conversion gave out in ETH: the payout and the partner's share.
      revenue: ethRevenue,
      usd: { price: ethUsd.toFixed(), holdings_ledger: usd(ethUsd, `-${paidOut}`), holdings_chain: null, pending_payouts: '0.00', commission_owed: usd(ethUsd, fee), revenue: usd(ethUsd, ethRevenue) },
    });
    assert.deepEqual(treasury.BTC, {
      holdings_ledger: '0',
      holdings_chain: null,
      drift: null,
      pending_payouts: '0',
      commission_owed: '0',
      revenue: '0.5',
      usd: { price: btcUsd.toFixed(), holdings_ledger: '0.00', holdings_chain: null, pending_payouts: '0.00', commission_owed: '0.00', revenue: usd(btcUsd, '0.5') },
    });
    assert.match(treasury.ETH?.usd?.revenue ?? '', /^-\d+\.\d{2}$/);
  });

  it('an operator transfer funds the hot wallet from equity; refused when it names no hot wallet or an unknown asset', async () => {
    const res = await h.t.admin('POST', '/admin/v1/ledger/transfers', { asset: 'ETH', from: 'equity', to: 'hot_wallet', amount: '10', memo: 'funding tx 0xabc', by: 'ops' });
    assert.equal(res.statusCode, 201, res.body);
    const body = exactJson<{ kind: string; entries: unknown[]; memo: string; actor: string }>(res);
    assert.deepEqual(body.entries, [{ account: 'hot_wallet', asset: 'ETH', amount: '10' }, { account: 'equity', asset: 'ETH', amount: '-10' }]);
    assert.equal(body.actor, 'ops');
    assert.equal((await view()).ETH?.holdings_ledger, new Decimal(10).minus(paidOut).toFixed());
    for (const [payload, detail] of [
      [{ asset: 'ETH', from: 'equity', to: 'deposits', amount: '1', memo: 'x', by: 'ops' }, /hot_wallet/],
      [{ asset: 'ETH', from: 'hot_wallet', to: 'hot_wallet', amount: '1', memo: 'x', by: 'ops' }, /two accounts/],
      [{ asset: 'NOPE', from: 'equity', to: 'hot_wallet', amount: '1', memo: 'x', by: 'ops' }, /unknown asset NOPE/],
      [{ asset: 'ETH', from: 'equity', to: 'hot_wallet', amount: '0', memo: 'x', by: 'ops' }, /positive/],
      [{ asset: 'ETH', from: 'equity', to: 'hot_wallet', amount: '-1', memo: 'x', by: 'ops' }, /amount/],
    ] as const) {
      const refused = await h.t.admin('POST', '/admin/v1/ledger/transfers', payload);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.match(refused.json<{ detail: string }>().detail, detail);
    }
    const balance = exactJson<{ totals: Record<string, string> }>(await h.t.admin('GET', '/admin/v1/ledger/trial-balance'));
    assert.deepEqual(balance.totals, { BTC: '0', ETH: '0' });
  });

  it('reconciles with the chain, counts a payout in flight, and reports a payment no payout explains as drift', async () => {
    const chain = new FakeChain();
    const metrics = createMetrics();
    const errors: unknown[] = [];
    const treasury = new Treasury(h.t.db.handle.db, h.clock, h.t.runtime.catalog, chain, metrics, (error) => errors.push(error));
    const drift = async (asset: string) => (await metrics.registry.getSingleMetric('treasury_drift')?.get())?.values.find((v) => v.labels.asset === asset)?.value;

    // The chain holds what the ledger says: no drift.
    const ledgerEth = new Decimal(10).minus(paidOut);
    chain.balances.set('ETH', ledgerEth);
    assert.equal((await treasury.view()).ETH?.drift, '0');
    assert.equal(await drift('ETH'), 0);

    // A signer payout in flight (broadcast, its order still sending): gone from the chain, not yet
    // posted; pending_payouts explains it, with its fee, so still no drift.
    const order = await createOrder(h, { amount_from: '0.2' });
    // Stopped in sending, before the worker's next pass would pay it on the simulator.
    await depositAndRun(h, order.id, 'sending');
    const request = await h.t.db.handle.db
      .updateTable('payouts')
      .set({ payer: 'signer', status: 'broadcast', txid: '0xflight', fee: '0.000021' })
      .where('order_id', '=', order.id)
      .where('kind', '=', 'payout')
      .returning('amount')
      .executeTakeFirstOrThrow();
    const inFlight = new Decimal(request.amount).plus('0.000021');
    chain.balances.set('ETH', ledgerEth.minus(inFlight));
    const flying = await treasury.view();
    assert.equal(flying.ETH?.pending_payouts, inFlight.toFixed());
    assert.equal(flying.ETH?.drift, '0');

    // 0.7 ETH leave the hot wallet with no payout behind them: reported, exactly.
    chain.balances.set('ETH', ledgerEth.minus(inFlight).minus('0.7'));
    const drifted = await treasury.view();
    assert.equal(drifted.ETH?.drift, '-0.7');
    assert.equal(drifted.ETH?.holdings_chain, ledgerEth.minus(inFlight).minus('0.7').toFixed());
    assert.equal(await drift('ETH'), -0.7);
    assert.match(await metrics.registry.metrics(), /^treasury_drift\{asset="ETH"\} -0\.7$/m);
    // BTC has no chain reading: no drift, no gauge value.
    assert.equal(drifted.BTC?.drift, null);
    assert.equal(await drift('BTC'), undefined);
    assert.deepEqual(errors, []);
  });

  it("the chain's side is what the signer published (hot_wallet_balances); a reading older than five minutes is none", async () => {
    const db = h.t.db.handle.db;
    const treasury = new Treasury(db, h.clock, h.t.runtime.catalog, new SignerChainHoldings(db, h.t.runtime.catalog, h.clock), createMetrics(), () => undefined);
    const eth = await db.selectFrom('currencies').select('id').where('coin', '=', 'ETH').where('network', '=', 'ETH').executeTakeFirstOrThrow();
    const funded = await h.t.admin('POST', '/admin/v1/ledger/transfers', { asset: 'ETH', from: 'equity', to: 'hot_wallet', amount: '100', memo: 'more float', by: 'ops' });
    assert.equal(funded.statusCode, 201, funded.body);
    const before = await treasury.view();
    const expected = new Decimal(before.ETH?.holdings_ledger ?? 'NaN').minus(before.ETH?.pending_payouts ?? 'NaN');
    // The signer's reading of the hot wallet: 0.25 ETH short of what the books expect.
    await db.insertInto('hot_wallet_balances').values({ currency_id: eth.id, chain: 'ETH', spendable: expected.minus('0.25').toFixed(), read_at: h.clock.now() }).execute();
    const read = await treasury.view();
    assert.equal(read.ETH?.holdings_chain, expected.minus('0.25').toFixed());
    assert.equal(read.ETH?.drift, '-0.25');
    h.clock.advance(CHAIN_READING_MAX_AGE_MS + 1);
    const stale = await treasury.view();
    assert.equal(stale.ETH?.holdings_chain, null);
    assert.equal(stale.ETH?.drift, null);
  });
});
