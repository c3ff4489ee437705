import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import type { TestApp } from '../helpers/test-app.js';
import { TcpProxy } from '../helpers/process/tcp-proxy.js';
import { skipUnless } from '../helpers/requirements.js';

/** The Redis the suite uses: TEST_REDIS_URL, else the local default (CI always runs one). */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether a Redis answers PING at `url` within a second. */
export async function redisReachable(url = REDIS_URL): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, connectTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * node:test skip option: run when Redis answers; otherwise skip with a message locally, and
 * under CI run anyway so that the tests fail (CI always has Redis, so its absence is a failure).
 */
export function redisSkip(reachable: boolean): string | false {
  return skipUnless(
    reachable,
    `Redis (not reachable at ${REDIS_URL})`,
    "start one (Debian's `redis-server` package) or point TEST_REDIS_URL at one",
  );
}

/** A key namespace of its own for one test file's run, so runs never share counters. */
export function uniquePrefix(): string {
  return `epa-test:${process.pid}:${randomBytes(6).toString('hex')}:`;
}

/** `url` with ioredis's keyPrefix option in the query string. */
export function withKeyPrefix(url: string, prefix: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('keyPrefix', prefix);
  return parsed.toString();
}

/** Deletes every key under `prefix` on the suite's Redis. */
export async function deleteKeys(prefix: string): Promise<void> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const keys = await listKeys(client, prefix);
    if (keys.length > 0) await client.del(...keys);
  } catch {
    // nothing to clean when Redis is away
  } finally {
    client.disconnect();
  }
}

export async function listKeys(client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** A TCP port on 127.0.0.1 where nothing listens (taken, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that accepts connections and never answers: a hung Redis. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A proxy in front of the real Redis that a test can stall (bytes held, as a hung or
 * partitioned Redis does), take down (Redis stopped) and bring back on the same port.
 */
export function redisProxy(url = REDIS_URL): TcpProxy {
  const parsed = new URL(url);
  return new TcpProxy({ host: parsed.hostname, port: Number(parsed.port || 6379) });
}

/** One timed request. */
export async function timed(
  t: TestApp,
  options: InjectOptions,
): Promise<{ res: LightMyRequestResponse; ms: number }> {
  const started = performance.now();
  const res = await t.app.inject(options);
  return { res, ms: performance.now() - started };
}

/** Sum of `rate_limiter_failures_total` over its reasons, from /metrics. */
export async function limiterFailures(t: TestApp): Promise<Record<string, number>> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  const counts: Record<string, number> = {};
  for (const match of res.body.matchAll(/^rate_limiter_failures_total\{reason="(\w+)"\} (\d+)$/gm)) {
    counts[match[1] ?? ''] = Number(match[2]);
  }
  return counts;
}

export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
