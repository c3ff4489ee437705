// test-direct: postgres
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { createMetrics } from '../../src/metrics.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { testEngine } from '../helpers/test-database.js';
import type { TestApp } from '../helpers/test-app.js';
import {
  BTC_CONFIRMATIONS,
  createOrder,
  moves,
  setConfirmations,
  simulateDeposit,
  simulatedTxid,
  startHarness,
  WINDOW_MS,
} from './lifecycle-helpers.js';

const ORDERS = 30;

async function transitionsCounted(runtime: Runtime): Promise<number> {
  const { values } = await runtime.lifecycle.transitions.get();
  return values.reduce((sum, sample) => sum + sample.value, 0);
}

describe('two workers on one PostgreSQL database', () => {
  // PGlite has a single connection in one process, so there is no parallelism to race there:
  // this test only means something on PostgreSQL, where it is real.
  it(
    'race every step of 30 orders: each is paid once, each transition is recorded once',
    { skip: testEngine() === 'pglite' ? 'PGlite has one connection: nothing can run in parallel' : false },
    async () => {
      const h = await startHarness();
      const t: TestApp = h.t;
      assert.ok(t.db.url !== undefined, 'a PostgreSQL test database');
      const second = await openDatabase({ engine: 'postgres', url: t.db.url, poolSize: 10, preparedStatements: !t.db.pooled });
      let other: Runtime | undefined;
      try {
        other = await createRuntime({
          config: t.config,
          database: second,
          clock: h.clock,
          logger: pino({ level: 'silent' }),
          metrics: createMetrics(),
        });
        const workers = [t.runtime.worker, other.worker];

        const ids: string[] = [];
        for (let i = 0; i < ORDERS; i++) ids.push((await createOrder(h)).id);
        for (const id of ids) {
          await simulateDeposit(h, id);
          await setConfirmations(h, id, BTC_CONFIRMATIONS);
        }

        let rounds = 0;
        for (; rounds < 20; rounds++) {
          // Four passes at once on each worker: watchers, leases and steps all race.
          await Promise.all(Array.from({ length: 4 }, () => workers.map((worker) => worker.tick())).flat());
          const open = await t.db.handle.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('status', '!=', 'completed')
            .executeTakeFirstOrThrow();
          if (Number(open.n) === 0) break;
        }
        assert.ok(rounds < 20, 'every order completed');

        const db = t.db.handle.db;
        const payouts = await db
          .selectFrom('payouts')
          .select(['order_id', 'kind', 'status', 'txid'])
          .where('order_id', 'in', ids)
          .execute();
        assert.equal(payouts.length, ORDERS, 'one payouts row per order');
        for (const payout of payouts) {
          assert.equal(payout.kind, 'payout');
          assert.equal(payout.status, 'sent');
          assert.equal(payout.txid, simulatedTxid(payout.order_id ?? '', 'payout'));
        }
        assert.deepEqual(new Set(payouts.map((payout) => payout.order_id)), new Set(ids));

        const sends = await db.selectFrom('simulated_sends').select('idempotency_key').execute();
        assert.equal(sends.length, ORDERS, 'one simulated send per order');
        assert.deepEqual(new Set(sends.map((send) => send.idempotency_key)), new Set(ids.map((id) => `${id}:payout`)));

        const duplicates = await sql<{ order_id: string; from_status: string | null; to_status: string; n: string }>`
          select order_id, from_status, to_status, count(*) as n from order_events
          group by order_id, from_status, to_status having count(*) > 1`.execute(db);
        assert.deepEqual(duplicates.rows, [], 'no transition recorded twice');
        for (const id of ids) {
          assert.deepEqual(await moves(h, id), [
            '∅→waiting_deposit',
            'waiting_deposit→confirming',
            'confirming→exchanging',
            'exchanging→sending',
            'sending→completed',
          ]);
        }

        // Four moves per order, each counted by exactly one of the two processes, and both took part.
        const mine = await transitionsCounted(t.runtime);
        const theirs = await transitionsCounted(other);
        assert.equal(mine + theirs, ORDERS * 4, `transitions counted: ${mine} here + ${theirs} there`);
        assert.ok(mine > 0 && theirs > 0, `both workers moved orders (${mine} / ${theirs})`);

        // Racing sweeps: each overdue order is expired by exactly one of them, with one audit row.
        const waiting: string[] = [];
        for (let i = 0; i < 10; i++) waiting.push((await createOrder(h)).id);
        h.clock.advance(WINDOW_MS);
        const swept = await Promise.all(Array.from({ length: 4 }, () => workers.map((worker) => worker.sweepExpired())).flat());
        assert.equal(swept.reduce((sum, n) => sum + n, 0), waiting.length, `moved per sweep: ${swept.join(', ')}`);
        for (const id of waiting) {
          assert.deepEqual(await moves(h, id), ['∅→waiting_deposit', 'waiting_deposit→expired']);
          const stored = await db.selectFrom('orders').select(['status', 'version']).where('id', '=', id).executeTakeFirstOrThrow();
          assert.deepEqual(stored, { status: 'expired', version: 1 });
        }
      } finally {
        await other?.close();
        await second.close();
        await t.close();
      }
    },
  );
});
