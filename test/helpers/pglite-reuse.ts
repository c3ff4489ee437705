import type { PGlite } from '@electric-sql/pglite';

/**
 * In-memory PGlite databases lent test after test within one test process, put back as the
 * migrated template left them instead of loading the template again.
 *
 * Why: a new in-memory database from the run's template costs about 0.3 s of CPU on a quiet
 * machine here (0.6 s under the suite's load: the WebAssembly runtime's start, unpacking the
 * dump into its file system, PostgreSQL's single-user start), and the PGlite pass makes one per
 * test app, a few hundred a run. Putting a used one back costs about 20 ms: what a test changed
 * is found and undone, anything it cannot undo exactly retires the instance.
 *
 * What "as the template left it" means, and how each part is put back (test/db/pglite-reuse.test.ts
 * compares a used-and-returned database with a fresh one on all of it):
 * - the session: an open transaction rolled back, then DISCARD ALL (settings, prepared
 *   statements, temporary tables, advisory locks, LISTEN);
 * - the schema and roles: a fingerprint of the catalogs (relations, columns, triggers and their
 *   enabled state, functions, constraints, roles). Any change (a test that adds a trigger or a
 *   sequence, runs a migration down) and the instance is closed, never lent again;
 * - rows: every table that has rows and had none is emptied (DELETE with triggers and foreign
 *   keys off: the ledger's tables refuse a TRUNCATE, and TRUNCATE of one table must cascade to
 *   every table that references it, which costs most of what a load does), then VACUUMed so its
 *   file is as short as a fresh one's; a table the migrations filled (chains, currencies, the
 *   migrations' own) whose content changed is emptied and filled again from its first rows;
 * - sequences: each set back to its value and is_called (a failed insert draws from one too);
 * - planner statistics: VACUUM and ANALYZE change pg_class's page and row estimates and
 *   pg_statistic, which plans read: both put back, so an EXPLAIN reads as on a fresh database.
 */

/** What a fresh instance holds, read before it is first lent; what a returned one is put back to. */
interface Baseline {
  fingerprint: string;
  /** The tables without rows in a fresh database (quoted identifiers). */
  empty: string[];
  /** The tables the migrations filled: their content's digest and the statement that fills them again. */
  filled: Array<{ table: string; digest: string; refill: string }>;
  /** `select setval(...), ...` of every sequence, as it was. */
  sequences: string;
  /** `update pg_class ...` back to the fresh estimates, of the rows that differ. */
  estimates: string;
}

/** The catalogs a test could change that a row reset would not undo, as one digest. */
const FINGERPRINT = `select md5(string_agg(x, ',' order by x)) as digest from (
  select concat_ws(' ', 'class', c.oid, c.relname, c.relkind, c.relnamespace) as x from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_(toast_)?temp_'
  union all select concat_ws(' ', 'column', a.attrelid, a.attnum, a.attname, a.atttypid, a.attnotnull, a.attisdropped, a.atthasdef)
    from pg_attribute a join pg_class c on c.oid = a.attrelid where c.relnamespace = 'public'::regnamespace
  union all select concat_ws(' ', 'default', d.oid, d.adrelid, d.adnum) from pg_attrdef d
  union all select concat_ws(' ', 'trigger', t.oid, t.tgname, t.tgenabled) from pg_trigger t
  union all select concat_ws(' ', 'function', p.oid, p.proname, md5(p.prosrc)) from pg_proc p where p.pronamespace = 'public'::regnamespace
  union all select concat_ws(' ', 'constraint', k.oid, k.conname, k.convalidated) from pg_constraint k
  union all select concat_ws(' ', 'role', r.oid, r.rolname, r.rolsuper, r.rolcanlogin) from pg_authid r
  union all select concat_ws(' ', 'namespace', s.oid, s.nspname) from pg_namespace s where s.nspname !~ '^pg_(toast_)?temp_'
  union all select concat_ws(' ', 'setting', d.setdatabase, d.setrole, array_to_string(d.setconfig, ';')) from pg_db_role_setting d
) catalog`;

/** A table's content in a stable order, as one digest. */
const digestOf = (table: string): string => `(select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) from ${table} t)`;
/** The relations whose estimates VACUUM and ANALYZE change: the tables, their indexes and their TOAST. */
const OWN_RELATIONS = `select c.oid, c.relpages, c.reltuples, c.relallvisible from pg_class c where c.relnamespace in ('public'::regnamespace, 'pg_toast'::regnamespace)`;

const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

async function readBaseline(client: PGlite): Promise<Baseline> {
  const [{ digest: fingerprint = '' } = {}] = (await client.query<{ digest: string }>(FINGERPRINT)).rows;
  const tables = (
    await client.query<{ name: string; columns: string }>(
      `select quote_ident(c.relname) as name,
              string_agg(quote_ident(a.attname), ', ' order by a.attnum) filter (where a.attgenerated = '') as columns
         from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
        group by c.relname order by c.relname`,
    )
  ).rows;
  const empty: string[] = [];
  const filled: Baseline['filled'] = [];
  for (const { name, columns } of tables) {
    const [{ rows = '[]', digest = '' } = {}] = (
      await client.query<{ rows: string | null; digest: string }>(`select (select json_agg(t)::text from ${name} t) as rows, ${digestOf(name)} as digest`)
    ).rows;
    if (rows === null || rows === '[]') empty.push(name);
    else filled.push({ table: name, digest, refill: `insert into ${name} (${columns}) overriding system value select ${columns} from json_populate_recordset(null::${name}, ${literal(rows)})` });
  }
  const sequences = (await client.query<{ name: string }>(`select quote_ident(sequencename) as name from pg_sequences where schemaname = 'public'`)).rows;
  const settings: string[] = [];
  for (const { name } of sequences) {
    const [{ last_value: value = '1', is_called: called = false } = {}] = (await client.query<{ last_value: string; is_called: boolean }>(`select last_value::text, is_called from ${name}`)).rows;
    settings.push(`setval(${literal(name)}, ${value}, ${String(called)})`);
  }
  const relations = (await client.query<{ oid: number; relpages: number; reltuples: number; relallvisible: number }>(OWN_RELATIONS)).rows;
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
  };
}

/**
 * Puts `client` back as `baseline` describes; false when it cannot be (the catalogs changed),
 * and the caller closes it instead.
 */
async function putBack(client: PGlite, baseline: Baseline): Promise<boolean> {
  if (client.isInTransaction()) await client.exec('rollback');
  // Not in the same string as the rest: PostgreSQL runs a string of several statements as one
  // transaction, and DISCARD ALL refuses to run in one.
  await client.exec('discard all');
  const [{ digest } = { digest: '' }] = (await client.query<{ digest: string }>(FINGERPRINT)).rows;
  if (digest !== baseline.fingerprint) return false;
  const probes = [
    ...baseline.empty.map((table) => `case when exists (select from ${table}) then ${literal(table)} end`),
    ...baseline.filled.map(({ table, digest: was }) => `case when ${digestOf(table)} <> ${literal(was)} then ${literal(table)} end`),
  ];
  const [{ changed = [] } = {}] = (await client.query<{ changed: string[] }>(`select array_remove(array[${probes.join(', ')}]::text[], null) as changed`)).rows;
  const statements = ['set session_replication_role = replica'];
  for (const table of changed) {
    statements.push(`delete from ${table}`);
    const refill = baseline.filled.find((filled) => filled.table === table)?.refill;
    if (refill !== undefined) statements.push(refill);
  }
  statements.push('set session_replication_role = default');
  if (baseline.sequences !== '') statements.push(baseline.sequences);
  await client.exec(statements.join(';\n'));
  if (changed.length > 0) await client.exec(`vacuum full ${changed.join(", ")}`);
  // After the VACUUM, which wrote its own estimates.
  const after = [`delete from pg_statistic where starelid in (select oid from pg_class where relnamespace = 'public'::regnamespace)`];
  if (baseline.estimates !== '') after.push(baseline.estimates);
  await client.exec(after.join(';\n'));
  return true;
}

/** How many idle instances a process keeps: tests that hold two databases at once (a backup and its restore) reuse both. */
const KEPT = 2;

export interface ReuseCounts {
  /** Instances made new (the template loaded). */
  opened: number;
  /** Lends of an instance put back. */
  reused: number;
  /** Instances closed instead of put back: a changed catalog, or a reset that failed. */
  retired: number;
}

/**
 * The instances of this process. `lend` answers a PGlite for one test database: a returned one
 * when there is one, else `open()`'s. What it answers stands for the instance until its `close()`
 * (the test database's drop), which puts the instance back; any use after that throws, so a
 * test's leftover work never reaches the next test's database.
 */
export class PgliteReuse {
  private readonly idle: PGlite[] = [];
  private readonly baselines = new WeakMap<PGlite, Baseline>();
  readonly counts: ReuseCounts = { opened: 0, reused: 0, retired: 0 };
  private readonly enabled: boolean;

  /** `enabled: false`: every returned instance is closed, every lend opens a new one. */
  constructor(options: { enabled: boolean } = { enabled: true }) {
    this.enabled = options.enabled;
  }

  /** `open`: a new instance, migrated. */
  async lend(open: () => Promise<PGlite>): Promise<PGlite> {
    let client = this.idle.pop();
    if (client === undefined) {
      client = await open();
      if (this.enabled) this.baselines.set(client, await readBaseline(client));
      this.counts.opened += 1;
    } else {
      this.counts.reused += 1;
    }
    return this.standIn(client);
  }

  /** Closes the idle instances (a process's end does as much; tests of this class call it). */
  async closeIdle(): Promise<void> {
    for (const client of this.idle.splice(0)) await client.close();
  }

  private async giveBack(client: PGlite): Promise<void> {
    const baseline = this.baselines.get(client);
    let reset = false;
    if (this.enabled && baseline !== undefined && !client.closed && this.idle.length < KEPT) {
      try {
        reset = await putBack(client, baseline);
      } catch (error) {
        process.stderr.write(`test database: could not put a PGlite back, closing it instead (${(error as Error).message})\n`);
      }
    }
    if (reset) {
      this.idle.push(client);
      return;
    }
    this.counts.retired += 1;
    if (!client.closed) await client.close();
  }

  private standIn(client: PGlite): PGlite {
    let returned: Promise<void> | undefined;
    const refuse = (): never => {
      throw new Error('this test database was dropped: its PGlite is put back for the next test');
    };
    // Calls are refused once the database is dropped; reading a field is not (a promise's
    // resolution reads `then` of what it resolves with).
    return new Proxy(client, {
      get: (target, property) => {
        if (property === 'close') return () => (returned ??= this.giveBack(target));
        if (property === 'closed') return returned !== undefined || target.closed;
        // PGlite keeps its state in private fields: its methods and getters run on the instance itself.
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (returned !== undefined) refuse();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
}
