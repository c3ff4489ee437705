/**
 * Run as a child process by database.ts: creates a new PGlite data directory (initdb) and exits.
 * PGlite runs initdb in a WASM instance of its own, about 600 MB at its peak; in a short-lived
 * child that memory is never part of the server process (docs/durability.md).
 */
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: pglite-initdb <data directory>');
const db = await PGlite.create({ dataDir });
await db.close();
