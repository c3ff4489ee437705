import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, waitFor } from '../helpers/process/waits.js';
import { isExecutableFile, skipUnless } from '../helpers/requirements.js';

/**
 * A real streaming replica of the test server (TEST_DATABASE_URL): a second cluster made by
 * `pg_basebackup -R` from the running server, started with `pg_ctl` on a free port, as the
 * `postgres` user when this process is root (PostgreSQL refuses to run as root). Its data
 * directory is under os.tmpdir() and removed by `destroy()`.
 */

/** The PostgreSQL server binaries (Debian's /usr/lib/postgresql/<version>/bin), newest version first. */
function serverBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => path.join(root, version, 'bin')).find((dir) => ['pg_basebackup', 'pg_ctl'].every((tool) => isExecutableFile(path.join(dir, tool))));
}

/** `false` (run) when pg_basebackup and pg_ctl are there or under CI; otherwise the skip reason. */
export function replicaToolsSkip(): string | false {
  return skipUnless(serverBinDir() !== undefined, 'pg_basebackup and pg_ctl (no /usr/lib/postgresql/<version>/bin)', "install Debian's `postgresql` package (.ci/run has it)");
}

/** The settings a hot standby must hold at least as high as its primary's, or it refuses to start. */
const AT_LEAST_PRIMARY = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

export interface StreamingReplica {
  readonly port: number;
  /** `url` (a database on the primary) with the replica's port. */
  urlOf(url: string): string;
  /** One statement on the replica's `postgres` database (pause, resume, positions). */
  query<Row extends pg.QueryResultRow>(text: string): Promise<Row[]>;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(primaryUrl: string, timeoutMs?: number): Promise<void>;
  /** Stops replay (the replica keeps receiving WAL but shows nothing new) and waits until it has. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the cluster at once (`pg_ctl stop -m immediate`): connections drop, new ones are refused. */
  stop(): Promise<void>;
  /** Stops it if running and removes its data directory. */
  destroy(): Promise<void>;
}

export async function startStreamingReplica(primaryUrl: string): Promise<StreamingReplica> {
  const bin = serverBinDir();
  if (bin === undefined) throw new Error('the PostgreSQL server binaries are missing (/usr/lib/postgresql/<version>/bin)');
  const primary = new URL(primaryUrl);
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'epa-replica-'));
  const dataDir = path.join(dir, 'data');
  if (asPostgres) chownSync(dir, postgresIds().uid, postgresIds().gid);
  const run = (tool: string, args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const [command, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
      execFile(command, argv, { timeout: 60_000 }, (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(new Error(`${tool} failed: ${error.message}\n${stderr}`));
      });
    });
  let started = false;
  const port = await freePort();
  const stop = async () => {
    if (!started) return;
    started = false;
    await run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  };
  try {
    const settings = await primaryQuery<{ name: string; setting: string }>(primaryUrl, `select name, setting from pg_settings where name = any($1)`, [AT_LEAST_PRIMARY]);
    // -R writes standby.signal and primary_conninfo; -c fast: no wait for the next checkpoint;
    // -N: no fsync of a copy that lives for one test.
    await run('pg_basebackup', ['-h', primary.hostname, '-p', primary.port === '' ? '5432' : primary.port, '-U', decodeURIComponent(primary.username || 'postgres'), '-D', dataDir, '-R', '-X', 'stream', '-c', 'fast', '-N']);
    // Debian keeps the configuration in /etc, outside the data directory: the copy gets its own.
    const conf = [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'hot_standby = on',
      'shared_buffers = 16MB',
      'fsync = off',
      // A paused replay must not cancel the test's reads on the replica.
      'max_standby_streaming_delay = -1',
      ...settings.map((row) => `${row.name} = ${row.setting}`),
    ];
    writeFileSync(path.join(dataDir, 'postgresql.conf'), `${conf.join('\n')}\n`);
    writeFileSync(path.join(dataDir, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    writeFileSync(path.join(dataDir, 'pg_ident.conf'), '');
    if (asPostgres) for (const file of ['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf']) chownSync(path.join(dataDir, file), postgresIds().uid, postgresIds().gid);
    await run('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    started = true;
  } catch (error) {
    await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const adminUrl = new URL(primaryUrl);
  adminUrl.port = String(port);
  adminUrl.pathname = '/postgres';
  const query = <Row extends pg.QueryResultRow>(text: string) => primaryQuery<Row>(adminUrl.toString(), text);
  return {
    port,
    urlOf(url) {
      const moved = new URL(url);
      moved.hostname = '127.0.0.1';
      moved.port = String(port);
      return moved.toString();
    },
    query,
    async caughtUp(url, timeoutMs = 20_000) {
      const [row] = await primaryQuery<{ lsn: string }>(url, 'select pg_current_wal_lsn()::text as lsn');
      const target = row?.lsn ?? '0/0';
      await waitFor(
        `the replica to replay up to ${target}`,
        async () => {
          const [replayed] = await query<{ done: boolean }>(`select pg_last_wal_replay_lsn() >= '${target}'::pg_lsn as done`);
          return replayed?.done === true;
        },
        { timeoutMs },
      );
    },
    async pauseReplay() {
      await query('select pg_wal_replay_pause()');
      await waitFor('replay to pause', async () => (await query<{ state: string }>('select pg_get_wal_replay_pause_state() as state'))[0]?.state === 'paused', {
        timeoutMs: 10_000,
      });
    },
    async resumeReplay() {
      await query('select pg_wal_replay_resume()');
    },
    stop,
    async destroy() {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function primaryQuery<Row extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The `postgres` user's uid and gid, from the system's user database (not a guess). */
function postgresIds(): { uid: number; gid: number } {
  const fields = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'))
    ?.split(':');
  const uid = Number(fields?.[2]);
  const gid = Number(fields?.[3]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('no postgres user in /etc/passwd');
  return { uid, gid };
}
