/**
 * A pgbouncer in transaction mode in front of the test PostgreSQL, for the pgbouncer pass of
 * `npm test` (scripts/run-tests.ts): every database of the server behind it (the wildcard
 * entry), trust authentication for the admin URL's user and every role the server has (as the
 * test server trusts them), on a free
 * port of 127.0.0.1. As pgbouncer refuses to run as root, under root it runs as `postgres`.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface Pgbouncer {
  /** The admin URL with pgbouncer's host and port (no database: the caller names one). */
  url: string;
  stop(): void;
}

/** How many server connections pgbouncer opens per database and user: the pool size under test. */
const POOL_SIZE = 20;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startPgbouncer(directUrl: string, workDir: string): Promise<Pgbouncer> {
  const direct = new URL(directUrl);
  const user = decodeURIComponent(direct.username || 'postgres');
  const port = await freePort();
  // Its own directory, readable by the user pgbouncer runs as.
  const dir = mkdtempSync(path.join(workDir === '' ? tmpdir() : workDir, 'pgbouncer-'));
  chmodSync(dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'users.txt');
  writeFileSync(users, `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      // A role the tests make (the signer's login, test/signer/signer-role.test.ts) is in no
      // auth_file: pgbouncer looks it up in PostgreSQL as the admin user, and trusts it then.
      `auth_user = ${user}`,
      // The admin console (database `pgbouncer`): a test database put back for the next test
      // has its server connections closed through it first (test/helpers/postgres-reuse.ts).
      `admin_users = ${user}`,
      'pool_mode = transaction',
      // The least recently used server connection next, not the most (LIFO, the default): the
      // next transaction of a client lands on another server connection whenever the pool has
      // several, so state a statement leaves on its connection (a session lock, a SET) shows.
      'server_round_robin = 1',
      'max_client_conn = 2000',
      `default_pool_size = ${POOL_SIZE}`,
      // node-postgres sends none of these, but psql and others do: ignored rather than refused.
      'ignore_startup_parameters = extra_float_digits,options,application_name',
      // The test databases are dropped WITH (FORCE) under it: a server connection that went away
      // is replaced without a word in the output.
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', ini] : [ini];
  const child = spawn('pgbouncer', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output = `${output}${chunk.toString('utf8')}`.slice(-4000);
  });
  const stop = (): void => {
    if (child.exitCode === null) child.kill('SIGINT');
    rmSync(dir, { recursive: true, force: true });
  };
  const url = new URL(directUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  // Up when a query through it answers (a few tries: it binds within milliseconds).
  for (let attempt = 0; attempt < 50; attempt++) {
    if (child.exitCode !== null) break;
    const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return { url: url.toString(), stop };
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  stop();
  throw new Error(`pgbouncer did not answer on port ${port}: ${output.trim()}`);
}
