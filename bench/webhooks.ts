import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPartner } from '../test/helpers/process/http-client.js';
import { DIST_DIR, startWorker } from '../test/helpers/process/app-server.js';
import { WebhookReceiver } from '../test/webhooks/webhook-receiver.js';
import { percentile, runLoad } from './load.js';
import { PRODUCTION_LIKE_ENV, readCpuSeconds, startServer, type CpuPlan } from './server.js';

/**
 * `--only webhooks`: webhook delivery by one worker process (`npm run worker`: dist/, which the
 * server's start has built) on PostgreSQL to
 * a local receiver that answers 204 (issue 15's bars: at least 10,000 events delivered per
 * minute per worker, the oldest pending delivery under 2 s under the order load).
 * - Under load: orders are created (one order.created event each) by `connections` clients for
 *   `seconds` while the worker delivers; the receiver times each event from its timestamp, and
 *   the age of the oldest due delivery is sampled from the database every 100 ms.
 * - Capacity: with the worker stopped a backlog of pings is made, then one worker drains it;
 *   events per minute is the backlog over the time from the worker's first to last delivery.
 */
export interface WebhookBench {
  orders: number;
  /** Order creations that did not answer 201 under load. */
  ordersFailed: number;
  underLoad: { deliveredPerMinute: number; lagP50Ms: number; lagP99Ms: number; lagMaxMs: number; oldestPendingMaxMs: number };
  capacity: { events: number; seconds: number; perMinute: number; workerCpuSeconds: number };
}

export async function webhookBench(plan: CpuPlan, orderBody: string, seconds: number, connections: number, log: (m: string) => void): Promise<WebhookBench> {
  const receiver = await new WebhookReceiver().start();
  const secretsKey = randomBytes(32).toString('hex');
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', SECRETS_KEY: secretsKey };
  const server = await startServer({ engine: 'postgres', label: 'webhooks', plan, env });
  const databaseUrl = server.databaseUrl ?? '';
  const workerEnv = { ...PRODUCTION_LIKE_ENV, ...env, ADMIN_TOKEN: server.adminToken, DATABASE_URL: databaseUrl, WORKER: 'in-process' };
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const partner = await createPartner(server.url, server.adminToken, { name: 'bench-webhooks' });
    const auth = { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/api/v1/partner/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: receiver.url('/hook') }) });
    if (created.status !== 201) throw new Error(`webhook endpoint: ${created.status} ${await created.text()}`);
    const endpointId = ((await created.json()) as { id: string }).id;
    const load = { url: `${server.url}/api/v1/partner/orders`, connections, method: 'POST', headers: auth, body: orderBody, expectStatus: 201 };
    const oldestDueMs = async () => {
      const { rows } = await db.query<{ ms: string | null }>(
        `select extract(epoch from now() - min(next_attempt_at)) * 1000 as ms from webhook_deliveries where status = 'pending' and next_attempt_at <= now()`,
      );
      return Math.max(0, Number(rows[0]?.ms ?? 0));
    };

    // Under load, the worker running.
    let worker = await startWorker('bench:webhook-worker', workerEnv, 90_000, DIST_DIR);
    log(`webhooks: ${seconds} s of order creation with one worker delivering`);
    let oldestMax = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        oldestMax = Math.max(oldestMax, await oldestDueMs());
        await sleep(100);
      }
    })();
    const result = await runLoad({ ...load, duration: seconds });
    await waitDelivered(receiver, result.ok, 30_000);
    sampling = false;
    await sampler;
    const lags = receiver.received.map((r) => r.at - Date.parse((JSON.parse(r.body) as { timestamp: string }).timestamp));
    const times = receiver.received.map((r) => r.at);
    const span = (Math.max(...times) - Math.min(...times)) / 1000;
    const underLoad = {
      deliveredPerMinute: (receiver.received.length / Math.max(span, 1e-3)) * 60,
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      lagMaxMs: Math.max(...lags),
      oldestPendingMaxMs: oldestMax,
    };
    const orders = result.ok;
    const ordersFailed = result.failed;

    // Capacity: a backlog, then one worker drains it.
    await worker.stop(20_000);
    receiver.received.length = 0;
    log('webhooks: a backlog of pings with the worker stopped');
    // Pings (one event each, cheap to make) so the backlog is large whatever the order rate.
    const backlog = await runLoad({
      url: `${server.url}/api/v1/partner/webhooks/${endpointId}/test`,
      connections,
      method: 'POST',
      headers: { authorization: auth.authorization },
      duration: Math.max(2, Math.round(seconds / 2)),
      expectStatus: 202,
    });
    log(`webhooks: one worker drains ${backlog.ok} events`);
    worker = await startWorker('bench:webhook-worker-2', workerEnv, 90_000, DIST_DIR);
    const cpuBefore = readCpuSeconds(worker.pid);
    await waitDelivered(receiver, backlog.ok, 120_000);
    const cpu = readCpuSeconds(worker.pid) - cpuBefore;
    await worker.stop(20_000);
    const drained = receiver.received.map((r) => r.at);
    const drainSeconds = (Math.max(...drained) - Math.min(...drained)) / 1000;
    return {
      orders,
      ordersFailed,
      underLoad,
      capacity: { events: receiver.received.length, seconds: drainSeconds, perMinute: (receiver.received.length / Math.max(drainSeconds, 1e-3)) * 60, workerCpuSeconds: cpu },
    };
  } finally {
    await db.end();
    await server.stop();
    await receiver.close();
  }
}

async function waitDelivered(receiver: WebhookReceiver, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (new Set(receiver.received.map((r) => r.headers['webhook-id'])).size < count) {
    if (Date.now() > deadline) throw new Error(`only ${receiver.received.length} of ${count} events delivered in ${timeoutMs} ms`);
    await sleep(50);
  }
}

export function webhookSection(b: WebhookBench): string {
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
  return [
    '',
    '## Webhook delivery (one worker process, PostgreSQL, local receiver answering 204)',
    '',
    '| phase | events | delivered / min | lag p50 | lag p99 | lag max | oldest pending (max sampled) | worker CPU |',
    '|---|---|---|---|---|---|---|---|',
    `| under order load (${b.ordersFailed} order creations failed) | ${b.orders} | ${f(b.underLoad.deliveredPerMinute)} | ${f(b.underLoad.lagP50Ms)} ms | ${f(b.underLoad.lagP99Ms)} ms | ${f(b.underLoad.lagMaxMs)} ms | ${f(b.underLoad.oldestPendingMaxMs)} ms | |`,
    `| draining a backlog | ${b.capacity.events} | ${f(b.capacity.perMinute)} | | | | | ${b.capacity.workerCpuSeconds.toFixed(1)} s over ${b.capacity.seconds.toFixed(1)} s |`,
    '',
    'Lag: from the event (its order\'s creation) to its arrival at the receiver. Under load the rate is the order rate ' +
      '(the worker keeps up when lag stays low); the backlog row is the worker\'s own capacity. Bars (issue 15): at least ' +
      '10,000 events per minute per worker, oldest pending under 2 s.',
    '',
  ].join('\n');
}
