import type { PGlite } from '@electric-sql/pglite';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema/index.js';

/**
 * A consistent copy of a PGlite store that is serving: a gzipped tar of its data directory, as
 * PGlite's dumpDataDir writes it and `loadDataDir` reads it back (pglite-restore.ts).
 *
 * A copy of the files of a running PGlite is not consistent: PostgreSQL keeps changed pages in
 * its buffers and writes them when it pleases, so files read one by one while requests run mix
 * moments. Here the one connection is held for the whole copy (Kysely's PGlite driver hands it
 * to one caller at a time, so no statement or transaction of the app is in progress): a
 * CHECKPOINT writes every changed page, and dumpDataDir then reads the files synchronously, in
 * one turn of the event loop, before it compresses. Every transaction committed before the
 * backup took the connection is in the copy; none after it. It costs the requests a pause of
 * the checkpoint plus the read of the directory (docs/operations.md, "Backups").
 */
export async function dumpPglite(db: Kysely<Database>, client: PGlite): Promise<Blob> {
  return db.connection().execute(async (connection) => {
    await sql`checkpoint`.execute(connection);
    return client.dumpDataDir('gzip');
  });
}
