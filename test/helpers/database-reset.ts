/**
 * Puts a used test database back as the migrated template left it, on either engine: what
 * test/helpers/pglite-reuse.ts and test/helpers/postgres-reuse.ts lend test after test instead
 * of making a database anew (docs/adr/0064-test-databases-put-back.md).
 *
 * What "as the template left it" means, and how each part is put back (test/db/database-reuse.test.ts
 * compares a used-and-returned database with a fresh one on all of it):
 * - the session: an open transaction rolled back, then DISCARD ALL (settings, prepared
 *   statements, temporary tables, advisory locks, LISTEN). On PostgreSQL the reset runs on a
 *   connection of its own and every other session of the database is ended first;
 * - the schema and roles: a fingerprint of the catalogs (relations, columns, triggers and their
 *   enabled state, functions, constraints, the database's settings, and on PGlite the roles:
 *   a PostgreSQL server's roles belong to the whole server, which other tests share). Any change
 *   (a test that adds a trigger or a sequence, runs a migration down) and the database is not
 *   lent again;
 * - rows: every table that has rows and had none, or whose file grew (a rolled-back insert leaves
 *   its page behind in an empty table), is emptied (DELETE with triggers and foreign
 *   keys off: the ledger's tables refuse a TRUNCATE, and TRUNCATE of one table must cascade to
 *   every table that references it, which costs most of what a load does), then VACUUM FULL so
 *   its files are as short as a fresh one's; a table the migrations filled (chains, currencies,
 *   the migrations' own) whose content changed is emptied and filled again from its first rows;
 * - sequences: each set back to its value and is_called (a failed insert draws from one too);
 * - planner statistics: VACUUM and ANALYZE change pg_class's page and row estimates and
 *   pg_statistic, which plans read: both put back, so an EXPLAIN reads as on a fresh database.
 *   (PostgreSQL's autovacuum may analyze a busy table of any database, fresh or not, at any time:
 *   on that engine the estimates are as good as a fresh database's, not guaranteed identical.)
 */

import { sleep } from './process/waits.js';

/** One connection to the database being put back: the few calls the reset needs of PGlite or node-postgres. */
export interface SqlSession {
  query<Row>(sql: string): Promise<Row[]>;
  /** Statements without parameters, several to a string. */
  exec(sql: string): Promise<void>;
  inTransaction(): boolean;
}

/** What a fresh database holds, read before it is first lent; what a returned one is put back to. */
export interface Baseline {
  fingerprint: string;
  /** The tables without rows in a fresh database (quoted identifiers), with their heap's size in bytes. */
  empty: Array<{ table: string; bytes: string }>;
  /** The tables the migrations filled: their content's digest, heap size and the statement that fills them again. */
  filled: Array<{ table: string; digest: string; bytes: string; refill: string }>;
  /** `select setval(...), ...` of every sequence, as it was. */
  sequences: string;
  /** `update pg_class ...` back to the fresh estimates, of the rows that differ. */
  estimates: string;
  /** Whether the fingerprint covers the roles (a PGlite instance's own; not a shared server's). */
  roles: boolean;
}

/** The catalogs a test could change that a row reset would not undo, as one digest. */
function fingerprintQuery(roles: boolean): string {
  return `select md5(string_agg(x, ',' order by x)) as digest from (
  select concat_ws(' ', 'class', c.oid, c.relname, c.relkind, c.relnamespace) as x from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_(toast_)?temp_'
  union all select concat_ws(' ', 'column', a.attrelid, a.attnum, a.attname, a.atttypid, a.attnotnull, a.attisdropped, a.atthasdef)
    from pg_attribute a join pg_class c on c.oid = a.attrelid where c.relnamespace = 'public'::regnamespace
  union all select concat_ws(' ', 'default', d.oid, d.adrelid, d.adnum) from pg_attrdef d
  union all select concat_ws(' ', 'trigger', t.oid, t.tgname, t.tgenabled) from pg_trigger t
  union all select concat_ws(' ', 'function', p.oid, p.proname, md5(p.prosrc)) from pg_proc p where p.pronamespace = 'public'::regnamespace
  union all select concat_ws(' ', 'constraint', k.oid, k.conname, k.convalidated) from pg_constraint k
  ${roles ? `union all select concat_ws(' ', 'role', r.oid, r.rolname, r.rolsuper, r.rolcanlogin) from pg_authid r` : ''}
  union all select concat_ws(' ', 'namespace', s.oid, s.nspname) from pg_namespace s where s.nspname !~ '^pg_(toast_)?temp_'
  union all select concat_ws(' ', 'setting', d.setdatabase, d.setrole, array_to_string(d.setconfig, ';')) from pg_db_role_setting d
    where d.setdatabase in (0, (select oid from pg_database where datname = current_database()))
) catalog`;
}

/** A table's content in a stable order, as one digest. */
const digestOf = (table: string): string => `(select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) from ${table} t)`;
/** The relations whose estimates VACUUM and ANALYZE change: the tables, their indexes and their TOAST. */
const OWN_RELATIONS = `select c.oid, c.relpages, c.reltuples, c.relallvisible from pg_class c where c.relnamespace in ('public'::regnamespace, 'pg_toast'::regnamespace)`;

const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;
/** A table's heap on disk in bytes: it grows with rows written and not kept, not only with rows there. */
const bytesOf = (table: string): string => `pg_relation_size(${literal(table)}::regclass)::text`;
const sizeDiffers = (table: string, bytes: string): string => `${bytesOf(table)} <> ${literal(bytes)}`;

/** The tables whose condition holds, of `checks` ([table, SQL condition]), in one query. */
async function tablesWhere(session: SqlSession, checks: ReadonlyArray<readonly [string, string]>): Promise<string[]> {
  if (checks.length === 0) return [];
  const cases = checks.map(([table, condition]) => `case when ${condition} then ${literal(table)} end`);
  const [{ tables = [] } = {}] = await session.query<{ tables: string[] }>(`select array_remove(array[${cases.join(', ')}]::text[], null) as tables`);
  return tables;
}

export async function readBaseline(session: SqlSession, options: { roles: boolean }): Promise<Baseline> {
  const [{ digest: fingerprint = '' } = {}] = await session.query<{ digest: string }>(fingerprintQuery(options.roles));
  const tables = await session.query<{ name: string; columns: string }>(
    `select quote_ident(c.relname) as name,
            string_agg(quote_ident(a.attname), ', ' order by a.attnum) filter (where a.attgenerated = '') as columns
       from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
      group by c.relname order by c.relname`,
  );
  const empty: Baseline['empty'] = [];
  const filled: Baseline['filled'] = [];
  for (const { name, columns } of tables) {
    const [{ rows = '[]', digest = '', bytes = '0' } = {}] = await session.query<{ rows: string | null; digest: string; bytes: string }>(
      `select (select json_agg(t)::text from ${name} t) as rows, ${digestOf(name)} as digest, ${bytesOf(name)} as bytes`,
    );
    if (rows === null || rows === '[]') empty.push({ table: name, bytes });
    else filled.push({ table: name, digest, bytes, refill: `insert into ${name} (${columns}) overriding system value select ${columns} from json_populate_recordset(null::${name}, ${literal(rows)})` });
  }
  const sequences = await session.query<{ name: string }>(`select quote_ident(sequencename) as name from pg_sequences where schemaname = 'public'`);
  const settings: string[] = [];
  for (const { name } of sequences) {
    const [{ last_value: value = '1', is_called: called = false } = {}] = await session.query<{ last_value: string; is_called: boolean }>(`select last_value::text, is_called from ${name}`);
    settings.push(`setval(${literal(name)}, ${value}, ${String(called)})`);
  }
  const relations = await session.query<{ oid: number; relpages: number; reltuples: number; relallvisible: number }>(OWN_RELATIONS);
  const values = relations.map((r) => `(${r.oid}, ${r.relpages}, ${r.reltuples}::real, ${r.relallvisible})`).join(', ');
  return {
    fingerprint,
    empty,
    filled,
    sequences: settings.length === 0 ? '' : `select ${settings.join(', ')}`,
    estimates:
      relations.length === 0
        ? ''
        : `update pg_class c set relpages = b.relpages, reltuples = b.reltuples, relallvisible = b.relallvisible
             from (values ${values}) b(oid, relpages, reltuples, relallvisible)
            where c.oid = b.oid::oid and (c.relpages, c.reltuples, c.relallvisible) is distinct from (b.relpages, b.reltuples, b.relallvisible)`,
    roles: options.roles,
  };
}

/**
 * Puts the database `session` reaches back as `baseline` describes; false when it cannot be
 * (the catalogs changed), and the caller closes or drops it instead.
 */
export async function putBack(session: SqlSession, baseline: Baseline): Promise<boolean> {
  if (session.inTransaction()) await session.exec('rollback');
  // Not in the same string as the rest: PostgreSQL runs a string of several statements as one
  // transaction, and DISCARD ALL refuses to run in one.
  await session.exec('discard all');
  const [{ digest } = { digest: '' }] = await session.query<{ digest: string }>(fingerprintQuery(baseline.roles));
  if (digest !== baseline.fingerprint) return false;
  const changed = await tablesWhere(session, [
    // An empty table's heap is longer than it was as soon as a row was written to it, kept or not.
    ...baseline.empty.map(({ table, bytes }) => [table, sizeDiffers(table, bytes)] as const),
    ...baseline.filled.map(({ table, digest: was, bytes }) => [table, `${digestOf(table)} <> ${literal(was)} or ${sizeDiffers(table, bytes)}`] as const),
  ]);
  const statements = ['set session_replication_role = replica'];
  for (const table of changed) {
    statements.push(`delete from ${table}`);
    const refill = baseline.filled.find((filled) => filled.table === table)?.refill;
    if (refill !== undefined) statements.push(refill);
  }
  statements.push('set session_replication_role = default');
  if (baseline.sequences !== '') statements.push(baseline.sequences);
  await session.exec(statements.join(';\n'));
  if (changed.length > 0 && !(await vacuumToBaseline(session, baseline, changed))) return false;
  // After the VACUUM, which wrote its own estimates.
  const after = [`delete from pg_statistic where starelid in (select oid from pg_class where relnamespace = 'public'::regnamespace)`];
  if (baseline.estimates !== '') after.push(baseline.estimates);
  await session.exec(after.join(';\n'));
  return true;
}

/** VACUUM FULLs left before a database that would not shrink back is dropped instead of lent. */
const VACUUM_ROUNDS = 4;

/**
 * VACUUM FULL of the emptied and refilled tables until each heap is as long as the baseline's.
 * A VACUUM keeps the rows the reset deleted while any transaction older than the delete may
 * still see them: on a shared PostgreSQL server another test's DROP DATABASE (its transaction
 * holds back every database's horizon) left an emptied table a page long. The next round,
 * moments later, finds that transaction gone. False when the rounds run out.
 */
async function vacuumToBaseline(session: SqlSession, baseline: Baseline, changed: readonly string[]): Promise<boolean> {
  const expected = new Map([...baseline.empty, ...baseline.filled].map(({ table, bytes }) => [table, bytes]));
  let tables = [...changed];
  for (let round = 1; round <= VACUUM_ROUNDS; round++) {
    await session.exec(`vacuum full ${tables.join(', ')}`);
    const longer = await tablesWhere(session, tables.map((table) => [table, sizeDiffers(table, expected.get(table) ?? '0')] as const));
    if (longer.length === 0) return true;
    tables = longer;
    await sleep(50 * round);
  }
  return false;
}
