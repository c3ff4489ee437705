import type { Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from './database.js';
import { migrateToLatest } from './migrate.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** First pause between start-up attempts; it doubles up to START_RETRY_MAX_MS. */
const START_RETRY_FIRST_MS = 500;
const START_RETRY_MAX_MS = 5000;

/** The database could not be reached within DATABASE_START_TIMEOUT_MS: said in one line, no stack. */
export class DatabaseUnreachableError extends Error {
  constructor(attempts: number, timeoutMs: number, reason: string) {
    super(`the database is unreachable after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${Math.round(timeoutMs / 1000)} s (DATABASE_START_TIMEOUT_MS): ${reason}`);
    this.name = 'DatabaseUnreachableError';
  }
}

/** One failed attempt, for the caller's log: which, why, and when the next comes. */
export interface StartAttempt {
  attempt: number;
  reason: string;
  retryInMs: number;
  /** How long is left of DATABASE_START_TIMEOUT_MS. */
  leftMs: number;
}

/**
 * The store the configuration names (PostgreSQL when DATABASE_URL is set), migrated. PostgreSQL
 * that cannot be reached (refused, timed out, starting up) is tried again with backoff for
 * DATABASE_START_TIMEOUT_MS, `onRetry` told of each failed attempt; any other failure (a wrong
 * password, a failed migration) stops at once, as does the last attempt.
 */
export async function openConfiguredDatabase(
  config: Config,
  onRetry: (attempt: StartAttempt) => void = () => undefined,
): Promise<DatabaseHandle> {
  const deadline = Date.now() + config.databaseStartTimeoutMs;
  let pauseMs = START_RETRY_FIRST_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openOnce(config);
    } catch (error) {
      if (config.databaseUrl === undefined || !isDatabaseUnavailable(error)) throw error;
      const reason = innermostMessage(error);
      const leftMs = deadline - Date.now();
      if (leftMs <= 0) throw new DatabaseUnreachableError(attempt, config.databaseStartTimeoutMs, reason);
      const retryInMs = Math.min(pauseMs, leftMs);
      onRetry({ attempt, reason, retryInMs, leftMs });
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
      pauseMs = Math.min(pauseMs * 2, START_RETRY_MAX_MS);
    }
  }
}

async function openOnce(config: Config): Promise<DatabaseHandle> {
  const database = await openDatabase(
    config.databaseUrl === undefined
      ? { engine: 'pglite', dataDir: config.dataDir }
      : {
          engine: 'postgres',
          url: config.databaseUrl,
          poolSize: config.databasePoolMax,
          connectTimeoutMs: config.databaseConnectTimeoutMs,
          preparedStatements: config.databasePreparedStatements,
        },
  );
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  if (config.databaseReadUrl === undefined) return database;
  // The replica is not waited for: its pool connects on the first read, and a replica that is
  // down then sends that read to the primary (services/replica-reads.ts).
  const replica = await openDatabase({
    engine: 'postgres',
    url: config.databaseReadUrl,
    poolSize: config.databasePoolMax,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    preparedStatements: config.databasePreparedStatements,
  });
  return {
    ...database,
    replica: replica.db,
    async close() {
      try {
        await replica.close();
      } finally {
        await database.close();
      }
    },
  };
}

/** The innermost message of an error chain (a dual-stack connect's AggregateError: its first). */
function innermostMessage(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0];
    const cause = (current as { cause?: unknown } | undefined)?.cause;
    if (cause === undefined) break;
    current = cause;
  }
  if (current instanceof Error) return current.message !== '' ? current.message : ((current as { code?: string }).code ?? current.name);
  return String(current);
}

/** One log line's words for a failed attempt. */
export function startAttemptMessage({ attempt, reason, retryInMs, leftMs }: StartAttempt): string {
  return `database unreachable (attempt ${attempt}): ${reason}; next attempt in ${(retryInMs / 1000).toFixed(1)} s, giving up in ${Math.ceil(leftMs / 1000)} s`;
}
