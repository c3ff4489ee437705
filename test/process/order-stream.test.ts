// test-engines: postgres (scripts/run-tests.ts): two processes share one PostgreSQL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type ApiServer } from '../helpers/process/app-server.js';
import { createPartner, http } from '../helpers/process/http-client.js';
import { killAll } from '../helpers/process/managed-process.js';
import { depositWalletEnv, ORDER_MIX } from '../helpers/process/order-mix.js';
import { sleep } from '../helpers/process/waits.js';
import { openSse, type SseEvent, type SseReader } from '../helpers/sse-client.js';
import { createTestDatabase, databaseEnv, testEngine, type TestDatabase } from '../helpers/test-database.js';

const engine = testEngine();
const skip =
  engine !== 'postgres'
    ? 'several processes cannot share one PGlite directory (the embedded default is one process, whose moves reach its streams in-process: test/streams): runs on the PostgreSQL pass'
    : false;

interface Streamed {
  id: string;
  status: string;
  version: number;
}

/**
 * docs/contract.md §10.11 across processes: one API process (its in-process worker) moves an order through
 * its whole life while another process streams it, told by LISTEN/NOTIFY. The reader is cut
 * off midway and reconnects with Last-Event-ID while the order keeps moving: every version still
 * arrives once and in order, the missed ones from the stored snapshots, the rest live.
 */
describe('an order streamed by one process while another moves it (PostgreSQL)', { skip, timeout: 180_000 }, () => {
  const adminToken = randomBytes(32).toString('base64url');
  const dirs = [mkdtempSync(path.join(tmpdir(), 'epa-stream-a-')), mkdtempSync(path.join(tmpdir(), 'epa-stream-b-'))];
  let database: TestDatabase | undefined;
  let streaming: ApiServer;
  let moving: ApiServer;

  before(async () => {
    database = await createTestDatabase('postgres');
    const env = {
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: adminToken,
      ...databaseEnv(database),
      LOG_LEVEL: 'warn',
      ...depositWalletEnv(),
    };
    [streaming, moving] = await Promise.all([
      startServer({ name: 'stream-a', env: { ...env, WORKER: 'off' }, dataDir: dirs[0]! }),
      startServer({ name: 'stream-b', env: { ...env, WORKER: 'in-process', WORKER_INTERVAL_MS: '100' }, dataDir: dirs[1]! }),
    ]);
  });

  after(async () => {
    await killAll();
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const admin = { authorization: `Bearer ${adminToken}` };

  function streamed(event: SseEvent | undefined, id: string): Streamed {
    assert.ok(event !== undefined, 'an event before the stream ended');
    assert.equal(event.event, 'order');
    const order = JSON.parse(event.data) as Streamed;
    assert.equal(event.id, `${id}:${order.version}`);
    return order;
  }

  it('every version arrives once and in order, across a forced reconnect with Last-Event-ID', async () => {
    const partner = await createPartner(moving.url, adminToken);
    const key = { authorization: `Bearer ${partner.apiKey}` };
    const created = await http(moving.url, 'POST', '/api/v1/partner/orders', { headers: key, json: ORDER_MIX[0] });
    assert.equal(created.status, 201, created.text);
    const { id } = JSON.parse(created.text) as { id: string };
    const url = `${streaming.url}/api/v1/partner/orders/stream?ids=${id}`;

    const first = await openSse(url, key);
    assert.equal(first.status, 200, first.body);
    const seen: Streamed[] = [streamed(await first.reader?.next(), id)];
    // Moved by the other process: the deposit is seen (confirming), told here by NOTIFY.
    const deposit = await http(moving.url, 'POST', `/admin/v1/simulator/orders/${id}/deposit`, { headers: admin, json: {} });
    assert.equal(deposit.status, 200, deposit.text);
    seen.push(streamed(await first.reader?.next(15_000), id));
    assert.equal(seen.at(-1)?.status, 'confirming');

    // The reader is cut off; the order moves on meanwhile (confirmed, exchanged, paid out).
    (first.reader as SseReader).close();
    const confirm = await http(moving.url, 'POST', `/admin/v1/simulator/orders/${id}/confirmations`, { headers: admin, json: { count: 6 } });
    assert.equal(confirm.status, 200, confirm.text);
    await sleep(150);

    const last = seen.at(-1) as Streamed;
    const again = await openSse(url, { ...key, 'last-event-id': `${id}:${last.version}` });
    assert.equal(again.status, 200, again.body);
    const reader = again.reader as SseReader;
    for (let event = await reader.next(20_000); event !== undefined; event = await reader.next(20_000)) seen.push(streamed(event, id));

    const versions = seen.map((order) => order.version);
    assert.deepEqual(versions, versions.map((_, i) => i), `versions ${versions.join(', ')}`);
    assert.equal(seen.at(-1)?.status, 'completed');
    console.log(`# statuses streamed: ${seen.map((order) => `${order.version}:${order.status}`).join(' → ')}`);
    // The last event is the order as GET answers it (on either process).
    const read = await http(streaming.url, 'GET', `/api/v1/partner/orders/${id}`, { headers: key });
    assert.equal((JSON.parse(read.text) as Streamed).version, seen.at(-1)?.version);
  });
});
