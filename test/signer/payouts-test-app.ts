import type { Litecoind } from '../helpers/litecoind-node.js';
import { buildTestApp, type ManualClock, type TestApp } from '../helpers/test-app.js';
import { LIFECYCLE_ENV } from '../lifecycle/lifecycle-helpers.js';
import type { HotWallet } from '../../src/signer/hot-wallet.js';

/**
 * What the signer's tests set up alike (docs/contract.md §11): an app configured as production
 * is (DATABASE_URL: PostgreSQL pass only), with the worker and simulator driven by the test, and
 * the hot wallet's float on litecoind (regtest).
 */

/** The app as production has it, the worker off and prices fixed: `env` adds the chains. */
export function buildPayoutsTestApp(clock: ManualClock, env: Record<string, string>): Promise<TestApp> {
  return buildTestApp({ production: true, clock, env: { ...LIFECYCLE_ENV, ...env } });
}

/**
 * Sends the hot wallet's LTC float to its funding address, one coin per amount, and mines it
 * (the blocks before make the node wallet's coinbase coins spendable: 50 LTC each on regtest).
 */
export async function fundLitecoinFloat(ltc: Litecoind, hot: HotWallet, amounts: readonly string[]): Promise<void> {
  await ltc.mine(5);
  const funding = hot.fundingAddress('LTC', 'regtest');
  for (const amount of amounts) await ltc.rpc('sendtoaddress', [funding, amount]);
  await ltc.mine(1);
}

/**
 * A hot wallet reading as the signer's pass writes it (docs/contract.md §11.7; the last one of
 * the coin replaced), for a chain no payer runs for in the test: once the liquidity is refreshed,
 * the quotes and orders take it as what that chain can pay.
 */
export async function standInReading(t: TestApp, coin: string, spendable: string, at: Date): Promise<void> {
  const db = t.db.handle.db;
  const currency = await db.selectFrom('currencies').select('id').where('coin', '=', coin).where('network', '=', coin).executeTakeFirstOrThrow();
  await db
    .insertInto('hot_wallet_balances')
    .values({ currency_id: currency.id, chain: coin, spendable, read_at: at })
    .onConflict((conflict) => conflict.column('currency_id').doUpdateSet({ spendable, read_at: at }))
    .execute();
}
