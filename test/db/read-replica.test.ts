import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.js';
import { createMetrics } from '../../src/metrics.js';
import { ReplicaReads } from '../../src/services/replica-reads.js';
import { listPartnerOrders } from '../../src/db/repositories/partner-order-list-repository.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { adminDatabaseUrl, testEngine } from '../helpers/test-database.js';
import { REDIS_URL, redisReachable, redisSkip } from '../rate-limit/redis-support.js';
import { replicaToolsSkip, startStreamingReplica, type StreamingReplica } from './streaming-replica.js';

/**
 * DATABASE_READ_URL against a real streaming replica (docs/adr/0055-read-replica.md): a second
 * cluster made by pg_basebackup from the test server, its replay paused to make lag. A partner
 * that changed an order reads the new version everywhere (by id, in its list, in its stats),
 * while another partner's list is served by the lagging replica; with the replica stopped every
 * read is answered by the primary and the metrics say so.
 */
const engine = testEngine();
const reachable = engine === 'postgres' && (await redisReachable());
const skip =
  engine !== 'postgres' ? 'a streaming replica is of PostgreSQL: runs on the PostgreSQL pass' : (replicaToolsSkip() || redisSkip(reachable));

const ORDER = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: '0.5',
  rate_type: 'float',
  recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
};

interface OrderJson {
  id: string;
  status: string;
  updated_at: string;
}

describe('read replica (DATABASE_READ_URL)', { skip, timeout: 120_000 }, () => {
  let replica: StreamingReplica;
  let t: TestApp;
  let replicaUrl: string;
  const closeReplicaPool: (() => Promise<void>)[] = [];
  let a: { id: string; apiKey: string };
  let b: { id: string; apiKey: string };

  before(async () => {
    replica = await startStreamingReplica(adminDatabaseUrl());
    t = await buildTestApp({
      // The embedded default's configuration (the simulator pays, the demo wallet takes
      // deposits) on this pass's PostgreSQL database, with the replica beside it.
      // No timed catalog refresh during the test: it reads the replica too, and the counts of
      // replica reads below are the lists' and stats' alone.
      env: { WORKER: 'off', REDIS_URL, PRICE_POLL_SECONDS: '3600', CACHE_REFRESH_MS: '3600000' },
      wrapDatabase: async (handle, db) => {
        if (db.directUrl === undefined) throw new Error('needs PostgreSQL');
        replicaUrl = replica.urlOf(db.directUrl);
        const opened = await openDatabase({ engine: 'postgres', url: replicaUrl, poolSize: 4, connectTimeoutMs: 10_000 });
        closeReplicaPool.push(() => opened.close());
        return { ...handle, replica: opened.db };
      },
    });
    a = await t.createPartner({ name: 'Partner A' });
    b = await t.createPartner({ name: 'Partner B' });
  });

  after(async () => {
    await t?.close();
    for (const close of closeReplicaPool) await close();
    await replica?.destroy();
  });

  const get = (apiKey: string, url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
  const listed = async (apiKey: string) => {
    const res = await get(apiKey, '/api/v1/partner/orders');
    assert.equal(res.statusCode, 200, res.body);
    return new Map(res.json<{ orders: OrderJson[] }>().orders.map((order) => [order.id, order]));
  };
  const metric = async (line: string): Promise<number> => {
    const res = await t.operator({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${t.adminToken}` } });
    assert.equal(res.statusCode, 200, res.body);
    const found = res.body.split('\n').find((text) => text.startsWith(`${line} `));
    assert.ok(found !== undefined || line.includes('{'), `${line} is not in /metrics`);
    return found === undefined ? 0 : Number(found.slice(line.length + 1));
  };
  const servedByReplica = () => metric('db_replica_reads_total{target="replica"}');

  it('serves lists from the replica, yet a partner always reads the version it just wrote', async () => {
    const create = async (apiKey: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { 'x-api-key': apiKey }, payload: ORDER });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<OrderJson>();
    };
    const orderA = await create(a.apiKey);
    const orderB = await create(b.apiKey);
    await replica.caughtUp(adminDatabaseUrl());

    // Caught up: both lists come from the replica.
    let before = await servedByReplica();
    assert.equal((await listed(a.apiKey)).get(orderA.id)?.status, 'waiting_deposit');
    assert.equal((await listed(b.apiKey)).get(orderB.id)?.status, 'waiting_deposit');
    assert.equal(await servedByReplica(), before + 2);

    // Lag: the replica receives WAL but shows nothing new.
    await replica.pauseReplay();
    const cancelled = await t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${orderA.id}/cancel`, headers: { 'x-api-key': a.apiKey } });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    // A cancel before any deposit ends the order as expired (docs/contract.md §7.5).
    const changed = cancelled.json<OrderJson>().status;
    assert.notEqual(changed, 'waiting_deposit');
    // The operator cancels B's order: a change B did not make.
    const byOperator = await t.admin('POST', `/admin/v1/orders/${orderB.id}/cancel`);
    assert.equal(byOperator.statusCode, 200, byOperator.body);
    // The replica really is behind: it still has both orders waiting.
    const onReplica = await openDatabase({ engine: 'postgres', url: replicaUrl, poolSize: 1, connectTimeoutMs: 10_000 });
    try {
      const rows = await listPartnerOrders(onReplica.db, a.id, { sandbox: false }, { limit: 10, now: new Date() });
      assert.equal(rows.find((row) => row.id === orderA.id)?.status, 'waiting_deposit');
    } finally {
      await onReplica.close();
    }

    before = await servedByReplica();
    const behindBefore = await metric('db_replica_fallbacks_total{reason="behind"}');
    // A: its own change, everywhere it reads it.
    assert.equal((await listed(a.apiKey)).get(orderA.id)?.status, changed);
    const byId = await get(a.apiKey, `/api/v1/partner/orders/${orderA.id}`);
    assert.equal(byId.json<OrderJson>().status, changed);
    const stats = await get(a.apiKey, '/api/v1/partner/stats');
    assert.equal(stats.statusCode, 200, stats.body);
    assert.equal(stats.json<{ orders_by_status: Record<string, number> }>().orders_by_status[changed], 1, stats.body);
    assert.equal(await metric('db_replica_fallbacks_total{reason="behind"}'), behindBefore + 2);
    // B changed nothing: its list is the replica's, a moment old (the operator's cancel not yet in
    // it), while its order by id, always on the primary, is current.
    assert.equal((await listed(b.apiKey)).get(orderB.id)?.status, 'waiting_deposit');
    assert.equal(await servedByReplica(), before + 1);
    assert.equal((await get(b.apiKey, `/api/v1/partner/orders/${orderB.id}`)).json<OrderJson>().status, changed);

    // Another API process (its own ReplicaReads, nothing in memory) finds A's mark in Redis.
    const otherMetrics = createMetrics();
    const other = new ReplicaReads({ primary: t.db.handle.db, replica: (await replicaHandle()).db, metrics: otherMetrics, logger: t.app.log, redisUrl: REDIS_URL });
    try {
      await other.connected(5000);
      const seen = await other.read(a.id, (db) => listPartnerOrders(db, a.id, { sandbox: false }, { limit: 10, now: new Date() }));
      assert.equal(seen.find((row) => row.id === orderA.id)?.status, changed);
      assert.match(await otherMetrics.registry.getSingleMetricAsString('db_replica_fallbacks_total'), /reason="behind"} 1/);
    } finally {
      await other.close();
    }

    // Replay resumes: once past A's write, A's reads go back to the replica.
    await replica.resumeReplay();
    await replica.caughtUp(adminDatabaseUrl());
    before = await servedByReplica();
    assert.equal((await listed(a.apiKey)).get(orderA.id)?.status, changed);
    assert.equal((await listed(b.apiKey)).get(orderB.id)?.status, changed);
    assert.equal(await servedByReplica(), before + 2);
  });

  it('falls back to the primary when the replica goes away, and says so in the metrics', async () => {
    assert.equal(await metric('db_replica_up'), 1);
    const before = await metric('db_replica_fallbacks_total{reason="unavailable"}');
    await replica.stop();
    const res = await get(b.apiKey, '/api/v1/partner/orders');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ orders: OrderJson[] }>().orders.length, 1);
    const stats = await get(b.apiKey, '/api/v1/partner/stats');
    assert.equal(stats.statusCode, 200, stats.body);
    assert.equal(await metric('db_replica_up'), 0);
    assert.ok((await metric('db_replica_fallbacks_total{reason="unavailable"}')) >= before + 2);
  });

  /** The replica's own pool for the second ReplicaReads (closed with the others). */
  async function replicaHandle() {
    const opened = await openDatabase({ engine: 'postgres', url: replicaUrl, poolSize: 2, connectTimeoutMs: 10_000 });
    closeReplicaPool.push(() => opened.close());
    return opened;
  }
});
