/**
 * `npm run check:concurrency [-- --orders N] [--concurrency C] [--timeout SECONDS]`
 *
 * The production layout under load: two API processes (WORKER=off) and two `npm run worker`
 * processes on one fresh PostgreSQL database (created here, dropped at the end) and one Redis
 * (a key prefix of its own). N orders (default 10,000) are created concurrently through both
 * APIs with a mix of hd (BTC, ETH, LTC) and memo (XRP) sources, their deposits are driven
 * through the simulator endpoints of both APIs, and once every order is final the database is
 * checked with SQL: no shared deposit address or short id, no lost order, every order completed
 * with exactly one payout and one simulated send, no duplicated transition row. Prints a
 * summary with timings; exits 1 on any violation.
 *
 * PostgreSQL: TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the
 * server the fresh database is created on. Redis: TEST_REDIS_URL (default redis://127.0.0.1:6379).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql, type RawBuilder } from 'kysely';
import { killAll, type ManagedProcess } from '../test/helpers/process/managed-process.js';
import { sleep } from '../test/helpers/process/waits.js';
import { startServer, startWorker, type ApiServer } from '../test/helpers/process/app-server.js';
import { createPartner, http, pool } from '../test/helpers/process/http-client.js';
import { depositWalletEnv, ORDER_MIX } from '../test/helpers/process/order-mix.js';
import { createTestDatabase, databaseEnv, type TestDatabase } from '../test/helpers/test-database.js';
import { REDIS_URL, deleteKeys, withKeyPrefix } from '../test/rate-limit/redis-support.js';

export interface ConcurrencyOptions {
  orders: number;
  /** Requests in flight at once, over both APIs. */
  concurrency: number;
  /** Bound of the wait for every order to be final, ms. */
  settleTimeoutMs: number;
  log: (line: string) => void;
}

export interface ConcurrencyReport {
  orders: number;
  created: number;
  /** Non-201 answers and transport errors of order creation, by status (or "error"). */
  createFailures: Record<string, number>;
  statuses: Record<string, number>;
  /** The ledger's trial balance once every order is final: each account per asset (debit positive). */
  trialBalance: { account: string; asset: string; balance: string }[];
  violations: string[];
  timings: { startMs: number; createMs: number; depositsMs: number; settleMs: number; checksMs: number; totalMs: number };
}

const FINAL = new Set(['completed', 'expired', 'refunded', 'failed']);

export async function runConcurrencyCheck(options: ConcurrencyOptions): Promise<ConcurrencyReport> {
  const { log } = options;
  const started = performance.now();
  const violations: string[] = [];
  const prefix = `epa-check:${process.pid}:${randomBytes(6).toString('hex')}:`;
  const dirs: string[] = [];
  let database: TestDatabase | undefined;
  const processes: ManagedProcess[] = [];
  try {
    database = await createTestDatabase('postgres');
    const adminToken = randomBytes(32).toString('base64url');
    const env: Record<string, string> = {
      // Through the pgbouncer pass's pooler too, LISTEN then on the database itself.
      ...databaseEnv(database),
      REDIS_URL: withKeyPrefix(REDIS_URL, prefix),
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: adminToken,
      WORKER: 'off',
      SIMULATOR_AUTO: '1',
      SIMULATOR_CONFIRM_SECONDS: '1',
      WORKER_INTERVAL_MS: '50',
      LOG_LEVEL: 'warn',
      // The check drives 200 simulator deposits through the operator API at once from one
      // address. The admin-token failure budget reserves every attempt until its token matches
      // (so parallel guesses cannot outrun it), which also refuses more valid calls in flight
      // than the budget: a known limit of that design, not what this check is about.
      ADMIN_AUTH_FAILURES_PER_MINUTE: '10000',
      ...depositWalletEnv(),
    };
    const dataDir = (): string => {
      const dir = mkdtempSync(path.join(tmpdir(), 'epa-concurrency-'));
      dirs.push(dir);
      return dir;
    };

    // --- start: 2 APIs, 2 workers --------------------------------------------------------
    let mark = performance.now();
    const apis: ApiServer[] = await Promise.all(
      [1, 2].map((n) => startServer({ name: `api-${n}`, env, dataDir: dataDir() })),
    );
    processes.push(...apis);
    const workers = await Promise.all(
      [1, 2].map((n) => startWorker(`worker-${n}`, { ...env, LOG_LEVEL: 'info', DATA_DIR: dataDir() })),
    );
    processes.push(...workers);
    const startMs = performance.now() - mark;
    log(`started 2 APIs (${apis.map((a) => a.url).join(', ')}) and 2 workers in ${(startMs / 1000).toFixed(1)} s`);

    const api = (i: number): ApiServer => apis[i % apis.length]!;
    const partner = await createPartner(api(0).url, adminToken);
    const partnerHeaders = { authorization: `Bearer ${partner.apiKey}` };
    const adminHeaders = { authorization: `Bearer ${adminToken}` };

    // --- create N orders through both APIs -------------------------------------------------
    mark = performance.now();
    const created: Array<{ id: string; shortId: string; required: number; body: string } | undefined> = new Array<undefined>(options.orders);
    const createFailures: Record<string, number> = {};
    const failureSamples: string[] = [];
    let done = 0;
    const progress = setInterval(() => log(`  creating: ${done}/${options.orders}`), 5000).unref();
    try {
      await pool(options.orders, options.concurrency, async (i) => {
        try {
          const res = await http(api(i).url, 'POST', '/api/v1/partner/orders', {
            headers: partnerHeaders,
            json: ORDER_MIX[i % ORDER_MIX.length],
            timeoutMs: 60_000,
          });
          if (res.status === 201) {
            const order = JSON.parse(res.text) as { id: string; short_id: string; deposit_confirmations_required: number };
            created[i] = { id: order.id, shortId: order.short_id, required: order.deposit_confirmations_required, body: res.text };
          } else {
            createFailures[res.status] = (createFailures[res.status] ?? 0) + 1;
            if (failureSamples.length < 5) failureSamples.push(`${res.status} ${res.text.slice(0, 200)}`);
          }
        } catch (error) {
          createFailures.error = (createFailures.error ?? 0) + 1;
          if (failureSamples.length < 5) failureSamples.push(String(error));
        }
        done += 1;
      });
    } finally {
      clearInterval(progress);
    }
    const createMs = performance.now() - mark;
    const orders = created.filter((order) => order !== undefined);
    log(
      `created ${orders.length}/${options.orders} orders in ${(createMs / 1000).toFixed(1)} s ` +
        `(${Math.round(orders.length / (createMs / 1000))}/s)`,
    );
    if (orders.length !== options.orders) {
      violations.push(`order creation: ${options.orders - orders.length} requests not answered 201: ${JSON.stringify(createFailures)}; e.g. ${failureSamples.join(' | ')}`);
    }
    const dupShortIds = orders.length - new Set(orders.map((o) => o.shortId)).size;
    if (dupShortIds > 0) violations.push(`${dupShortIds} duplicate short ids among the 201 answers`);
    const dupIds = orders.length - new Set(orders.map((o) => o.id)).size;
    if (dupIds > 0) violations.push(`${dupIds} duplicate ids among the 201 answers`);

    // --- deposits and confirmations through the simulator, alternating APIs ---------------
    mark = performance.now();
    const depositFailures: string[] = [];
    done = 0;
    const depositProgress = setInterval(() => log(`  deposits: ${done}/${orders.length}`), 5000).unref();
    try {
      await pool(orders.length, options.concurrency, async (i) => {
        const order = orders[i]!;
        try {
          const deposit = await http(api(i).url, 'POST', `/admin/v1/simulator/orders/${order.id}/deposit`, {
            headers: adminHeaders,
            json: {},
            timeoutMs: 60_000,
          });
          if (deposit.status !== 200) throw new Error(`deposit ${deposit.status} ${deposit.text.slice(0, 200)}`);
          const confirmations = await http(api(i + 1).url, 'POST', `/admin/v1/simulator/orders/${order.id}/confirmations`, {
            headers: adminHeaders,
            json: { count: order.required },
            timeoutMs: 60_000,
          });
          if (confirmations.status !== 200) throw new Error(`confirmations ${confirmations.status} ${confirmations.text.slice(0, 200)}`);
        } catch (error) {
          depositFailures.push(`${order.id}: ${String(error)}`);
        }
        done += 1;
      });
    } finally {
      clearInterval(depositProgress);
    }
    const depositsMs = performance.now() - mark;
    log(`drove ${orders.length} deposits in ${(depositsMs / 1000).toFixed(1)} s`);
    if (depositFailures.length > 0) {
      violations.push(`${depositFailures.length} simulator calls failed; e.g. ${depositFailures.slice(0, 3).join(' | ')}`);
    }

    // --- wait (bounded) until every order is final --------------------------------------------
    mark = performance.now();
    const db = database.handle.db;
    const countStatuses = async (): Promise<Record<string, number>> => {
      const rows = await db
        .selectFrom('orders')
        .select(['status', db.fn.countAll<string>().as('n')])
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
    };
    let statuses = await countStatuses();
    let lastLog = performance.now();
    for (;;) {
      const open = Object.entries(statuses).filter(([status]) => !FINAL.has(status)).reduce((sum, [, n]) => sum + n, 0);
      if (open === 0) break;
      if (performance.now() - mark > options.settleTimeoutMs) {
        violations.push(`${open} orders still not final after ${options.settleTimeoutMs / 1000} s: ${JSON.stringify(statuses)}`);
        break;
      }
      for (const worker of workers) {
        if (!worker.running) throw new Error(`${worker.name} died: ${JSON.stringify(worker.exit)}\n${worker.tail()}`);
      }
      if (performance.now() - lastLog > 5000) {
        log(`  settling: ${JSON.stringify(statuses)}`);
        lastLog = performance.now();
      }
      await sleep(500);
      statuses = await countStatuses();
    }
    const settleMs = performance.now() - mark;
    log(`all final after ${(settleMs / 1000).toFixed(1)} s more: ${JSON.stringify(statuses)}`);

    // --- SQL checks ---------------------------------------------------------------------------
    mark = performance.now();
    violations.push(...(await sqlChecks(database, orders)));
    violations.push(...(await ledgerChecks(database, orders.length)));
    const trialBalance = await ledgerTrialBalance(database);
    const checksMs = performance.now() - mark;

    for (const proc of processes) {
      if (!proc.running) violations.push(`${proc.name} exited during the run: ${JSON.stringify(proc.exit)}`);
      else if (proc.saw(/"level":(50|60)/)) violations.push(`${proc.name} logged errors:\n${proc.tail(10)}`);
    }

    return {
      orders: options.orders,
      created: orders.length,
      createFailures,
      statuses,
      trialBalance,
      violations,
      timings: { startMs, createMs, depositsMs, settleMs, checksMs, totalMs: performance.now() - started },
    };
  } finally {
    await Promise.all(processes.map((proc) => proc.stop(5000)));
    await database?.drop().catch((error: unknown) => log(`could not drop the database: ${String(error)}`));
    await deleteKeys(prefix);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** The invariants, asked of the database itself. Every message is one violation. */
async function sqlChecks(database: TestDatabase, orders: ReadonlyArray<{ id: string; shortId: string; body: string }>): Promise<string[]> {
  const db = database.handle.db;
  const violations: string[] = [];
  const one = async <T>(query: RawBuilder<T>): Promise<T[]> => (await query.execute(db)).rows;

  const sharedAddresses = await one<{ chain: string; address: string; tag: string; n: string }>(sql`
    select c.chain, o.deposit_address as address, coalesce(o.deposit_address_tag, '') as tag, count(*) as n
    from orders o join currencies c on c.id = o.currency_from_id
    group by 1, 2, 3 having count(*) > 1`);
  if (sharedAddresses.length > 0) {
    violations.push(`${sharedAddresses.length} deposit addresses (chain, address, tag) shared by several orders, e.g. ${JSON.stringify(sharedAddresses.slice(0, 3))}`);
  }
  const sharedAllocations = await one<{ n: string }>(sql`
    select count(*) as n from (select 1 from deposit_addresses group by chain, address, tag having count(*) > 1) d`);
  if (Number(sharedAllocations[0]?.n) > 0) violations.push(`${sharedAllocations[0]?.n} duplicated rows in deposit_addresses`);
  const unbound = await one<{ n: string }>(sql`
    select count(*) as n from orders o
    where not exists (select 1 from deposit_addresses d where d.order_id = o.id and d.address = o.deposit_address
                      and d.tag = coalesce(o.deposit_address_tag, ''))`);
  if (Number(unbound[0]?.n) > 0) violations.push(`${unbound[0]?.n} orders whose deposit address is not bound to them in deposit_addresses`);

  const sharedShortIds = await one<{ n: string }>(sql`
    select count(*) as n from (select short_id from orders group by short_id having count(*) > 1) s`);
  if (Number(sharedShortIds[0]?.n) > 0) violations.push(`${sharedShortIds[0]?.n} short ids used by several orders`);

  const ids = orders.map((order) => order.id);
  const present = await one<{ n: string }>(sql`select count(*) as n from orders where id = any(${ids}::uuid[])`);
  if (Number(present[0]?.n) !== ids.length) violations.push(`lost orders: ${ids.length - Number(present[0]?.n)} answered 201 but are not stored`);
  const total = await one<{ n: string }>(sql`select count(*) as n from orders`);
  if (Number(total[0]?.n) !== ids.length) violations.push(`order count ${total[0]?.n} differs from the ${ids.length} answered 201`);
  const changed = await one<{ n: string }>(sql`
    select count(*) as n from orders o join unnest(${ids}::uuid[], ${orders.map((o) => o.shortId)}::text[]) as a(id, short_id)
      on a.id = o.id where a.short_id <> o.short_id`);
  if (Number(changed[0]?.n) > 0) violations.push(`${changed[0]?.n} orders stored with another short id than they were answered with`);

  const notCompleted = await one<{ status: string; n: string }>(sql`
    select status, count(*) as n from orders where status <> 'completed' group by status`);
  if (notCompleted.length > 0) violations.push(`orders not completed: ${JSON.stringify(notCompleted)}`);

  const payouts = await one<{ payouts: string; orders_with: string; refunds: string; unsent: string }>(sql`
    select count(*) filter (where kind = 'payout') as payouts,
           count(distinct order_id) filter (where kind = 'payout') as orders_with,
           count(*) filter (where kind = 'refund') as refunds,
           count(*) filter (where kind = 'payout' and (status <> 'sent' or txid is null)) as unsent
    from payouts`);
  const p = payouts[0];
  if (Number(p?.payouts) !== ids.length || Number(p?.orders_with) !== ids.length) {
    violations.push(`payout rows: ${p?.payouts} for ${p?.orders_with} orders, expected exactly one for each of ${ids.length}`);
  }
  if (Number(p?.refunds) > 0) violations.push(`${p?.refunds} refund rows (no order should refund)`);
  if (Number(p?.unsent) > 0) violations.push(`${p?.unsent} payout rows not marked sent with a txid`);

  const sends = await one<{ n: string; keys: string }>(sql`
    select count(*) as n, count(distinct idempotency_key) as keys from simulated_sends`);
  if (Number(sends[0]?.n) !== ids.length || Number(sends[0]?.keys) !== ids.length) {
    violations.push(`simulated sends: ${sends[0]?.n} (${sends[0]?.keys} distinct keys), expected ${ids.length}: something was paid twice or not at all`);
  }
  const txidMismatch = await one<{ n: string }>(sql`
    select count(*) as n from orders o
    left join simulated_sends s on s.idempotency_key = o.id::text || ':payout'
    where s.txid is distinct from o.payout_txid`);
  if (Number(txidMismatch[0]?.n) > 0) violations.push(`${txidMismatch[0]?.n} orders whose payout_txid is not the one simulated send's txid`);

  const duplicateEvents = await one<{ order_id: string; from_status: string | null; to_status: string; n: string }>(sql`
    select order_id, from_status, to_status, count(*) as n from order_events
    group by order_id, from_status, to_status having count(*) > 1
    order by count(*) desc limit 5`);
  if (duplicateEvents.length > 0) {
    const count = await one<{ n: string }>(sql`
      select count(*) as n from (select 1 from order_events group by order_id, from_status, to_status having count(*) > 1) d`);
    violations.push(`${count[0]?.n} duplicated (order_id, from_status, to_status) event rows, e.g. ${JSON.stringify(duplicateEvents)}`);
  }
  const missingEvents = await one<{ n: string }>(sql`
    select count(*) as n from orders o
    where (select count(*) from order_events e where e.order_id = o.id and e.to_status = 'completed') <> 1
       or (select count(*) from order_events e where e.order_id = o.id and e.from_status is null) <> 1`);
  if (Number(missingEvents[0]?.n) > 0) violations.push(`${missingEvents[0]?.n} orders without exactly one created and one completed event`);
  return violations;
}

/** The asset name of a currency row, in SQL, as src/domain/asset-name.ts spells it. */
const assetOf = (alias: string): RawBuilder<string> =>
  sql<string>`regexp_replace(upper(case when ${sql.ref(`${alias}.coin`)} = ${sql.ref(`${alias}.network`)} then ${sql.ref(`${alias}.coin`)} else ${sql.ref(`${alias}.coin`)} || '_' || ${sql.ref(`${alias}.network`)} end), '[^A-Z0-9]', '_', 'g')`;

/**
 * The books (issue 29): every ledger transaction balances per asset, each order posted exactly
 * its deposit, exchange and payout, and every account's balance per asset is what the orders
 * imply, to the last decimal: deposits and revenue the received amounts, revenue and the hot
 * wallet the payouts, the partners' commission their fees, nothing left payable.
 */
async function ledgerChecks(database: TestDatabase, orderCount: number): Promise<string[]> {
  const db = database.handle.db;
  const violations: string[] = [];
  const one = async <T>(query: RawBuilder<T>): Promise<T[]> => (await query.execute(db)).rows;
  const unbalanced = await one<{ n: string }>(sql`
    select count(*) as n from (select 1 from ledger_entries group by transaction_id, asset having sum(amount) <> 0) u`);
  if (Number(unbalanced[0]?.n) > 0) violations.push(`${unbalanced[0]?.n} ledger transactions that do not balance in an asset`);
  const kinds = (
    await one<{ kind: string; n: string; orders: string }>(sql`
      select kind, count(*) as n, count(distinct order_id) as orders from ledger_transactions group by kind order by kind`)
  ).map((row) => ({ kind: row.kind, n: Number(row.n), orders: Number(row.orders) }));
  const expectedKinds = ['deposit', 'exchange', 'payout'].map((kind) => ({ kind, n: orderCount, orders: orderCount }));
  if (JSON.stringify(kinds) !== JSON.stringify(expectedKinds)) {
    violations.push(`ledger transactions by kind ${JSON.stringify(kinds)}, expected one deposit, exchange and payout for each of ${orderCount} orders`);
  }
  const off = await one<{ account: string; asset: string; want: string; got: string }>(sql`
    with o as (
      select o.amount_from_received as received, o.amount_to_final as paid, coalesce(o.partner_fee, 0) as fee, ${assetOf('cf')} as a, ${assetOf('ct')} as b
      from orders o join currencies cf on cf.id = o.currency_from_id join currencies ct on ct.id = o.currency_to_id
    ), implied as (
      select 'deposits' as account, a as asset, received as amount from o
      union all select 'revenue', a, -received from o
      union all select 'revenue', b, paid + fee from o
      union all select 'partner_commission', b, -fee from o
      union all select 'hot_wallet', b, -paid from o
    ), want as (select account, asset, sum(amount) as amount from implied group by 1, 2),
    got as (select account, asset, sum(amount) as amount from ledger_entries group by 1, 2)
    select coalesce(w.account, g.account) as account, coalesce(w.asset, g.asset) as asset, coalesce(w.amount, 0) as want, coalesce(g.amount, 0) as got
    from want w full join got g on g.account = w.account and g.asset = w.asset
    where coalesce(w.amount, 0) <> coalesce(g.amount, 0)`);
  if (off.length > 0) violations.push(`ledger balances that differ from what the orders imply: ${JSON.stringify(off)}`);
  return violations;
}

/** Every account's balance per asset, as GET /admin/v1/ledger/trial-balance lists it. */
async function ledgerTrialBalance(database: TestDatabase): Promise<ConcurrencyReport['trialBalance']> {
  const rows = await sql<{ account: string; asset: string; balance: string }>`
    select account, asset, balance from (
      select account, asset, trim_scale(sum(amount))::text as balance from ledger_entries group by account, asset
      union all
      select 'TOTAL', asset, trim_scale(sum(amount))::text from ledger_entries group by asset
    ) as lines
    order by asset, account = 'TOTAL', account`.execute(database.handle.db);
  return rows.rows;
}

export function formatReport(report: ConcurrencyReport): string {
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const lines = [
    '',
    '=== concurrency check: 2 API processes + 2 workers, one PostgreSQL, one Redis ===',
    `orders requested: ${report.orders}, answered 201: ${report.created}` +
      (Object.keys(report.createFailures).length > 0 ? `, failures: ${JSON.stringify(report.createFailures)}` : ''),
    `final statuses:   ${JSON.stringify(report.statuses)}`,
    `start processes:  ${s(report.timings.startMs)}`,
    `create orders:    ${s(report.timings.createMs)} (${Math.round(report.created / (report.timings.createMs / 1000))} orders/s)`,
    `drive deposits:   ${s(report.timings.depositsMs)}`,
    `settle (worker):  ${s(report.timings.settleMs)} after the last deposit`,
    `SQL checks:       ${s(report.timings.checksMs)}`,
    `total:            ${s(report.timings.totalMs)}`,
    'trial balance (debit positive):',
    ...report.trialBalance.map((row) => `  ${row.asset.padEnd(10)} ${row.account.padEnd(20)} ${row.balance}`),
    report.violations.length === 0
      ? 'result: OK (no duplicate address or short id, no lost order, every order completed with exactly one payout and send, no duplicate transition; the books balance and agree with the orders)'
      : `result: ${report.violations.length} VIOLATION(S):\n${report.violations.map((v) => `  - ${v}`).join('\n')}`,
  ];
  return lines.join('\n');
}

function parseArgs(argv: readonly string[]): { orders: number; concurrency: number; timeoutSeconds: number } {
  const values = { orders: 10_000, concurrency: 32, timeoutSeconds: 900 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const raw = argv[i + 1];
    const name = flag === '--orders' ? 'orders' : flag === '--concurrency' ? 'concurrency' : flag === '--timeout' ? 'timeoutSeconds' : undefined;
    if (name === undefined || raw === undefined || !/^\d+$/.test(raw) || Number(raw) < 1) {
      throw new Error(`usage: npm run check:concurrency -- [--orders N] [--concurrency C] [--timeout SECONDS] (got ${flag ?? ''} ${raw ?? ''})`);
    }
    values[name] = Number(raw);
    i++;
  }
  return values;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const onSignal = (): void => {
    void killAll(1000).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const report = await runConcurrencyCheck({
    orders: args.orders,
    concurrency: args.concurrency,
    settleTimeoutMs: args.timeoutSeconds * 1000,
    log: (line) => console.log(line),
  });
  console.log(formatReport(report));
  process.exit(report.violations.length === 0 ? 0 : 1);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error('concurrency check failed to run:', error);
    void killAll(1000).finally(() => process.exit(2));
  });
}
