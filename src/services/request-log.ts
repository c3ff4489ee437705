import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { deleteRequestLogBefore, insertRequestLogColumns, listRequestLog, type RequestLogColumns, type RequestLogFilter } from '../db/repositories/api-request-log-repository.js';
import type { ApiRequestLogRow, NewApiRequestLogRow } from '../db/schema/api-request-log.js';
import type { Database } from '../db/schema/index.js';

/** The log keeps this much (the worker deletes older rows). */
export const REQUEST_LOG_KEPT_MS = 7 * 24 * 3_600_000;
/** A batch is written when it reaches this many rows, or at the next tick of the timer. */
const BATCH_ROWS = 500;
const FLUSH_INTERVAL_MS = 1_000;
/**
 * Rows waiting at most: past it (the database slower than the traffic for a long while) new
 * rows are dropped and counted, so the log can never take the process's memory.
 */
const BUFFER_LIMIT = 20_000;

/** Rows waiting to be written, one array per column (no object kept per row). */
interface Pending extends Omit<RequestLogColumns, 'ats'> {
  /** Epoch ms; made ISO text when written. */
  atMs: number[];
}

function emptyPending(): Pending {
  return { partnerIds: [], keyIds: [], sandbox: [], methods: [], paths: [], statuses: [], durationsMs: [], errorCodes: [], atMs: [] };
}

/** Rows `from` to `to` (exclusive) of `pending` as the insert's columns. */
function columnsOf(pending: Pending, from: number, to: number): RequestLogColumns {
  return {
    partnerIds: pending.partnerIds.slice(from, to),
    keyIds: pending.keyIds.slice(from, to),
    sandbox: pending.sandbox.slice(from, to),
    methods: pending.methods.slice(from, to),
    paths: pending.paths.slice(from, to),
    statuses: pending.statuses.slice(from, to),
    durationsMs: pending.durationsMs.slice(from, to),
    errorCodes: pending.errorCodes.slice(from, to),
    ats: pending.atMs.slice(from, to).map((ms) => new Date(ms).toISOString()),
  };
}

/**
 * The partner's request log, recorded off the request path: `record` pushes the row's fields
 * onto one array per column (no promise, no I/O, no object kept per row); a timer writes what
 * gathered in one insert per batch (nine array parameters, repository's unnest). A failed
 * write is logged and its rows dropped: the log is a convenience, never a reason to slow or
 * fail a request. `close` writes what is left.
 */
export class RequestLog {
  private pending: Pending = emptyPending();
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  dropped = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  record(row: Omit<NewApiRequestLogRow, 'at'>): void {
    const pending = this.pending;
    const count = pending.partnerIds.length;
    if (count >= BUFFER_LIMIT) {
      this.dropped += 1;
      return;
    }
    pending.partnerIds.push(row.partner_id);
    pending.keyIds.push(row.key_id);
    pending.sandbox.push(row.sandbox);
    pending.methods.push(row.method);
    pending.paths.push(row.path);
    pending.statuses.push(row.status);
    pending.durationsMs.push(row.duration_ms);
    pending.errorCodes.push(row.error_code ?? null);
    pending.atMs.push(this.clock.now().getTime());
    if (count + 1 >= BATCH_ROWS) void this.flush();
    else if (this.timer === undefined) this.timer = setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /** Writes what gathered (one insert per batch of BATCH_ROWS); resolves when it is written. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing !== undefined) await this.writing;
    const rows = this.pending;
    const count = rows.partnerIds.length;
    if (count === 0) return;
    this.pending = emptyPending();
    this.writing = (async () => {
      for (let i = 0; i < count; i += BATCH_ROWS) {
        await insertRequestLogColumns(this.db, columnsOf(rows, i, Math.min(count, i + BATCH_ROWS))).catch((error: unknown) =>
          this.logger.error({ err: error, rows: Math.min(BATCH_ROWS, count - i) }, 'writing the request log failed; those rows are dropped'),
        );
      }
    })().finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }

  list(filter: Omit<RequestLogFilter, 'since'>): Promise<ApiRequestLogRow[]> {
    return listRequestLog(this.db, { ...filter, since: new Date(this.clock.now().getTime() - REQUEST_LOG_KEPT_MS) });
  }

  /** Deletes the rows older than REQUEST_LOG_KEPT_MS (the worker, once a minute). */
  prune(): Promise<number> {
    return deleteRequestLogBefore(this.db, new Date(this.clock.now().getTime() - REQUEST_LOG_KEPT_MS));
  }
}
