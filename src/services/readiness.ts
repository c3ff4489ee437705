import { countSignerPayouts, SIGNER_PAYOUT_STATES, type SignerPayoutState } from '../db/repositories/payouts-repository.js';
import type { Clock } from '../clock.js';
import { listChainCursors } from '../db/repositories/chain-cursors-repository.js';
import type { DatabaseHandle } from '../db/database.js';
import type { ChainCursorRow } from '../db/schema/chain-cursors.js';
import { listWorkerHeartbeats } from '../db/repositories/worker-heartbeats-repository.js';
import type { WorkerHeartbeatRow, WorkerKind, WorkerMode } from '../db/schema/worker-heartbeats.js';
import { WORKER_STALE_AFTER_MS } from '../worker/heartbeat.js';

/** Workers whose last tick is older than this are no longer listed (they went long ago). */
const WORKERS_LISTED_FOR_MS = 24 * 60 * 60 * 1000;
/** Longest wait on the Redis PING, ms. */
const REDIS_PING_MS = 500;

/** How a chain's node watcher did on its last pass (written by the worker, wherever it runs). */
export interface ChainHealth {
  ok: boolean;
  /** The node's network name as it reported it (main, test, regtest), null before a pass. */
  network: string | null;
  height: number | null;
  last_ok_at: string | null;
  /** The watcher's last error, which may quote the node's reply: operator eyes only. */
  last_error: string | null;
  last_error_at: string | null;
  /** Seconds since the last good pass; null before one. */
  lag_seconds: number | null;
  /** host:port of CHAIN_<CHAIN>_RPC_URL, never its credentials or path. */
  node: string;
}

/** One worker loop as its heartbeat row says. */
export interface WorkerHealth {
  id: string;
  kind: WorkerKind;
  mode: WorkerMode;
  host: string;
  pid: number;
  started_at: string;
  last_tick_at: string;
  seconds_since_tick: number;
  /** Running and not ticked for WORKER_STALE_AFTER_MS: hung, or died without a word. */
  stale: boolean;
  /** Stopped gracefully at; null while it runs (or if it died). */
  stopped_at: string | null;
}

export interface ReadinessReport {
  /** The database answers: the only thing this process cannot serve without (docs/adr/0017-operations.md). */
  ready: boolean;
  database: { ok: boolean; ping_ms: number };
  /** Null without REDIS_URL (counting in-process). Informational: rate limits fail open, throttles fall back to memory. */
  redis: { ok: boolean; ping_ms: number } | null;
  /**
   * A lifecycle loop and a webhook loop each ticked within WORKER_STALE_AFTER_MS, wherever they
   * run. Informational: an API process taken out of the load balancer restarts no worker.
   */
  workers_ok: boolean;
  /** Every loop that ticked in the last 24 hours, the most recent first (unknown with the database down: empty). */
  workers: WorkerHealth[];
  /** One entry per CHAIN_<CHAIN>_RPC_URL. Informational: a node outage never fails readiness. */
  chains: Record<string, ChainHealth>;
  /**
   * One entry per PAYOUT_SIGNER_CHAINS chain: the signer's unfinished payouts by state
   * (`awaiting_liquidity`: the hot wallet cannot cover them). Informational.
   */
  payouts: Record<string, Record<SignerPayoutState, number>>;
}

export interface ReadinessDeps {
  database: DatabaseHandle;
  chainRpcUrls: Readonly<Record<string, string>>;
  /** PAYOUT_SIGNER_CHAINS. */
  signerChains: readonly string[];
  clock: Clock;
  /** Pings Redis; undefined without REDIS_URL. */
  pingRedis: ((timeoutMs: number) => Promise<boolean>) | undefined;
}

/**
 * Readiness and the details behind it, computed once for both audiences: the public /readyz
 * shows only `ready` and each dependency's name with ok or not (it once echoed a
 * node's URL and the start of its HTML error page to anyone); GET /admin/v1/health shows it all.
 */
export class Readiness {
  private readonly database: DatabaseHandle;
  private readonly chainRpcUrls: Readonly<Record<string, string>>;
  private readonly signerChains: readonly string[];
  private readonly clock: Clock;
  private readonly pingRedis: ReadinessDeps['pingRedis'];

  constructor(deps: ReadinessDeps) {
    this.database = deps.database;
    this.chainRpcUrls = deps.chainRpcUrls;
    this.signerChains = deps.signerChains;
    this.clock = deps.clock;
    this.pingRedis = deps.pingRedis;
  }

  async report(): Promise<ReadinessReport> {
    const pingRedis = this.pingRedis;
    const [database, redis] = await Promise.all([
      timed(() => this.database.ping(1000)),
      pingRedis === undefined ? null : timed(() => pingRedis(REDIS_PING_MS)),
    ]);
    const databaseUp = database.ok;
    const workers = databaseUp ? await this.workers() : [];
    const watched = Object.keys(this.chainRpcUrls).sort();
    // With the database down the chain rows cannot be read: every chain then reads unknown.
    const cursors: ChainCursorRow[] = databaseUp && watched.length > 0 ? await listChainCursors(this.database.db).catch(() => []) : [];
    const rows = new Map(cursors.map((row) => [row.chain, row]));
    const now = this.clock.now().getTime();
    const chains: Record<string, ChainHealth> = {};
    for (const chain of watched) {
      const row = rows.get(chain);
      const lastOk = row?.last_ok_at ?? null;
      const lastError = row?.last_error_at ?? null;
      chains[chain] = {
        ok: lastOk !== null && (lastError === null || lastOk > lastError),
        network: row?.network ?? null,
        height: row?.height ?? null,
        last_ok_at: lastOk?.toISOString() ?? null,
        last_error: row?.last_error ?? (row === undefined ? 'not polled yet' : null),
        last_error_at: lastError?.toISOString() ?? null,
        lag_seconds: lastOk === null ? null : Math.max(0, Math.floor((now - lastOk.getTime()) / 1000)),
        node: nodeHost(this.chainRpcUrls[chain] ?? ''),
      };
    }
    return { ready: databaseUp, database, redis, workers_ok: workersOk(workers), workers, chains, payouts: await this.payouts(databaseUp) };
  }

  private async payouts(databaseUp: boolean): Promise<ReadinessReport['payouts']> {
    if (this.signerChains.length === 0) return {};
    const counts = databaseUp ? await countSignerPayouts(this.database.db).catch(() => new Map<string, Map<SignerPayoutState, number>>()) : new Map<string, Map<SignerPayoutState, number>>();
    return Object.fromEntries(
      [...this.signerChains].sort().map((chain) => [chain, Object.fromEntries(SIGNER_PAYOUT_STATES.map((state) => [state, counts.get(chain)?.get(state) ?? 0])) as Record<SignerPayoutState, number>]),
    );
  }

  private async workers(): Promise<WorkerHealth[]> {
    const now = this.clock.now().getTime();
    const rows = await listWorkerHeartbeats(this.database.db, new Date(now - WORKERS_LISTED_FOR_MS)).catch((): WorkerHeartbeatRow[] => []);
    return rows.map((row) => {
      const since = Math.max(0, now - row.last_tick_at.getTime());
      return {
        id: row.id,
        kind: row.kind,
        mode: row.mode,
        host: row.host,
        pid: row.pid,
        started_at: row.started_at.toISOString(),
        last_tick_at: row.last_tick_at.toISOString(),
        seconds_since_tick: Math.floor(since / 1000),
        stale: row.stopped_at === null && since > WORKER_STALE_AFTER_MS,
        stopped_at: row.stopped_at?.toISOString() ?? null,
      };
    });
  }
}

/** A running, fresh loop of each kind. */
function workersOk(workers: readonly WorkerHealth[]): boolean {
  const alive = (kind: WorkerKind) => workers.some((worker) => worker.kind === kind && worker.stopped_at === null && !worker.stale);
  return alive('lifecycle') && alive('webhook');
}

async function timed(check: () => Promise<boolean>): Promise<{ ok: boolean; ping_ms: number }> {
  const started = performance.now();
  const ok = await check();
  return { ok, ping_ms: Math.round(performance.now() - started) };
}

function nodeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
