import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HEARTBEAT_EVERY_MS, WORKER_STALE_AFTER_MS, WorkerHeartbeat } from '../../src/worker/heartbeat.js';
import { waitFor } from '../helpers/process/waits.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

interface WorkerEntry {
  id: string;
  kind: string;
  mode: string;
  pid: number;
  last_tick_at: string;
  seconds_since_tick: number;
  stale: boolean;
  stopped_at: string | null;
}
interface Health {
  ready: boolean;
  workers_ok: boolean;
  workers: WorkerEntry[];
}

/**
 * Issue 36.2: every worker loop leaves a heartbeat row; GET /admin/v1/health lists them with
 * their last tick and flags the stale ones, /readyz reports `workers` without failing on it, and
 * an API process that runs no worker pass (WORKER=off) does not export worker_lag_seconds.
 */
describe('worker heartbeats in /admin/v1/health and /readyz', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
  });
  after(() => t.close());

  const health = async (): Promise<Health> => {
    const res = await t.admin('GET', '/admin/v1/health');
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Health>();
  };

  it('with WORKER=off and no worker anywhere: no workers listed, /readyz ready with workers: false, no worker_lag_seconds', async () => {
    const body = await health();
    assert.deepEqual(body.workers, []);
    assert.equal(body.workers_ok, false);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, 'a missing worker is reported, not a reason to take the API out of rotation');
    assert.deepEqual(ready.json(), { ready: true, checks: { database: true, workers: false } });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.doesNotMatch(metrics.body, /^worker_lag_seconds/m, 'a process that runs no pass exports no lag (it read 0 forever)');
  });

  it('lists each loop with its last tick; a silent one turns stale, a stopped one is not stale', async () => {
    const lifecycle = new WorkerHeartbeat(t.db.handle.db, clock, 'lifecycle', 'separate');
    const webhook = new WorkerHeartbeat(t.db.handle.db, clock, 'webhook', 'separate');
    await lifecycle.beat();
    await webhook.beat();
    let body = await health();
    assert.equal(body.workers.length, 2);
    assert.equal(body.workers_ok, true);
    const entry = body.workers.find((worker) => worker.id === lifecycle.id);
    assert.equal(entry?.kind, 'lifecycle');
    assert.equal(entry?.mode, 'separate');
    assert.equal(entry?.pid, process.pid);
    assert.equal(entry?.last_tick_at, clock.now().toISOString());
    assert.equal(entry?.stale, false);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.deepEqual(ready.json(), { ready: true, checks: { database: true, workers: true } });

    // Beats closer together than HEARTBEAT_EVERY_MS write nothing; the next one does.
    clock.advance(HEARTBEAT_EVERY_MS - 1);
    await lifecycle.beat();
    assert.equal((await health()).workers.find((worker) => worker.id === lifecycle.id)?.seconds_since_tick, Math.floor((HEARTBEAT_EVERY_MS - 1) / 1000));
    clock.advance(1);
    await lifecycle.beat();
    assert.equal((await health()).workers.find((worker) => worker.id === lifecycle.id)?.last_tick_at, clock.now().toISOString());

    // The webhook loop goes silent: stale past the bound; readiness reports it and stays 200.
    clock.advance(WORKER_STALE_AFTER_MS + 1000);
    await lifecycle.beat();
    body = await health();
    assert.equal(body.workers.find((worker) => worker.id === webhook.id)?.stale, true);
    assert.equal(body.workers.find((worker) => worker.id === lifecycle.id)?.stale, false);
    assert.equal(body.workers_ok, false);
    assert.equal(body.ready, true);
    const stale = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(stale.statusCode, 200);
    assert.deepEqual(stale.json(), { ready: true, checks: { database: true, workers: false } });

    // A loop that stops gracefully says so and is not counted stale later.
    await lifecycle.stopped();
    clock.advance(WORKER_STALE_AFTER_MS + 1000);
    const stopped = (await health()).workers.find((worker) => worker.id === lifecycle.id);
    assert.equal(stopped?.stopped_at, new Date(clock.now().getTime() - WORKER_STALE_AFTER_MS - 1000).toISOString());
    assert.equal(stopped?.stale, false);
  });

  it('the loops of a running worker beat by themselves, and a pass exports worker_lag_seconds', async () => {
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    assert.deepEqual((await health()).workers, [], 'rows of loops silent for a day are not listed');
    t.runtime.worker.start('in-process');
    t.runtime.webhookWorker.start('in-process');
    try {
      const body = await waitFor('both loops to beat', async () => {
        const seen = await health();
        return seen.workers.length === 2 ? seen : undefined;
      });
      assert.equal(body.workers_ok, true);
      assert.deepEqual(body.workers.map((worker) => worker.mode), ['in-process', 'in-process']);
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /^worker_lag_seconds 0$/m);
    } finally {
      await t.runtime.worker.stop();
      await t.runtime.webhookWorker.stop();
    }
    const after = await health();
    assert.ok(after.workers.every((worker) => worker.stopped_at !== null), 'stopping stamps the rows');
  });
});
