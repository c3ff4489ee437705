import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle, type Engine } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * The engine this test process runs on: scripts/run-tests.ts runs the suite once per engine
 * and sets TEST_ENGINE; a lone `node --test` run defaults to PGlite.
 */
export function testEngine(): Engine {
  return process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'pglite';
}

/** The server-level database the test databases are created from. */
export function adminDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

export interface TestDatabase {
  handle: DatabaseHandle;
  /** Connection string of this fresh database (PostgreSQL only): other processes can join it. */
  url: string | undefined;
  drop(): Promise<void>;
}

/** A fresh, migrated database: in-memory PGlite, or a new PostgreSQL database dropped after. */
export async function createTestDatabase(engine: Engine = testEngine()): Promise<TestDatabase> {
  if (engine === 'pglite') {
    const handle = await openDatabase({ engine: 'pglite', dataDir: undefined });
    await migrateToLatest(handle.db);
    return { handle, url: undefined, drop: () => handle.close() };
  }
  const name = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  const handle = await openDatabase({ engine: 'postgres', url: url.toString(), poolSize: 20 });
  await migrateToLatest(handle.db);
  return {
    handle,
    url: url.toString(),
    async drop() {
      await handle.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
