// test-engines: postgres (scripts/run-tests.ts): the separate worker runs on PostgreSQL only; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { startWorker } from '../helpers/process/app-server.js';
import { killAll } from '../helpers/process/managed-process.js';
import { depositWalletEnv } from '../helpers/process/order-mix.js';
import { waitFor } from '../helpers/process/waits.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { databaseEnv, testEngine } from '../helpers/test-database.js';

/**
 * SIGTERM to `npm run worker` while it is in the middle of work (docs/adr/0056-zero-downtime-upgrades.md):
 * a webhook attempt whose receiver has not answered yet, and an order's move waiting on the
 * database. Each finishes after the signal (the delivery recorded as delivered, the move
 * committed), and the process exits 0 within SHUTDOWN_TIMEOUT_MS. The API process's own drain
 * (in-flight requests across SIGTERM) is test/process/graceful-shutdown.test.ts.
 * PostgreSQL pass only: the separate worker needs DATABASE_URL.
 */
const engine = testEngine();
const SHUTDOWN_TIMEOUT_MS = 10_000;

describe('the separate worker drains on SIGTERM', { timeout: 180_000, skip: engine !== 'postgres' && 'the separate worker runs on PostgreSQL only: PostgreSQL pass' }, () => {
  const secretsKey = randomBytes(32).toString('hex');
  let t: TestApp;
  let partner: { id: string; apiKey: string };
  let workerEnv: Record<string, string>;

  before(async () => {
    // The partner API in this process (no worker of its own); the worker a process of its own.
    const wallets = depositWalletEnv();
    t = await buildTestApp({ production: true, env: { WORKER: 'off', SECRETS_KEY: secretsKey, WEBHOOK_ALLOW_PRIVATE: 'true', SIMULATOR_AUTO: '0', ...wallets } });
    partner = await t.createPartner();
    workerEnv = {
      ...wallets,
      ...databaseEnv(t.db),
      SECRETS_KEY: secretsKey,
      ADMIN_TOKEN: t.adminToken,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SIMULATOR_AUTO: '0',
      WORKER_INTERVAL_MS: '200',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      LOG_LEVEL: 'info',
    };
  });

  after(async () => {
    await killAll();
    await t?.close();
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url: `/api/v1/partner${url}`, headers: { 'x-api-key': partner.apiKey }, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('finishes the webhook attempt in flight, records it, and exits 0', async () => {
    // A receiver that holds the attempt until the test lets it answer.
    let arrived: (() => void) | undefined;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    let answer: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const receiver = http.createServer((req, res) => {
      req.resume();
      arrived?.();
      void answered.then(() => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const endpoint = await api('POST', '/webhooks', { url: `http://127.0.0.1:${port}/hook` });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      const { id } = endpoint.json<{ id: string }>();
      const ping = await api('POST', `/webhooks/${id}/test`);
      assert.ok(ping.statusCode < 300, ping.body);

      const worker = await startWorker('worker-drain-webhook', workerEnv);
      await arrival;
      const signalled = performance.now();
      worker.killNow('SIGTERM');
      await waitFor('the worker to begin its shutdown', () => worker.saw(/worker shutting down/));
      assert.ok(worker.running, 'the worker waits for the attempt in flight');
      answer?.();
      const exit = await worker.waitForExit(SHUTDOWN_TIMEOUT_MS + 5000);
      assert.equal(exit.code, 0, worker.tail());
      assert.ok(performance.now() - signalled < SHUTDOWN_TIMEOUT_MS, `exited ${Math.round(performance.now() - signalled)} ms after SIGTERM`);
      const deliveries = await api('GET', `/webhooks/${id}/deliveries`);
      assert.equal(deliveries.statusCode, 200, deliveries.body);
      const rows = deliveries.json<{ deliveries: { status: string }[] }>().deliveries;
      assert.deepEqual(
        rows.map((row) => row.status),
        ['delivered'],
        deliveries.body,
      );
    } finally {
      answer?.();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it("finishes the order move in flight (committed after the signal) and exits 0", async () => {
    const created = await api('POST', '/orders', {
      coin_from: 'BTC',
      network_from: 'BTC',
      coin_to: 'ETH',
      network_to: 'ETH',
      amount_from: '0.5',
      rate_type: 'float',
      recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    });
    assert.equal(created.statusCode, 201, created.body);
    const order = created.json<{ id: string }>();
    const deposit = await t.admin('POST', `/admin/v1/simulator/orders/${order.id}/deposit`, {});
    assert.ok(deposit.statusCode < 300, deposit.body);

    // Every order move writes its event: while this transaction holds order_events, the
    // worker's move of the deposit it sees waits inside its transaction.
    const holder = new pg.Client({ connectionString: t.db.directUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table order_events in share row exclusive mode');
      const worker = await startWorker('worker-drain-move', workerEnv);
      const database = new URL(t.db.directUrl ?? '').pathname.slice(1);
      await waitFor('the worker\'s move to wait on order_events', async () => {
        const { rows } = await holder.query<{ waiting: number }>(
          "select count(*)::int as waiting from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
          [database],
        );
        if (!worker.running) throw new Error(`the worker exited: ${worker.tail()}`);
        return (rows[0]?.waiting ?? 0) > 0;
      }, { timeoutMs: 20_000 }).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${worker.tail(60)}`);
      });
      const signalled = performance.now();
      worker.killNow('SIGTERM');
      await waitFor('the worker to begin its shutdown', () => worker.saw(/worker shutting down/));
      assert.ok(worker.running, 'the worker waits for the move in flight');
      await holder.query('commit');
      const exit = await worker.waitForExit(SHUTDOWN_TIMEOUT_MS + 5000);
      assert.equal(exit.code, 0, worker.tail());
      assert.ok(performance.now() - signalled < SHUTDOWN_TIMEOUT_MS, `exited ${Math.round(performance.now() - signalled)} ms after SIGTERM`);
      const { rows } = await sql<{ status: string; events: number }>`
        select status, (select count(*)::int from order_events where order_id = orders.id) as events from orders where id = ${order.id}`.execute(t.db.handle.db);
      assert.notEqual(rows[0]?.status, 'waiting_deposit', 'the move waited on was committed, not abandoned');
      assert.ok((rows[0]?.events ?? 0) >= 2, 'the move wrote its event');
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  });
});
