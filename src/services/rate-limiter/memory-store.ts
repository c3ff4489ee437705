import type { Clock } from '../../clock.js';
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitDecision, type RateLimiter } from './rate-limiter.js';

/**
 * In-process counting: one budget per process. Time comes from `clock` (the app's), so tests
 * move it instead of sleeping; that is why this is a few lines of our own rather than
 * rate-limiter-flexible's RateLimiterMemory, which reads Date.now() and sets timers.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private readonly windowMs: number;
  private nextSweep = 0;

  constructor(
    private readonly clock: Clock,
    windowSeconds = RATE_LIMIT_WINDOW_SECONDS,
  ) {
    this.windowMs = windowSeconds * 1000;
  }

  consume(bucket: string, limit: number): RateLimitDecision {
    const now = this.clock.now().getTime();
    this.sweep(now);
    let window = this.windows.get(bucket);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(bucket, window);
    }
    window.count += 1;
    return {
      status: window.count > limit ? 'limited' : 'allowed',
      limit,
      remaining: Math.max(limit - window.count, 0),
      resetMs: window.endsAt - now,
    };
  }

  refund(bucket: string): void {
    const window = this.windows.get(bucket);
    if (window !== undefined && window.count > 0) window.count -= 1;
  }

  async connected(): Promise<void> {}

  async close(): Promise<void> {
    this.windows.clear();
  }

  /** Drops ended windows about once per window length, so memory follows active clients only. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.windowMs;
    for (const [bucket, window] of this.windows) if (window.endsAt <= now) this.windows.delete(bucket);
  }
}
