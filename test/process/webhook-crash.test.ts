import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { ServerResponse } from 'node:http';
import { killAll } from '../helpers/process/managed-process.js';
import { waitFor } from '../helpers/process/waits.js';
import { startServer, type ApiServer } from '../helpers/process/app-server.js';
import { createPartner, http, pool } from '../helpers/process/http-client.js';
import { depositWalletEnv, ORDER_MIX } from '../helpers/process/order-mix.js';
import { createTestDatabase, newDataDir, testEngine, type TestDatabase } from '../helpers/test-database.js';
import { WebhookReceiver } from '../webhooks/webhook-receiver.js';

/**
 * At least once, never lost (issue 15): the process delivering webhooks is killed with SIGKILL
 * while deliveries are in flight (the receiver holds their answers), then restarted on the same
 * store. Every event must reach the receiver at least once, and a delivery seen twice carries
 * the same webhook-id and body both times. The process is `npm start` (API and workers in one,
 * the only way on PGlite) on the PGlite pass and on PostgreSQL on the PostgreSQL pass.
 */
const engine = testEngine();
const ORDERS = 40;
/** Deliveries answered before the receiver starts holding answers (and the worker is killed). */
const ANSWERED_BEFORE_KILL = 10;
/** A start-up on a busy 2-core machine can take over a minute (tsx compiles the app first). */
const START_MS = 120_000;

describe(`kill -9 of the webhook worker mid-delivery (${engine})`, { timeout: 300_000 }, () => {
  const dataDir = newDataDir('epa-webhook-crash-');
  const adminToken = randomBytes(32).toString('base64url');
  const receiver = new WebhookReceiver();
  let database: TestDatabase | undefined;
  let env: Record<string, string>;

  before(async () => {
    await receiver.start();
    env = {
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      SIMULATOR_AUTO: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // A lease outlives an attempt by 2 s: the restarted worker retakes the killed one's soon.
      WEBHOOK_TIMEOUT_MS: '1000',
    };
    if (engine === 'postgres') {
      database = await createTestDatabase('postgres');
      env = { ...env, DATABASE_URL: database.url ?? '', ...depositWalletEnv() };
    }
  });

  after(async () => {
    await killAll();
    await receiver.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every event at least once across the kill, duplicates with the same webhook-id', async () => {
    let server: ApiServer = await startServer({ name: 'webhooks-1', env, dataDir, timeoutMs: START_MS });
    const partner = await createPartner(server.url, adminToken);
    const headers = { authorization: `Bearer ${partner.apiKey}` };
    const held: ServerResponse[] = [];
    let answered = 0;
    receiver.behave('/hook', (response) => {
      if (answered < ANSWERED_BEFORE_KILL) {
        answered += 1;
        response.writeHead(204).end();
      } else {
        held.push(response);
      }
    });
    const endpoint = await http(server.url, 'POST', '/api/v1/partner/webhooks', { headers, json: { url: receiver.url('/hook') } });
    assert.equal(endpoint.status, 201, endpoint.text);

    const orderIds: string[] = [];
    await pool(ORDERS, 4, async (i) => {
      const res = await http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[i % ORDER_MIX.length] });
      assert.equal(res.status, 201, res.text);
      orderIds.push((JSON.parse(res.text) as { id: string }).id);
    });
    // Mid-delivery: answers are being held, so attempts are in flight when the process dies.
    await waitFor('attempts in flight', () => held.length > 0, { timeoutMs: 30_000 });
    await server.kill9();
    for (const response of held) response.destroy();
    receiver.behave('/hook', (response) => response.writeHead(204).end());

    server = await startServer({ name: 'webhooks-2', env, dataDir, timeoutMs: START_MS });
    const byId = new Map<string, string[]>();
    await waitFor(
      'every event delivered',
      () => {
        byId.clear();
        for (const request of receiver.on('/hook')) {
          const id = String(request.headers['webhook-id']);
          byId.set(id, [...(byId.get(id) ?? []), request.body]);
        }
        return byId.size >= ORDERS;
      },
      { timeoutMs: 150_000, intervalMs: 200 },
    );
    assert.equal(byId.size, ORDERS, 'one webhook-id per event');
    const delivered = new Set([...byId.values()].map((bodies) => (JSON.parse(bodies[0] ?? '{}') as { data: { order: { id: string } } }).data.order.id));
    assert.deepEqual([...delivered].sort(), [...orderIds].sort(), 'every order.created reached the receiver');
    const duplicates = [...byId.values()].filter((bodies) => bodies.length > 1);
    assert.ok(duplicates.length > 0, 'an attempt cut by the kill was made again');
    for (const bodies of duplicates) assert.equal(new Set(bodies).size, 1, 'the same event, byte for byte, under the same webhook-id');
  });
});
