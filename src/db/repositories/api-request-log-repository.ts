import type { ApiRequestLogRow, NewApiRequestLogRow } from '../schema/api-request-log.js';
import type { Db } from '../schema/index.js';

/** The partner's request log (migration 0065). */

/** One multi-row insert for a batch. */
export async function insertRequestLogRows(db: Db, rows: readonly NewApiRequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('api_request_log').values([...rows]).execute();
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
