import { sql } from 'kysely';
import type { Db } from '../schema/index.js';

/**
 * Where PostgreSQL's write-ahead log stands, for the read replica's routing
 * (services/replica-reads.ts). Positions are returned as bigints: a pg_lsn is two 32-bit hex
 * halves, `X/Y`, and comparing them as numbers is what tells "replayed at least this far".
 */

/** The primary's WAL write position now: every transaction committed before this call lies at or before it. */
export async function currentWalPosition(db: Db): Promise<bigint> {
  const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db);
  return lsnToBigint(rows[0]?.lsn);
}

/**
 * How far a standby has replayed its WAL: what a query on it can see. Undefined on a server that
 * is not in recovery (a replica promoted, or DATABASE_READ_URL naming a primary by mistake):
 * there nothing replicates, so no position of the primary's can be compared with it.
 */
export async function replayedWalPosition(db: Db): Promise<bigint | undefined> {
  const { rows } = await sql<{ lsn: string | null }>`select pg_last_wal_replay_lsn()::text as lsn`.execute(db);
  const lsn = rows[0]?.lsn;
  return lsn === null || lsn === undefined ? undefined : lsnToBigint(lsn);
}

function lsnToBigint(lsn: string | undefined): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(lsn ?? '');
  if (match?.[1] === undefined || match[2] === undefined) throw new Error(`not a WAL position: ${String(lsn)}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}
