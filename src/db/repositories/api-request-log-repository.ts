import { sql } from 'kysely';
import type { ApiRequestLogRow } from '../schema/api-request-log.js';
import type { Db } from '../schema/index.js';

/** The partner's request log (migration 0065). */

/** A batch of rows as one array per column, in the order they were recorded. */
export interface RequestLogColumns {
  partnerIds: string[];
  keyIds: string[];
  sandbox: boolean[];
  methods: string[];
  paths: string[];
  statuses: number[];
  durationsMs: number[];
  errorCodes: (string | null)[];
  /** ISO 8601 times (toISOString). */
  ats: string[];
}

/**
 * One insert for a batch, each column one array parameter (unnest): nine parameters whatever
 * the batch's size. A multi-row VALUES insert of 500 rows was 4,500 parameters, each its own
 * node in Kysely's query tree and its own value for node-postgres to prepare: several µs per
 * logged request, on the same core as the requests (bench/README.md, "the per-request plumbing"). The rows keep
 * their order (`with ordinality`), so their ids follow the order they were answered in.
 */
export async function insertRequestLogColumns(db: Db, columns: RequestLogColumns): Promise<void> {
  if (columns.partnerIds.length === 0) return;
  await sql`
    insert into api_request_log (partner_id, key_id, sandbox, method, path, status, duration_ms, error_code, at)
    select partner_id, key_id, sandbox, method, path, status, duration_ms, error_code, at
    from unnest(
      ${columns.partnerIds}::uuid[], ${columns.keyIds}::text[], ${columns.sandbox}::boolean[], ${columns.methods}::text[],
      ${columns.paths}::text[], ${columns.statuses}::smallint[], ${columns.durationsMs}::integer[], ${columns.errorCodes}::text[],
      ${columns.ats}::timestamptz[]
    ) with ordinality as row (partner_id, key_id, sandbox, method, path, status, duration_ms, error_code, at, n)
    order by n`.execute(db);
}

export async function deleteRequestLogBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('api_request_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface RequestLogFilter {
  partnerId: string;
  sandbox: boolean;
  keyId?: string | undefined;
  /** `2xx`, `4xx`, `5xx`, or an exact status. */
  status?: string | undefined;
  method?: string | undefined;
  /** Paths starting with this. */
  pathPrefix?: string | undefined;
  since: Date;
  limit: number;
  /** Keyset: rows before this (at, id). */
  before?: { at: Date; id: string } | undefined;
}

export async function listRequestLog(db: Db, filter: RequestLogFilter): Promise<ApiRequestLogRow[]> {
  let query = db
    .selectFrom('api_request_log')
    .selectAll()
    .where('partner_id', '=', filter.partnerId)
    .where('sandbox', '=', filter.sandbox)
    .where('at', '>=', filter.since);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.pathPrefix !== undefined) query = query.where('path', 'like', `${filter.pathPrefix.replace(/[\\%_]/g, '\\$&')}%`);
  if (filter.status !== undefined) {
    const klass = /^([1-5])xx$/.exec(filter.status);
    if (klass !== null) {
      const low = Number(klass[1]) * 100;
      query = query.where('status', '>=', low).where('status', '<', low + 100);
    } else {
      query = query.where('status', '=', Number(filter.status));
    }
  }
  if (filter.before !== undefined) {
    const { at, id } = filter.before;
    query = query.where((eb) => eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', id)])]));
  }
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}
