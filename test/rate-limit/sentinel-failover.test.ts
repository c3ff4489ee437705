/**
 * Redis failover behind real sentinels (docs/adr/0053): a primary, two replicas and one
 * redis-sentinel, Debian's binaries on free ports. The primary is killed while orders and signed
 * requests are in flight; the sentinel promotes a replica and the service follows it. Rate limits
 * pass unchecked while there is no primary (fail open); timestamped signatures are refused with
 * 503 meanwhile (fail closed) and every one accepted before, during or after is still a replay
 * on the promoted primary; every order created is in the database.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { Redis } from 'ioredis';
import { ORDER_MIX } from '../helpers/process/order-mix.js';
import { childEnv, spawnManaged, waitUntilReady, type ManagedProcess } from '../helpers/process/managed-process.js';
import { redisPing, startRedisServer, type RedisServer } from '../helpers/process/redis-server.js';
import { freePort, waitFor } from '../helpers/process/waits.js';
import { onPath, skipUnless } from '../helpers/requirements.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const skip =
  skipUnless(onPath('redis-server'), 'redis-server (not on PATH)', "install Debian's `redis-server` package") ||
  skipUnless(onPath('redis-sentinel'), 'redis-sentinel (not on PATH)', "install Debian's `redis-sentinel` package (`apt-get install -y redis-sentinel`; .ci/run does this)");
const MASTER = 'epa-test';
const ORDERS = '/api/v1/partner/orders';
const ACCOUNT = '/api/v1/partner/account';

/** A replica keeps the copy it receives in `dir` (the test's own), not in the working directory. */
async function startReplica(primary: RedisServer, dir: string): Promise<ManagedProcess & { port: number }> {
  const port = await freePort();
  const proc = spawnManaged(`redis-replica:${port}`, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', '--dir', dir, '--replicaof', '127.0.0.1', String(primary.port)], { env: childEnv({}) });
  await waitUntilReady(proc, () => redisPing(port), { timeoutMs: 10_000 });
  return Object.assign(proc, { port });
}

async function info(port: number, section: string): Promise<string> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.info(section);
  } catch {
    return '';
  } finally {
    client.disconnect();
  }
}

describe('Redis failover through sentinels', { skip }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'epa-sentinel-'));
  const processes: ManagedProcess[] = [];
  let primary: RedisServer;
  let replicas: (ManagedProcess & { port: number })[];
  let sentinelPort: number;
  let t: TestApp;
  let apiKey: string;

  before(async () => {
    primary = await startRedisServer();
    processes.push(primary);
    replicas = [await startReplica(primary, dir), await startReplica(primary, dir)];
    processes.push(...replicas);
    await waitFor('both replicas in sync', async () => /connected_slaves:2/.test(await info(primary.port, 'replication')), { timeoutMs: 15_000 });
    sentinelPort = await freePort();
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER} 127.0.0.1 ${primary.port} 1`,
        `sentinel down-after-milliseconds ${MASTER} 1000`,
        `sentinel failover-timeout ${MASTER} 5000`,
        `sentinel parallel-syncs ${MASTER} 2`,
        '',
      ].join('\n'),
    );
    const sentinel = spawnManaged(`redis-sentinel:${sentinelPort}`, 'redis-sentinel', [conf], { env: childEnv({}) });
    processes.push(sentinel);
    await waitUntilReady(sentinel, () => redisPing(sentinelPort), { timeoutMs: 10_000 });
    // The sentinel learns the replicas from the primary's INFO; a failover needs them known.
    await waitFor('the sentinel knows both replicas', async () => /num-slaves.*\n2/.test((await sentinelCommand(sentinelPort, ['master', MASTER])).join('\n')), { timeoutMs: 20_000 });
    t = await buildTestApp({
      env: {
        WORKER: 'off',
        REDIS_URL: 'redis://127.0.0.1:1/0?keyPrefix=epa-sentinel-test:',
        REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
        REDIS_SENTINEL_NAME: MASTER,
        // Generous bounds: the machine running tests is shared; the outage is what is measured.
        RATE_LIMIT_REDIS_TIMEOUT_MS: '2000',
        SIGNATURE_NONCE_REDIS_TIMEOUT_MS: '2000',
      },
    });
    // No cap on open orders: the load creates hundreds, and a 422 for the 101st is not what is tested.
    apiKey = (await t.createPartner({ rate_limit_per_minute: 100_000, max_open_orders: 1_000_000 })).apiKey;
  });

  after(async () => {
    await t?.close();
    await Promise.all(processes.map((proc) => proc.stop(2000).catch(() => proc.killNow('SIGKILL'))));
    rmSync(dir, { recursive: true, force: true });
  });

  function signed(timestamp: number): InjectOptions {
    const secret = apiKey.slice(apiKey.indexOf('.') + 1);
    const signature = createHmac('sha256', secret).update(`${timestamp}.GET.${ACCOUNT}.`).digest('hex');
    return { method: 'GET', url: ACCOUNT, headers: { authorization: `Bearer ${apiKey}`, 'x-timestamp': String(timestamp), 'x-signature': signature } };
  }

  it('kills the primary under load: limits fail open, replays stay refused, no order is lost', async () => {
    let timestamp = Date.now();
    const accepted: InjectOptions[] = [];
    // The app's client finds the primary through the sentinel, and a claim waits for a replica's
    // acknowledgement (WAIT): on a loaded machine the first claims can answer 503 before both are
    // settled. The failover is measured from a system that answers.
    const before = await waitFor(
      'a signed request accepted through the sentinel',
      async () => {
        const request = signed(timestamp++);
        return (await t.app.inject(request)).statusCode === 200 ? request : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    accepted.push(before);

    const created: string[] = [];
    const statuses = new Map<number, number>();
    let stop = false;
    // Each round yields to the event loop: a request refused without I/O (no connection) would
    // otherwise chain promise after promise and starve the timers that reconnect Redis.
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const orderLoad = async (): Promise<void> => {
      for (let i = 0; !stop; i += 1) {
        await turn();
        const res = await t.app.inject({ method: 'POST', url: ORDERS, headers: { authorization: `Bearer ${apiKey}` }, payload: ORDER_MIX[i % ORDER_MIX.length] });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 201) created.push(res.json<{ id: string }>().id);
      }
    };
    let unavailable = 0;
    const signedLoad = async (): Promise<void> => {
      while (!stop) {
        await turn();
        const request = signed(timestamp++);
        const res = await t.app.inject(request);
        if (res.statusCode === 200) accepted.push(request);
        else {
          assert.equal(res.statusCode, 503, res.body);
          assert.equal(res.json<{ code: string }>().code, 'unavailable');
          unavailable += 1;
        }
      }
    };
    const load = Promise.all([orderLoad(), orderLoad(), signedLoad()]);
    try {
      await waitFor('orders and signatures before the kill', () => created.length >= 5 && accepted.length >= 5, { timeoutMs: 20_000 });
      const oldPrimary = primary.port;
      primary.killNow('SIGKILL');
      await waitFor('a replica promoted', async () => {
        const [host, port] = await sentinelCommand(sentinelPort, ['get-master-addr-by-name', MASTER]);
        return host !== undefined && Number(port) !== oldPrimary;
      }, { timeoutMs: 20_000 });
      const acceptedAtKill = accepted.length;
      const createdAtKill = created.length;
      await waitFor('signed requests accepted on the new primary', () => accepted.length >= acceptedAtKill + 5, { timeoutMs: 20_000 });
      await waitFor('orders created after the failover', () => created.length >= createdAtKill + 5, { timeoutMs: 20_000 }).catch((error: Error) => { throw new Error(`${error.message}: ${created.length - createdAtKill} created since the kill, statuses ${JSON.stringify([...statuses])}`); });
    } finally {
      stop = true;
      await load;
    }

    // Rate limits never refused or broke a request: no 429, no 5xx.
    assert.deepEqual([...statuses.keys()], [201], `order statuses: ${JSON.stringify([...statuses])}`);
    // Every signature accepted, before, during or after the failover, is a replay now.
    // (503 may still come while the client settles on the new primary: refused, never accepted.)
    for (const request of accepted) {
      const replay = await waitFor('a replay answered', async () => {
        const res = await t.app.inject(request);
        return res.statusCode === 503 ? false : res;
      }, { timeoutMs: 10_000 });
      assert.equal(replay.statusCode, 401, replay.body);
      assert.equal(replay.json<{ detail: string }>().detail, 'replayed request');
    }
    // Counting goes on in the promoted primary: the budget's remaining count falls. A call that
    // outlasts the limiter's wait on Redis (100 ms; seen on a loaded machine) passes unchecked
    // with no count, as documented (fail open), and skips Redis for a second: two counted calls
    // in a row are waited for, and what was seen is named if they never come.
    const seen: unknown[] = [];
    await waitFor('two requests in a row counted in Redis again, the second with less remaining', async () => {
      const one = await t.app.inject({ method: 'GET', url: ACCOUNT, headers: { authorization: `Bearer ${apiKey}` } });
      const two = await t.app.inject({ method: 'GET', url: ACCOUNT, headers: { authorization: `Bearer ${apiKey}` } });
      const remaining = [one, two].map((res) => res.headers['ratelimit-remaining']);
      seen.push(remaining);
      return remaining.every((value) => value !== undefined) && Number(remaining[1]) < Number(remaining[0]);
    }, { timeoutMs: 10_000, intervalMs: 200 }).catch((error: Error) => {
      throw new Error(`${error.message}; RateLimit-Remaining seen: ${JSON.stringify(seen.slice(-10))}`);
    });
    // Nothing lost in the database: every order answered 201 is there.
    for (const id of created) {
      const res = await t.app.inject({ method: 'GET', url: `${ORDERS}/${id}`, headers: { authorization: `Bearer ${apiKey}` } });
      assert.equal(res.statusCode, 200, res.body);
    }
    // The outage was seen: signed requests sent while there was no primary were refused (503).
    assert.ok(unavailable >= 1, 'no signed request met the outage');
  });
});

/** A SENTINEL subcommand's answer, flattened to strings ([] when the sentinel does not answer). */
async function sentinelCommand(port: number, args: string[]): Promise<string[]> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const answer = await client.call('SENTINEL', ...args);
    return (Array.isArray(answer) ? answer : [answer]).map(String);
  } catch {
    return [];
  } finally {
    client.disconnect();
  }
}
