import { CompiledQuery } from 'kysely';

/**
 * Named prepared statements for the hot queries: PostgreSQL parses and plans such a
 * statement once per connection instead of once per call, and the driver sends only its name
 * and parameters after the first use. A repository compiles the query once and registers its
 * text here under a name; the PostgreSQL client (database.ts) looks each query's text up and
 * sends a registered one by name. PGlite has no named statements: it runs the text as before.
 */
const NAMES = new Map<string, string>();

/**
 * `sql` as a query run as the prepared statement `name` on PostgreSQL. The text must be a
 * constant (the same string on every call): its parameters come with each call.
 */
export function preparedQuery<Row>(name: string, sql: string): CompiledQuery<Row> {
  const known = NAMES.get(sql);
  if (known !== undefined && known !== name) throw new Error(`statement already prepared as ${known}: ${sql}`);
  if ([...NAMES.values()].includes(name) && known === undefined) throw new Error(`two statements named ${name}`);
  NAMES.set(sql, name);
  return CompiledQuery.raw(sql, []);
}

/** The name a query text was prepared under, if any (a string's hash is cached: one lookup). */
export function preparedName(sql: string): string | undefined {
  return NAMES.get(sql);
}
