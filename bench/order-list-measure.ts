/**
 * What the `orders-list-pg` measure of bench/run.ts reads: 100,000 orders of 10 partners, the
 * bench partner one of them (bench/order-list-seed.ts), and four first pages of
 * GET /partner/orders (docs/contract.md §7.2) drawn in turn: unfiltered, by status, by coin_from, and a
 * search by recipient address. The ceiling, pgbench, runs the very selects the repository builds
 * for those four requests (partnerOrderListWireQuery, page size + 1 as the service asks), with the
 * parameters written into the SQL.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.js';
import { partnerOrderListWireQuery, type PartnerOrderFilter } from '../src/db/repositories/partner-order-list-repository.js';
import { colonFree } from './capture-sql.js';
import { SEED_PARTNERS, seedOrders } from './order-list-seed.js';

/** The page size the partner asks for (the API's default). */
const PAGE = 20;

export interface OrderListLoad {
  /** Path and query of each request, drawn in turn. */
  paths: string[];
  /** One pgbench script per request: the same select, parameters filled in. */
  scripts: string[];
}

export async function prepareOrderList(databaseUrl: string, partnerId: string): Promise<OrderListLoad> {
  const handle = await openDatabase({ engine: 'postgres', url: databaseUrl, poolSize: 2 });
  try {
    const others = await handle.db
      .insertInto('partners')
      .values(Array.from({ length: SEED_PARTNERS - 1 }, (_, i) => ({ name: `bench list partner ${i + 2}` })))
      .returning('id')
      .execute();
    const {
      sample: [order],
    } = await seedOrders(handle.db, [partnerId, ...others.map((partner) => partner.id)]);
    const cases: Array<[string, Omit<PartnerOrderFilter, 'sandbox'>]> = [
      [`limit=${PAGE}`, {}],
      [`limit=${PAGE}&status=completed`, { statuses: ['completed'] }],
      [`limit=${PAGE}&coin_from=BTC`, { coinFrom: 'BTC' }],
      [`limit=${PAGE}&search=${encodeURIComponent(order.recipient_address)}`, { search: order.recipient_address }],
    ];
    const dir = path.join(tmpdir(), `bench-order-list-${process.pid}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const now = new Date();
    const scripts = await Promise.all(
      cases.map(async ([, filter], i) => {
        const compiled = partnerOrderListWireQuery(handle.db, partnerId, { sandbox: false, ...filter }, { limit: PAGE + 1, now }).compile();
        const file = path.join(dir, `list-${i}.sql`);
        // The wire select's to_char formats hold colons, which pgbench would read as variables.
        await writeFile(file, `${colonFree(withLiterals(compiled.sql, compiled.parameters))};\n`);
        return file;
      }),
    );
    return { paths: cases.map(([query]) => `/api/v1/partner/orders?${query}`), scripts };
  } finally {
    await handle.close();
  }
}

/** `$n` placeholders replaced by SQL literals (pgbench scripts take no positional parameters). */
function withLiterals(sql: string, parameters: readonly unknown[]): string {
  return sql.replace(/\$(\d+)\b/g, (_, n: string) => literal(parameters[Number(n) - 1]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return `'${value.toISOString()}'::timestamptz`;
  if (Array.isArray(value)) return `array[${value.map(literal).join(', ')}]`;
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  throw new Error(`no SQL literal for a parameter of type ${typeof value}`);
}
