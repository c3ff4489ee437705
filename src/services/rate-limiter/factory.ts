import type { Clock } from '../../clock.js';
import type { LimiterLog } from './failure-log.js';
import { MemoryRateLimiter } from './memory-store.js';
import type { RateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis-store.js';

export interface RateLimiterFactoryOptions {
  redisUrl: string | undefined;
  /** RedisRateLimiterOptions.timeoutMs. */
  timeoutMs?: number | undefined;
  clock: Clock;
  log: LimiterLog;
}

/** Redis when a URL is configured, otherwise memory. */
export function createRateLimiter({ redisUrl, timeoutMs, clock, log }: RateLimiterFactoryOptions): RateLimiter {
  return redisUrl === undefined ? new MemoryRateLimiter(clock) : new RedisRateLimiter({ url: redisUrl, log, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}
