/**
 * Which chains can really pay a live order out (docs/contract.md §11.1): the signer's (PAYOUT_SIGNER_CHAINS:
 * the worker records their payouts for the signer and follows them), and, with
 * SIMULATE_LIVE_PAYOUTS=true, every other chain on the simulator, which makes up a txid. A chain
 * is offered for live orders only where a payout path is configured, so under DATABASE_URL no
 * live order is settled on the simulator unless the operator says so.
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

/** Every chain is paid by the simulator: the embedded default, or SIMULATE_LIVE_PAYOUTS=true (`simulatedLive`). */
export function simulatorPayoutPaths(simulatedLive: boolean): PayoutPaths {
  return { configured: () => true, simulatedLive };
}

/**
 * The paths a configuration has: the simulator when embedded; under DATABASE_URL the signer's
 * chains (PAYOUT_SIGNER_CHAINS), and every other chain only with SIMULATE_LIVE_PAYOUTS=true.
 */
export function configuredPayoutPaths(config: { databaseUrl: string | undefined; simulateLivePayouts: boolean; payoutSignerChains: readonly string[] }): PayoutPaths {
  if (config.databaseUrl === undefined) return simulatorPayoutPaths(false);
  if (config.simulateLivePayouts) return simulatorPayoutPaths(true);
  const signer = new Set(config.payoutSignerChains);
  return { configured: (chain) => signer.has(chain), simulatedLive: false };
}
