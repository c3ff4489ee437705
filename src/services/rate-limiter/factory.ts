import type { Clock } from '../../clock.js';
import type { LimiterLog } from './failure-log.js';
import { MemoryRateLimiter } from './memory-store.js';
import type { RedisTarget } from '../../infrastructure/redis-client.js';
import type { RateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis-store.js';

export interface RateLimiterFactoryOptions {
  /** Set: one budget shared through Redis; unset: in-process memory. */
  redis: RedisTarget | undefined;
  /** RedisRateLimiterOptions.timeoutMs. */
  timeoutMs?: number | undefined;
  clock: Clock;
  log: LimiterLog;
}

/** Redis when a URL is configured, otherwise memory. */
export function createRateLimiter({ redis, timeoutMs, clock, log }: RateLimiterFactoryOptions): RateLimiter {
  if (redis === undefined) return new MemoryRateLimiter(clock);
  return new RedisRateLimiter({ url: redis.url, sentinels: redis.sentinels, log, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}
