import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'lossless-json';
import { killAll } from '../helpers/process/managed-process.js';
import { sleep } from '../helpers/process/waits.js';
import { startServer, type ApiServer } from '../helpers/process/app-server.js';
import { createPartner, http } from '../helpers/process/http-client.js';
import { depositWalletEnv, ORDER_MIX } from '../helpers/process/order-mix.js';
import { createTestDatabase, databaseEnv, newDataDir, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * Crash durability: the server is killed with SIGKILL while a burst of order creations is in
 * flight. After a restart on the same store (the same DATA_DIR for PGlite, whose stale pid
 * lock the new process takes over; the same DATABASE_URL for PostgreSQL) every order that was
 * answered 201 must be readable and unchanged. Runs on PGlite on the PGlite pass and on
 * PostgreSQL on the PostgreSQL pass. What this does and does not prove: docs/durability.md.
 *
 * Every request carries an Idempotency-Key (issue 36.8): a client whose request was cut off by
 * the kill retries it with the same key against the restarted server, and gets its order within
 * the claim's lease: at once when the dead request had not claimed the key or had completed it
 * (the same order), after a 409 whose Retry-After it honours when the dead request held a claim.
 */
const engine = testEngine();
const BURST = 400;
const IN_FLIGHT = 16;
/** 201 answers received during the burst before the kill. */
const KILL_AFTER = 40;

/** Order JSON with every number kept as its literal text, so "unchanged" means byte-exact values. */
function exact(text: string): Record<string, unknown> {
  return parse(text, null, (literal: string) => literal) as Record<string, unknown>;
}

describe(`kill -9 during order creation (${engine})`, { timeout: 150_000 }, () => {
  const dataDir = newDataDir('epa-crash-');
  const adminToken = randomBytes(32).toString('base64url');
  let database: TestDatabase | undefined;
  let env: Record<string, string>;

  before(async () => {
    env = {
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: adminToken,
      WORKER: 'off',
      LOG_LEVEL: 'warn',
    };
    if (engine === 'postgres') {
      database = await createTestDatabase('postgres');
      env = { ...env, ...databaseEnv(database), ...depositWalletEnv() };
    }
  });

  after(async () => {
    await killAll();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every order that was answered 201, unchanged, across a SIGKILL and restart', async () => {
    let server: ApiServer = await startServer({ name: 'crash-1', env, dataDir });
    const partner = await createPartner(server.url, adminToken);
    const headers = { authorization: `Bearer ${partner.apiKey}` };

    const answered = new Map<string, string>();
    /** Requests the kill cut off: their Idempotency-Key and body, to retry after the restart. */
    const cutOff: Array<{ key: string; json: unknown }> = [];
    let inFlight = 0;
    let inFlightAtKill = -1;
    let killed = false;
    let killing: Promise<void> | undefined;
    let transportErrors = 0;
    const burstUrl = server.url;
    const create = async (i: number): Promise<void> => {
      inFlight += 1;
      const key = `crash-${i}`;
      const json = ORDER_MIX[i % ORDER_MIX.length];
      try {
        const res = await http(burstUrl, 'POST', '/api/v1/partner/orders', {
          headers: { ...headers, 'idempotency-key': key },
          json,
          timeoutMs: 20_000,
        });
        if (res.status === 201) {
          const { id } = JSON.parse(res.text) as { id: string };
          answered.set(id, res.text);
        } else {
          assert.fail(`order creation answered ${res.status}: ${res.text}`);
        }
      } catch (error) {
        if (!killed) throw error;
        transportErrors += 1; // cut off by the kill: no answer, so no promise made
        cutOff.push({ key, json });
      } finally {
        inFlight -= 1;
      }
      if (!killed && answered.size >= KILL_AFTER) {
        killed = true;
        inFlightAtKill = inFlight;
        killing = server.kill9();
      }
    };

    // IN_FLIGHT lanes issue requests back to back until the kill stops them.
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (!killed && next < BURST) await create(next++);
      }),
    );
    await killing;
    assert.ok(killed, `the burst finished (${answered.size} orders) before the kill: raise BURST`);
    assert.equal(server.exit?.signal, 'SIGKILL');
    assert.ok(inFlightAtKill > 0, 'requests were in flight when the server was killed');
    assert.ok(answered.size >= KILL_AFTER);

    if (engine === 'pglite') {
      // The dead process's lock is still there: the restart has to take it over.
      const lockFile = path.join(dataDir, 'pglite.lock');
      assert.ok(existsSync(lockFile), 'the killed server left its pid lock behind');
      assert.equal(Number(readFileSync(lockFile, 'utf8').trim()), server.pid);
    }

    await sleep(200);
    server = await startServer({ name: 'crash-2', env, dataDir });
    for (const [id, body] of answered) {
      const res = await http(server.url, 'GET', `/api/v1/partner/orders/${id}`, { headers });
      assert.equal(res.status, 200, `order ${id} answered 201 before the kill is gone after restart: ${res.text}`);
      const before = exact(body);
      const now = exact(res.text);
      // With WORKER=off nothing moves an order: only the status could differ, and it must not.
      assert.equal(now.status, 'waiting_deposit');
      assert.deepEqual({ ...now, status: undefined }, { ...before, status: undefined }, `order ${id} changed across the crash`);
    }

    // The cut-off clients retry with their keys: each gets one order, within the claim's lease.
    const claimed = new Map<string, string>();
    if (database !== undefined) {
      const rows = await database.handle.db.selectFrom('idempotency_keys').select(['key', 'order_id']).where('key', 'in', cutOff.map((c) => c.key).concat('')).execute();
      for (const row of rows) if (row.order_id !== null) claimed.set(row.key, row.order_id);
    }
    let waitedForLease = 0;
    const retried = await Promise.all(
      cutOff.map(async ({ key, json }) => {
        const started = performance.now();
        for (;;) {
          const res = await http(server.url, 'POST', '/api/v1/partner/orders', { headers: { ...headers, 'idempotency-key': key }, json, timeoutMs: 20_000 });
          if (res.status === 201) return { key, id: (JSON.parse(res.text) as { id: string }).id, replayed: res.headers.get('idempotent-replayed') === 'true' };
          // The dead request's claim: "in progress" for at most the lease, and the 409 says when to come back.
          assert.equal(res.status, 409, `retry of ${key} answered ${res.status}: ${res.text}`);
          const retryAfter = Number(res.headers.get('retry-after'));
          assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15, `409 for ${key} without a usable Retry-After: ${res.headers.get('retry-after')}`);
          assert.ok(performance.now() - started < 20_000, `${key} still in progress 20 s after the restart`);
          waitedForLease += 1;
          await sleep(retryAfter * 1000);
        }
      }),
    );
    for (const { key, id, replayed } of retried) {
      assert.ok(!answered.has(id), `the retry of ${key} was given another client's order`);
      // A key the dead process completed answers that order; the others make theirs now.
      if (claimed.has(key)) {
        assert.equal(id, claimed.get(key), `${key} was completed before the kill: its retry must answer that order`);
        assert.ok(replayed);
      }
    }
    assert.equal(new Set(retried.map((r) => r.id)).size, retried.length, 'two cut-off keys were given one order');
    if (database !== undefined) {
      const perKey = await database.handle.db
        .selectFrom('idempotency_keys')
        .select(['key', 'order_id'])
        .where('key', 'in', cutOff.map((c) => c.key).concat(''))
        .execute();
      assert.deepEqual(new Map(perKey.map((row) => [row.key, row.order_id])), new Map(retried.map((r) => [r.key, r.id])), 'one key, one order');
    }

    // The store is usable after the crash: new orders get new deposit addresses and short ids.
    const fresh = await http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[0] });
    assert.equal(fresh.status, 201, fresh.text);
    const freshOrder = JSON.parse(fresh.text) as { short_id: string; deposit_address: string };
    for (const body of answered.values()) {
      const old = JSON.parse(body) as { short_id: string; deposit_address: string; deposit_address_tag: string | null };
      assert.notEqual(old.short_id, freshOrder.short_id);
      assert.notEqual(old.deposit_address, freshOrder.deposit_address);
    }
    if (database !== undefined) {
      const stored = await database.handle.db.selectFrom('orders').select('id').execute();
      const ids = new Set(stored.map((row) => row.id));
      for (const id of answered.keys()) assert.ok(ids.has(id));
    }
    await server.stop(10_000);
    console.log(
      `# ${engine}: ${answered.size} orders answered 201 before SIGKILL with ${inFlightAtKill} in flight ` +
        `(${transportErrors} cut off); all ${answered.size} read back unchanged after restart; ` +
        `the ${cutOff.length} cut off each got one order on retry with their Idempotency-Key (${claimed.size} completed before the kill, ${waitedForLease} 409s honoured)`,
    );
  });
});
