import type { Db } from '../schema/index.js';
import { findPoolAlert } from './address-pool-alerts-repository.js';
import { countPoolAddresses } from './deposit-addresses-repository.js';
import { listSignerPauses } from './payout-operations-repository.js';
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

type Params = Readonly<Record<string, string>>;

/**
 * What an operator route changes, read before and after it runs, by the object the route names
 * (auditedObjectOf in routes/admin/operator-audit.ts): the columns an operator acts on, never a
 * secret. Routes of other objects log what was asked, or what a create answered.
 */
const TARGET_READERS = {
  currencies: (db: Db, { id }: Params) => db.selectFrom('currencies').selectAll().where('id', '=', id ?? '').executeTakeFirst(),
  partners: (db: Db, { id }: Params) =>
    db.selectFrom('partners').select(['id', 'name', 'status', 'markup_bps', 'rate_limit_per_minute', 'max_open_orders', 'cors_origins', 'updated_at']).where('id', '=', id ?? '').executeTakeFirst(),
  orders: (db: Db, { id }: Params) =>
    db
      .selectFrom('orders')
      .select(['id', 'short_id', 'status', 'status_reason', 'refund_address', 'refund_address_tag', 'refund_hold_until', 'attempts', 'next_attempt_at', 'version', 'updated_at'])
      .where('id', '=', id ?? '')
      .executeTakeFirst(),
  payouts: (db: Db, { id }: Params) =>
    db.selectFrom('payouts').select(['id', 'order_id', 'status', 'status_reason', 'approved_by', 'approved_at', 'amount', 'chain']).where('id', '=', id ?? '').executeTakeFirst(),
  keys: (db: Db, { key_id }: Params) =>
    db.selectFrom('api_keys').select(['key_id', 'partner_id', 'sandbox', 'scope', 'created_at', 'revoked_at']).where('key_id', '=', key_id ?? '').executeTakeFirst(),
  prices: (db: Db, { coin }: Params) => db.selectFrom('static_prices').selectAll().where('symbol', '=', (coin ?? '').toUpperCase()).executeTakeFirst(),
  webhooks: (db: Db, { id }: Params) =>
    db.selectFrom('webhook_endpoints').select(['id', 'partner_id', 'url', 'enabled', 'disabled_reason', 'mode', 'updated_at']).where('id', '=', id ?? '').executeTakeFirst(),
  deliveries: (db: Db, { id }: Params) =>
    db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'endpoint_id', 'status', 'attempts', 'next_attempt_at', 'updated_at']).where('id', '=', id ?? '').executeTakeFirst(),
  /** A partner's cabinet person, with how many sessions are live (never a hash or a secret). */
  people: (db: Db, { id, person_id }: Params) =>
    db
      .selectFrom('cabinet_users as u')
      .select((eb) => [
        'u.id',
        'u.partner_id',
        'u.email',
        'u.role',
        'u.totp_enabled_at',
        eb.selectFrom('cabinet_sessions as s').select((inner) => inner.fn.countAll<string | number>().as('count')).whereRef('s.user_id', '=', 'u.id').as('sessions'),
      ])
      .where('u.id', '=', person_id ?? '')
      .where('u.partner_id', '=', id ?? '')
      .executeTakeFirst(),
  /** A chain's pool: its counts and the low-pool threshold an operator set (null: the default). */
  pools: async (db: Db, { chain }: Params) => {
    const name = (chain ?? '').toUpperCase();
    return { chain: name, ...(await countPoolAddresses(db, name)), low_at: (await findPoolAlert(db, name)) ?? null };
  },
  /** A console person's security key: whose, its name and times (never the key itself). */
  'security-keys': (db: Db, { id }: Params) =>
    db.selectFrom('operator_security_keys').select(['id', 'person_id', 'name', 'created_at', 'last_used_at']).where('id', '=', id ?? '').executeTakeFirst(),
  /** The signer brakes that are on: the state a pause or resume changes (it names no parameter). */
  signer: (db: Db) => listSignerPauses(db),
} as const;

export type AuditedObject = keyof typeof TARGET_READERS;

export function isAuditedObject(segment: string): segment is AuditedObject {
  return Object.hasOwn(TARGET_READERS, segment);
}

/** The audited object a route names by its parameters, as it is now; undefined when there is none. */
export function readAuditTarget(db: Db, object: AuditedObject, params: Params): Promise<unknown> {
  return TARGET_READERS[object](db, params);
}
