/**
 * Which chains can really pay a live order out (DESIGN §11.1). The lifecycle worker sends every
 * payout through a PayoutSender; until the signer exists the only one is the simulator, which
 * makes up a txid. A chain is offered for live orders only where a payout path is configured,
 * so under DATABASE_URL no live order is settled on the simulator unless the operator says so.
 *
 * The signer plugs in here: its PayoutPaths answers true for the chains it holds a hot wallet
 * for (and the worker then sends those chains' payouts to it).
 */
export interface PayoutPaths {
  /** Whether live payouts on `chain` (a catalog chain code, e.g. `BTC`) have a real path. */
  configured(chain: string): boolean;
  /**
   * True when live payouts are knowingly settled by the simulator under DATABASE_URL
   * (SIMULATE_LIVE_PAYOUTS=true): warned at start and hourly, gauge `simulated_live_payouts`.
   */
  readonly simulatedLive: boolean;
}

/** No chain has a payout path (production before the signer). */
export const NO_PAYOUT_PATHS: PayoutPaths = { configured: () => false, simulatedLive: false };

/** Every chain is paid by the simulator: the embedded default, or SIMULATE_LIVE_PAYOUTS=true (`simulatedLive`). */
export function simulatorPayoutPaths(simulatedLive: boolean): PayoutPaths {
  return { configured: () => true, simulatedLive };
}

/** The paths a configuration has today: the simulator when embedded or asked for, else none. */
export function configuredPayoutPaths(config: { databaseUrl: string | undefined; simulateLivePayouts: boolean }): PayoutPaths {
  if (config.databaseUrl === undefined) return simulatorPayoutPaths(false);
  return config.simulateLivePayouts ? simulatorPayoutPaths(true) : NO_PAYOUT_PATHS;
}
