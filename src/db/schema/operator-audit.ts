import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from './currencies.js';

/** JSON written as text (both engines parse jsonb on read). */
type Json = ColumnType<unknown, string | null, never>;

/** One operator action (migration 0061): append-only. */
export interface OperatorAuditTable {
  id: Generated<string>;
  at: Timestamp;
  /** Who: `token:ADMIN_TOKEN` (the bootstrap token), later a person or a person's token. */
  actor: string;
  /** What: the method and the route, e.g. `PATCH /admin/v1/currencies/:id`. */
  action: string;
  /** On what: the route's parameters, e.g. `currencies/<id>`; null for a route without any. */
  target: string | null;
  before: Json;
  after: Json;
  /** The answer's HTTP status: a refused action is an action too. */
  status: number;
  ip: string | null;
}

export type OperatorAuditRow = Selectable<OperatorAuditTable>;
