import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { inject as injectInto } from 'light-my-request';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app-types.js';
import type { Clock } from '../../src/clock.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { operatorHandler } from '../../src/operator-listener.js';
import type { Runtime } from '../../src/runtime.js';
import { loadConfig, type Config } from '../../src/config.js';
import { SecretTracker } from '../logs/secret-tracker.js';
import { ResponseRecorder } from './response-recorder.js';
import { createTestDatabase, databaseEnv, type TestDatabase } from './test-database.js';

export interface TestApp {
  app: App;
  /** Services behind the app; `runtime.worker.tick()` runs one lifecycle pass. */
  runtime: Runtime;
  config: Config;
  db: TestDatabase;
  adminToken: string;
  /** Every log line the app wrote, for assertions (and for the no-secrets-in-logs check). */
  logs: string[];
  /**
   * Every credential the app handed out or received through `app.inject` (admin token, issued
   * keys and their secrets, Authorization / X-API-Key / X-Signature values). `close()` fails
   * when any of them appears in `logs`.
   */
  secrets: SecretTracker;
  /**
   * Every response the app sent. `close()` fails when one does not match the OpenAPI document
   * the app serves (status, content type, body schema): see response-recorder.ts.
   */
  responses: ResponseRecorder;
  /**
   * A request to the operator surface (operator API, /metrics): with ADMIN_PORT it goes through
   * the operator listener's handler, as a request on that port would; else it is `app.inject`.
   */
  operator(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** An operator API call with the admin token (through `operator`). */
  admin(method: InjectOptions['method'], url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  /** A new active partner and one key for it. */
  createPartner(fields?: Record<string, unknown>): Promise<{ id: string; apiKey: string; keyId: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  /** Extra environment for loadConfig (e.g. SHORT_ID_PREFIX). */
  env?: Record<string, string>;
  /** Runs before app.ready(): tests add routes here (e.g. one that throws). */
  configure?: (app: App) => void;
  /**
   * The database the app gets, made from the fresh one (e.g. a Kysely with a query-counting
   * plugin, or the handle with a read replica of that database beside it).
   */
  wrapDatabase?: (handle: DatabaseHandle, db: TestDatabase) => DatabaseHandle | Promise<DatabaseHandle>;
  /**
   * Configured as production is: DATABASE_URL names the fresh PostgreSQL database (PostgreSQL
   * pass only; it throws on PGlite). Without it the app's config is the embedded default's
   * whatever the engine, so the simulator pays every chain (docs/contract.md §11.1).
   */
  production?: boolean;
}

/** A whole app on a fresh database, called through app.inject (the real HTTP stack, no socket). */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-test-'));
  const adminToken = randomBytes(32).toString('base64url');
  const secretsKey = randomBytes(32).toString('hex');
  const db = await createTestDatabase();
  if (options.production === true && db.url === undefined) {
    await db.drop();
    throw new Error('buildTestApp({ production: true }) needs the PostgreSQL engine');
  }
  let config: Config;
  try {
    config = loadConfig({
      DATA_DIR: dataDir,
      SECRETS_KEY: secretsKey,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'info',
      ...(options.production === true ? databaseEnv(db) : {}),
      ...options.env,
    });
  } catch (error) {
    await db.drop();
    throw error;
  }
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString('utf8'));
      callback();
    },
  });
  const database = (await options.wrapDatabase?.(db.handle, db)) ?? db.handle;
  const app = await buildApp({ config, database, clock: options.clock, logDestination });
  const responses = new ResponseRecorder();
  responses.install(app, options.configure);
  await app.ready();
  const secrets = new SecretTracker();
  secrets.add(adminToken, 'admin token');
  if (options.env?.SECRETS_KEY === undefined) secrets.add(secretsKey, 'SECRETS_KEY');
  secrets.wrapInject(app);

  const operator: TestApp['operator'] = (injected) =>
    config.operator.listener === undefined ? app.inject(injected) : injectInto(operatorHandler(app), injected);
  const admin: TestApp['admin'] = (method, url, payload) =>
    operator({
      method,
      url,
      headers: { authorization: `Bearer ${adminToken}` },
      ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
    });

  return {
    app,
    runtime: app.runtime,
    config,
    db,
    adminToken,
    logs,
    secrets,
    responses,
    operator,
    admin,
    async createPartner(fields = {}) {
      const partner = await admin('POST', '/admin/v1/partners', { name: 'Test Partner', ...fields });
      if (partner.statusCode !== 201) throw new Error(`partner create failed: ${partner.body}`);
      const { id } = partner.json<{ id: string }>();
      const key = await admin('POST', `/admin/v1/partners/${id}/keys`);
      if (key.statusCode !== 201) throw new Error(`key create failed: ${key.body}`);
      const { api_key, key_id } = key.json<{ api_key: string; key_id: string }>();
      return { id, apiKey: api_key, keyId: key_id };
    },
    async close() {
      // The documents as served, from an address no test uses (its own rate-limit budget).
      const openapi = await app.inject({ method: 'GET', url: '/api/v1/openapi.json', remoteAddress: '192.0.2.1' });
      const operatorOpenapi = await operator({
        method: 'GET',
        url: '/admin/v1/openapi.json',
        headers: { authorization: `Bearer ${adminToken}` },
        remoteAddress: '192.0.2.1',
      });
      await app.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
      // After the cleanup, so a leak fails the file without leaking a database as well.
      secrets.assertNotIn(logs);
      if (openapi.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${openapi.statusCode}`);
      if (operatorOpenapi.statusCode !== 200) throw new Error(`GET /admin/v1/openapi.json answered ${operatorOpenapi.statusCode}`);
      responses.assertMatch({ partner: openapi.json(), operator: operatorOpenapi.json() });
    },
  };
}

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current = new Date('2026-01-01T00:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(date: Date): void {
    this.current = new Date(date);
  }
}
