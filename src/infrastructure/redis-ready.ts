import type { Redis } from 'ioredis';

/**
 * Resolves once `client` is ready, or after `withinMs`, or as soon as a dial fails outright
 * (ECONNREFUSED, ENOTFOUND, ETIMEDOUT...: no point waiting longer). Never rejects: a start-up
 * waits a bounded time for Redis, and a Redis that is not there is each caller's own
 * outage path (the limiter fails open, signature nonces fall back to the database).
 */
export function redisReady(client: Redis, withinMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const refused = (error: Error & { code?: string }): void => {
      if (error.code !== undefined) done();
    };
    const done = (): void => {
      clearTimeout(timer);
      client.off('ready', done).off('error', refused);
      resolve();
    };
    const timer = setTimeout(done, withinMs);
    client.once('ready', done).on('error', refused);
  });
}
