import { performance } from 'node:perf_hooks';
import type { StoreFailure } from './rate-limiter.js';

/** The part of a pino/Fastify logger the limiter uses. */
export interface LimiterLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * One warning when the store starts failing, then at most one per interval saying how many
 * requests went unchecked meanwhile, and one info line when it answers again. Connection
 * errors (ioredis retries every second while Redis is away) go through the same throttle.
 */
export class ThrottledFailureLog {
  private failing = false;
  private lastLogged = -Infinity;
  private uncheckedSinceLog = 0;
  private uncheckedSinceDown = 0;

  constructor(
    private readonly log: LimiterLog,
    private readonly intervalMs: number,
  ) {}

  /** A request let through unchecked. */
  failure(reason: StoreFailure, error?: unknown): void {
    this.uncheckedSinceLog += 1;
    this.uncheckedSinceDown += 1;
    this.note(reason, error);
  }

  /** The connection failed (no request involved). */
  connectionError(error: Error): void {
    this.note('not_connected', error);
  }

  recovered(): void {
    if (!this.failing) return;
    this.log.info({ unchecked_requests: this.uncheckedSinceDown }, 'rate limiter store reachable again');
    this.failing = false;
    this.uncheckedSinceDown = 0;
    this.uncheckedSinceLog = 0;
    this.lastLogged = -Infinity;
  }

  private note(reason: StoreFailure, error: unknown): void {
    this.failing = true;
    const now = performance.now();
    if (now - this.lastLogged < this.intervalMs) return;
    this.lastLogged = now;
    this.log.warn(
      {
        reason,
        error: error instanceof Error ? error.message : undefined,
        unchecked_requests: this.uncheckedSinceLog,
      },
      'rate limiter store unavailable: requests pass unchecked (fail open)',
    );
    this.uncheckedSinceLog = 0;
  }
}
