import { Gauge } from 'prom-client';
import type { ChainReading } from '../db/repositories/hot-wallet-balance-repository.js';
import type { Clock } from '../clock.js';
import { Decimal } from '../domain/money.js';
import type { Metrics } from '../metrics.js';
import type { FeeBound } from '../signer/fee-guard.js';

/** What bounded a fee (fee-guard.ts): each is a series of signer_fee_bounded, 0 or 1. */
const FEE_BOUNDS: readonly FeeBound[] = ['missing', 'floor', 'ceiling', 'jump'];

/** One currency's liquidity as the last refresh read it, labelled as the signer's policy names the asset. */
export interface AssetLiquidity {
  chain: string;
  asset: string;
  spendable: Decimal;
  available: Decimal;
}

/**
 * The hot wallets and the signer's view of each chain as gauges (docs/contract.md §11.7), set from what
 * HotWalletLiquidity reads on its timer (never a query per scrape): what each asset can pay, the
 * operator's thresholds for it (the alert rules in ops/prometheus compare), the last fee and what
 * bounded it, whether the node is behind, and how old the signer's last reading is (a signer that
 * stopped writes none).
 */
export class HotWalletGauges {
  private assets: readonly AssetLiquidity[] = [];
  private chains: readonly (ChainReading & { read_at: Date })[] = [];

  constructor(metrics: Metrics, thresholds: Readonly<Record<string, { min?: string; max?: string }>>, clock: Clock) {
    const registers = [metrics.registry];
    const assets = (): readonly AssetLiquidity[] => this.assets;
    const chains = (): readonly (ChainReading & { read_at: Date })[] => this.chains;
    new Gauge({
      name: 'hot_wallet_spendable',
      help: 'What the hot wallet can pay in the asset, before fees, as the signer last read it: coins none of its transactions in flight spends.',
      labelNames: ['chain', 'asset'],
      registers,
      collect() {
        this.reset();
        for (const row of assets()) this.set({ chain: row.chain, asset: row.asset }, row.spendable.toNumber());
      },
    });
    new Gauge({
      name: 'hot_wallet_available',
      help: 'What new live orders may still be paid in the asset: hot_wallet_spendable less the payouts waiting for a signature (quotes past it are refused).',
      labelNames: ['chain', 'asset'],
      registers,
      collect() {
        this.reset();
        for (const row of assets()) this.set({ chain: row.chain, asset: row.asset }, row.available.toNumber());
      },
    });
    const thresholdGauge = new Gauge({
      name: 'hot_wallet_threshold',
      help: 'HOT_WALLET_MIN_<ASSET> (bound="min": top the hot wallet up below it) and HOT_WALLET_MAX_<ASSET> (bound="max": sweep to cold storage above it).',
      labelNames: ['asset', 'bound'],
      registers,
    });
    for (const [asset, { min, max }] of Object.entries(thresholds)) {
      if (min !== undefined) thresholdGauge.set({ asset, bound: 'min' }, new Decimal(min).toNumber());
      if (max !== undefined) thresholdGauge.set({ asset, bound: 'max' }, new Decimal(max).toNumber());
    }
    new Gauge({
      name: 'signer_fee',
      help: "The signer's last fee per chain: the node's estimate (kind=estimate) and the one it used (kind=used), in `unit` (sat/vB, or gwei: the EVM fee cap per gas).",
      labelNames: ['chain', 'unit', 'kind'],
      registers,
      collect() {
        this.reset();
        for (const row of chains()) {
          if (row.fee_estimate !== null) this.set({ chain: row.chain, unit: row.fee_unit, kind: 'estimate' }, new Decimal(row.fee_estimate).toNumber());
          if (row.fee_used !== null) this.set({ chain: row.chain, unit: row.fee_unit, kind: 'used' }, new Decimal(row.fee_used).toNumber());
        }
      },
    });
    new Gauge({
      name: 'signer_fee_bounded',
      help: "1 when the signer's last fee on the chain was not the node's estimate: none given (missing), raised to the floor, cut to the ceiling or to SIGNER_FEE_MAX_JUMP over the last one (jump).",
      labelNames: ['chain', 'bound'],
      registers,
      collect() {
        this.reset();
        for (const row of chains()) for (const bound of FEE_BOUNDS) this.set({ chain: row.chain, bound }, row.fee_bounds.includes(bound) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'signer_node_behind',
      help: "1 when the signer found the chain's node behind its chain (blocks behind its headers, or its newest block too old): nothing is signed on the chain until it catches up.",
      labelNames: ['chain'],
      registers,
      collect() {
        this.reset();
        for (const row of chains()) this.set({ chain: row.chain }, row.node_behind === null ? 0 : 1);
      },
    });
    new Gauge({
      name: 'signer_reading_age_seconds',
      help: "Seconds since the signer last wrote what the chain's hot wallet can pay (every pass, 2 s by default): a signer that stopped lets it grow.",
      labelNames: ['chain'],
      registers,
      collect() {
        this.reset();
        const now = clock.now().getTime();
        for (const row of chains()) this.set({ chain: row.chain }, Math.max(0, Math.round((now - row.read_at.getTime()) / 1000)));
      },
    });
  }

  update(assets: readonly AssetLiquidity[], chains: readonly (ChainReading & { read_at: Date })[]): void {
    this.assets = assets;
    this.chains = chains;
  }
}
