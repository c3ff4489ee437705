import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { deleteRequestLogBefore, insertRequestLogRows, listRequestLog, type RequestLogFilter } from '../db/repositories/api-request-log-repository.js';
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

/**
 * The partner's request log, recorded off the request path: `record` is a push onto an array
 * (no promise, no I/O); a timer writes what gathered in one multi-row insert per batch. A failed
 * write is logged and its rows dropped: the log is a convenience, never a reason to slow or
 * fail a request. `close` writes what is left.
 */
export class RequestLog {
  private buffer: NewApiRequestLogRow[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  dropped = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  record(row: Omit<NewApiRequestLogRow, 'at'>): void {
    if (this.buffer.length >= BUFFER_LIMIT) {
      this.dropped += 1;
      return;
    }
    this.buffer.push({ ...row, at: this.clock.now() });
    if (this.buffer.length >= BATCH_ROWS) void this.flush();
    else if (this.timer === undefined) this.timer = setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /** Writes what gathered (one insert per batch of BATCH_ROWS); resolves when it is written. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing !== undefined) await this.writing;
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    this.writing = (async () => {
      for (let i = 0; i < rows.length; i += BATCH_ROWS) {
        await insertRequestLogRows(this.db, rows.slice(i, i + BATCH_ROWS)).catch((error: unknown) =>
          this.logger.error({ err: error, rows: Math.min(BATCH_ROWS, rows.length - i) }, 'writing the request log failed; those rows are dropped'),
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
