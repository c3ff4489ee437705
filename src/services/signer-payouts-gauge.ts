import { Gauge } from 'prom-client';
import { countSignerPayouts, SIGNER_PAYOUT_STATES, type SignerPayoutState } from '../db/repositories/payouts-repository.js';
import type { Db } from '../db/schema/index.js';
import type { Metrics } from '../metrics.js';
import { ORDER_STATUS_REFRESH_MS } from '../infrastructure/order-status-gauge.js';

/**
 * signer_payouts{chain,state}: the signer's unfinished payouts, counted on the same
 * timer as orders_by_status (never per scrape): `awaiting_liquidity` is the hot wallet running
 * short, `awaiting_approval` an operator's queue, `paused` a brake that is on.
 */
export class SignerPayoutsGauge {
  private counts = new Map<string, Map<SignerPayoutState, number>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    metrics: Metrics,
    private readonly chains: readonly string[],
    private readonly onError: (error: unknown) => void,
  ) {
    const current = (): ReadonlyMap<string, ReadonlyMap<SignerPayoutState, number>> => this.counts;
    const known = chains;
    new Gauge({
      name: 'signer_payouts',
      help: `Payouts the signer has not finished, by chain and state (awaiting_liquidity: the hot wallet cannot cover them), recounted every ${ORDER_STATUS_REFRESH_MS / 1000} s.`,
      labelNames: ['chain', 'state'],
      registers: [metrics.registry],
      aggregator: 'max',
      collect() {
        const counts = current();
        for (const chain of new Set([...known, ...counts.keys()])) {
          for (const state of SIGNER_PAYOUT_STATES) this.set({ chain, state }, counts.get(chain)?.get(state) ?? 0);
        }
      },
    });
  }

  async refresh(): Promise<void> {
    this.counts = await countSignerPayouts(this.db);
  }

  /** Nothing to count (no PAYOUT_SIGNER_CHAINS): no timer, no query. */
  async start(): Promise<void> {
    if (this.chains.length === 0) return;
    await this.refresh().catch(this.onError);
    this.timer = setInterval(() => void this.refresh().catch(this.onError), ORDER_STATUS_REFRESH_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
