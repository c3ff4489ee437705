/**
 * The partner OpenAPI document exactly as the server serves it (GET /api/v1/openapi.json): the
 * whole app built on an in-memory PGlite, asked through `app.inject`. What the lint
 * (scripts/lint-openapi.ts) checks and what the SDK's types are generated from
 * (scripts/sdk-generate.ts): both read the document a partner downloads, not the
 * route schemas, since the served one is what @fastify/swagger and the surface split made of them.
 *
 * `node --import tsx scripts/openapi-document.ts [file]` writes it to the file, or to stdout.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';

export async function servedPartnerDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-openapi-'));
  const database = await openDatabase({ engine: 'pglite', dataDir: undefined });
  try {
    await migrateToLatest(database.db);
    const config = loadConfig({
      DATA_DIR: dataDir,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: randomBytes(32).toString('base64url'),
      WORKER: 'off',
      LOG_LEVEL: 'silent',
    });
    // No log line is wanted from a document dump (the level is silent anyway).
    const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const app = await buildApp({ config, database, logDestination: quiet });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.statusCode}: ${res.body}`);
      return res.json<Record<string, unknown>>();
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = `${JSON.stringify(await servedPartnerDocument(), null, 2)}\n`;
  const target = process.argv[2];
  if (target === undefined) process.stdout.write(text);
  else writeFileSync(target, text);
}
