import type { Db } from '../schema/index.js';
import type { OperatorAuditRow } from '../schema/operator-audit.js';

export interface NewAuditEntry {
  at: Date;
  actor: string;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  status: number;
  ip: string | null;
}

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

export async function insertAuditEntry(db: Db, entry: NewAuditEntry): Promise<void> {
  await db
    .insertInto('operator_audit')
    .values({ ...entry, before: json(entry.before), after: json(entry.after) })
    .execute();
}

export interface AuditFilter {
  actor?: string | undefined;
  /** A prefix of the action, e.g. `PATCH /admin/v1/currencies`. */
  action?: string | undefined;
  /** A prefix of the target, e.g. `orders/<id>`. */
  target?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Entries older than this id (the previous page's `next_cursor`). */
  beforeId?: string | undefined;
  limit: number;
}

/** Newest first; prefixes matched literally (LIKE's wildcards escaped). */
export function listAuditEntries(db: Db, filter: AuditFilter): Promise<OperatorAuditRow[]> {
  const prefix = (value: string): string => `${value.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  let query = db.selectFrom('operator_audit').selectAll();
  if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
  if (filter.action !== undefined) query = query.where('action', 'like', prefix(filter.action));
  if (filter.target !== undefined) query = query.where('target', 'like', prefix(filter.target));
  if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('at', '<', filter.to);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}
