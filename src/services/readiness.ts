import type { Clock } from '../clock.js';
import { listChainCursors } from '../db/repositories/chain-cursors-repository.js';
import type { DatabaseHandle } from '../db/database.js';
import type { ChainCursorRow } from '../db/schema/chain-cursors.js';

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

export interface ReadinessReport {
  ready: boolean;
  database: { ok: boolean; ping_ms: number };
  /** One entry per CHAIN_<CHAIN>_RPC_URL. Informational: a node outage never fails readiness. */
  chains: Record<string, ChainHealth>;
}

/**
 * Readiness and the details behind it, computed once for both audiences: the public /readyz
 * shows only `ready` and each dependency's name with ok or not (issue 12: it once echoed a
 * node's URL and the start of its HTML error page to anyone); GET /admin/v1/health shows it all.
 */
export class Readiness {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly chainRpcUrls: Readonly<Record<string, string>>,
    private readonly clock: Clock,
  ) {}

  async report(): Promise<ReadinessReport> {
    const started = performance.now();
    const databaseUp = await this.database.ping(1000);
    const database = { ok: databaseUp, ping_ms: Math.round(performance.now() - started) };
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
    return { ready: databaseUp, database, chains };
  }
}

function nodeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
