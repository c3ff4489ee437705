import { performance } from 'node:perf_hooks';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';
import type { LeaseGrant, RedisRateLimiter } from './redis-store.js';

export interface LeasedRateLimiterOptions {
  /** A budget of `limit` a window is leased in blocks of limit / divisor (at least 1). Default 100. */
  blockDivisor?: number;
  /** The largest block. Default 1000. */
  maxBlock?: number;
}

type Unchecked = Extract<RateLimitDecision, { status: 'unchecked' }>;

/** This process's share of one bucket's current window. */
interface Lease {
  limit: number;
  /** performance.now() at which the window ends (never later than Redis's end). */
  endsAt: number;
  /** Requests of the lease not yet spent here. */
  left: number;
  /** What Redis had left for everybody when the lease was taken. */
  redisRemaining: number;
  /** Redis had nothing left: every request of this window is refused here without asking. */
  spent: boolean;
  /** The next lease while it is being asked for: requests that find `left` at 0 wait on it. */
  pending: Promise<LeaseGrant | Unchecked> | undefined;
}

/**
 * Request budgets counted in Redis a block at a time (docs/adr/0062-rate-limit-leases.md): a
 * process takes up to `block` requests of a bucket's window from Redis in one call and spends
 * them locally, so a request costs a Redis round trip only when its process's block is spent.
 *
 * Redis never grants past the limit, so all processes together admit at most the limit a window;
 * a block taken and not spent by one process is refused to the others, so a partner is refused at
 * the earliest after limit − (block − 1) × processes admitted requests: the global limit holds to
 * within one block per process. A budget under 2 × divisor a minute leases blocks of 1: exactly
 * the count of every request in Redis (the same counter through rate-limiter-flexible).
 *
 * Fails open as the store does: a lease Redis did not answer leaves the request (and those that
 * waited on that lease) unchecked. Only request budgets use this; the security throttles count
 * each attempt in Redis, since they give successes back (`refund`).
 */
export class LeasedRateLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly divisor: number;
  private readonly maxBlock: number;
  private nextSweep = 0;

  constructor(
    private readonly store: RedisRateLimiter,
    options: LeasedRateLimiterOptions = {},
  ) {
    this.divisor = options.blockDivisor ?? 100;
    this.maxBlock = options.maxBlock ?? 1000;
  }

  /** The block `limit` is leased in. */
  blockOf(limit: number): number {
    return Math.max(1, Math.min(this.maxBlock, Math.floor(limit / this.divisor)));
  }

  consume(bucket: string, limit: number): RateLimitDecision | Promise<RateLimitDecision> {
    const block = this.blockOf(limit);
    if (block === 1) return this.store.consume(bucket, limit);
    const now = performance.now();
    this.sweep(now);
    let lease = this.leases.get(bucket);
    if (lease !== undefined && (lease.limit !== limit || lease.endsAt <= now) && lease.pending === undefined) {
      this.leases.delete(bucket);
      lease = undefined;
    }
    if (lease !== undefined && lease.endsAt > now) {
      if (lease.left > 0) {
        lease.left -= 1;
        return { status: 'allowed', limit, remaining: lease.redisRemaining + lease.left, resetMs: lease.endsAt - now };
      }
      if (lease.spent) return { status: 'limited', limit, remaining: 0, resetMs: lease.endsAt - now };
    }
    return this.renew(bucket, limit, block, lease);
  }

  /** Waits on the lease being taken for `bucket`, or takes one, then decides the request on it. */
  private async renew(bucket: string, limit: number, block: number, current: Lease | undefined): Promise<RateLimitDecision> {
    if (current?.pending !== undefined) {
      const outcome = await current.pending;
      // Those who waited on a lease Redis did not answer pass unchecked with it, without asking again.
      if ('status' in outcome) return outcome;
      return this.consume(bucket, limit);
    }
    const lease: Lease = current ?? { limit, endsAt: 0, left: 0, redisRemaining: 0, spent: false, pending: undefined };
    this.leases.set(bucket, lease);
    const pending = this.store.lease(bucket, limit, block);
    lease.pending = pending;
    const outcome = await pending;
    lease.pending = undefined;
    if ('status' in outcome) {
      this.leases.delete(bucket);
      return outcome;
    }
    lease.limit = limit;
    lease.endsAt = outcome.endsAt;
    lease.redisRemaining = outcome.remaining;
    lease.spent = outcome.granted === 0;
    const resetMs = Math.max(outcome.endsAt - performance.now(), 0);
    if (lease.spent) {
      lease.left = 0;
      return { status: 'limited', limit, remaining: 0, resetMs };
    }
    // This request takes the first of the block.
    lease.left = outcome.granted - 1;
    return { status: 'allowed', limit, remaining: lease.redisRemaining + lease.left, resetMs };
  }

  /** Request budgets are not given back (only the security throttles, which count exactly, are). */
  refund(bucket: string, limit: number): void | Promise<void> {
    return this.store.refund(bucket, limit);
  }

  connected(withinMs: number): Promise<void> {
    return this.store.connected(withinMs);
  }

  /** The store is the caller's (the exact counts share its connection): closing drops the leases only. */
  async close(): Promise<void> {
    this.leases.clear();
  }

  ping(timeoutMs: number): Promise<boolean> {
    return this.store.ping(timeoutMs);
  }

  /** Drops ended leases about once a window (memory follows active buckets only). */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + 60_000;
    for (const [bucket, lease] of this.leases) if (lease.endsAt <= now && lease.pending === undefined) this.leases.delete(bucket);
  }
}
