import { Redis, type RedisOptions } from 'ioredis';

/**
 * Where a Redis client connects: `url` alone, or the primary that `sentinels` name (REDIS_SENTINELS,
 * docs/adr/0053). With sentinels the URL still carries the password, database and key prefix.
 */
export interface RedisTarget {
  url: string;
  sentinels?: { hosts: readonly { host: string; port: number }[]; name: string } | undefined;
}

/** The target config.ts describes, or none when REDIS_URL is unset. */
export function redisTarget(config: {
  redisUrl: string | undefined;
  redisSentinels: readonly { host: string; port: number }[] | undefined;
  redisSentinelName: string | undefined;
}): RedisTarget | undefined {
  if (config.redisUrl === undefined) return undefined;
  if (config.redisSentinels === undefined || config.redisSentinelName === undefined) return { url: config.redisUrl };
  return { url: config.redisUrl, sentinels: { hosts: config.redisSentinels, name: config.redisSentinelName } };
}

/**
 * Every Redis client of the service is made here, so each one follows a failover the same way.
 * Through sentinels, ioredis asks them for the primary on every (re)connect and checks the node
 * it reached says `role: master`; `failoverDetector` drops the connection as soon as a sentinel
 * announces `+switch-master`, instead of waiting for the old primary's socket to fail.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions): Redis {
  if (target.sentinels === undefined) return new Redis(target.url, options);
  return new Redis(target.url, {
    ...options,
    sentinels: target.sentinels.hosts.map(({ host, port }) => ({ host, port })),
    name: target.sentinels.name,
    failoverDetector: true,
    // Sentinels are asked again on every reconnect; a sentinel that is away is skipped.
    sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    sentinelMaxConnections: 3,
  });
}
