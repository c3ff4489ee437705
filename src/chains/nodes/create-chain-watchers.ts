import { Counter, Gauge } from 'prom-client';
import type { Clock } from '../../clock.js';
import { ConfigError, type Config } from '../../config.js';
import type { Db } from '../../db/schema/index.js';
import type { Metrics } from '../../metrics.js';
import type { DepositIndexProbe } from '../../services/deposit-index-probe.js';
import type { ChainWatcher } from '../adapters.js';
import { BitcoinFamilyReader } from './bitcoin-family-reader.js';
import type { ChainReader } from './chain-reader.js';
import { EvmReader } from './evm-reader.js';
import { JsonRpcClient } from './json-rpc-client.js';
import { NodeChainWatcher, type NodeWatcherLogger, type NodeWatcherSettings } from './node-chain-watcher.js';
import { BITCOIN_FAMILY_CHAINS } from './node-network-address.js';

const BACKOFF = { baseBackoffMs: 1000, maxBackoffMs: 60_000 };

/**
 * Per family: Bitcoin-family blocks come every 1 to 10 minutes and can be megabytes, so few
 * per pass; EVM blocks come every few seconds and reorgs there are shallow but more frequent.
 */
const BITCOIN_FAMILY: NodeWatcherSettings = { lookbackBlocks: 3, reorgRewindBlocks: 12, maxBlocksPerPass: 20, ...BACKOFF };
const EVM: NodeWatcherSettings = { lookbackBlocks: 12, reorgRewindBlocks: 64, maxBlocksPerPass: 100, ...BACKOFF };

/** EVM chains with a watcher, and the chain id of their mainnet. */
const EVM_MAINNET_CHAIN_IDS: Readonly<Record<string, number>> = { ETH: 1, BSC: 56 };

export const NODE_WATCHED_CHAINS: readonly string[] = [...BITCOIN_FAMILY_CHAINS, ...Object.keys(EVM_MAINNET_CHAIN_IDS)];

/**
 * One NodeChainWatcher per `CHAIN_<CHAIN>_RPC_URL`. A chain without an adapter stops the start
 * with the variable named, rather than silently staying on the simulator.
 */
export function createChainWatchers(
  config: Config,
  db: Db,
  clock: Clock,
  metrics: Metrics,
  logger: NodeWatcherLogger,
  /** The chain's probe for addresses paid that no order has (hd chains: deposit-index-probe.ts). */
  probeOf: (chain: string) => DepositIndexProbe | undefined = () => undefined,
): NodeChainWatcher[] {
  const chains = Object.keys(config.chainRpcUrls).sort();
  if (chains.length === 0) return [];
  const watcherMetrics = {
    errors: new Counter({
      name: 'chain_watcher_errors_total',
      help: 'Failed chain watcher passes (node unreachable or answering errors), by chain.',
      labelNames: ['chain'] as const,
      registers: [metrics.registry],
    }),
    height: new Gauge({
      name: 'chain_watcher_block_height',
      help: 'Last block scanned by the chain watcher, by chain.',
      labelNames: ['chain'] as const,
      registers: [metrics.registry],
      aggregator: 'max',
    }),
    tip: new Gauge({
      name: 'chain_watcher_tip_height',
      help: "The node's best block at the chain watcher's last pass, by chain (its lag: this less chain_watcher_block_height).",
      labelNames: ['chain'] as const,
      registers: [metrics.registry],
      aggregator: 'max',
    }),
    unknownAddressesPaid: new Counter({
      name: 'deposit_addresses_paid_unknown_total',
      help: 'Deposit addresses seen paid on chain that the database never handed out (a restore lost their orders): retired, and the index sequence moved past them, by chain.',
      labelNames: ['chain'] as const,
      registers: [metrics.registry],
    }),
  };
  return chains.map((chain) => {
    const rpc = new JsonRpcClient(config.chainRpcUrls[chain] as string);
    let reader: ChainReader;
    let settings: NodeWatcherSettings;
    if (BITCOIN_FAMILY_CHAINS.includes(chain)) {
      reader = new BitcoinFamilyReader(chain, rpc);
      settings = BITCOIN_FAMILY;
    } else if (EVM_MAINNET_CHAIN_IDS[chain] !== undefined) {
      reader = new EvmReader(chain, EVM_MAINNET_CHAIN_IDS[chain], rpc);
      settings = EVM;
    } else {
      throw new ConfigError(`CHAIN_${chain}_RPC_URL`, `no node watcher for ${chain} yet; supported: ${NODE_WATCHED_CHAINS.join(', ')}`);
    }
    return new NodeChainWatcher(chain, reader, db, clock, watcherMetrics, logger, settings, probeOf(chain));
  });
}

/** The simulator, minus the chains a node watcher took over (one watcher per chain). */
export function simulatorExcept(simulator: ChainWatcher, chains: ReadonlySet<string>): ChainWatcher {
  if (chains.size === 0) return simulator;
  return {
    name: simulator.name,
    watches: (chain) => !chains.has(chain) && simulator.watches(chain),
    poll: (orders) => simulator.poll(orders),
  };
}
