import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandLine } from './admin-args.js';
import { AdminClient } from './admin-client.js';
import { CliError, UsageError } from './admin-errors.js';
import type { AdminIo } from './admin-run.js';
import { resolveTarget } from './admin-target.js';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock.js';
import { openDatabase, pgliteStoreDir } from '../db/database.js';
import { NotABackupError, restorePgliteStore } from '../db/pglite-restore.js';
import { SECRETS_KEY_FILE } from '../embedded-secrets.js';

/** A backup of a large store can take a while to write and send. */
const BACKUP_TIMEOUT_MS = 10 * 60_000;

const POSTGRES_BACKUP = 'the store is PostgreSQL (DATABASE_URL): back it up with pg_dump -Fc, or base backups with WAL archiving (docs/operations.md, "Backups, restore and PITR")';
const POSTGRES_RESTORE = 'the store is PostgreSQL (DATABASE_URL): restore with pg_restore, or recover a base backup (docs/operations.md, "Backups, restore and PITR")';

/** The two commands that work on the embedded store's files, not only through the operator API. */
export const STORE_COMMANDS = new Set(['backup', 'restore']);

/**
 * `backup <file>`: a consistent copy of the embedded store (PGlite in DATA_DIR). While a server
 * runs on DATA_DIR (it holds the directory's lock) the copy is taken by that server
 * (POST /admin/v1/backup), the only process that can read the store consistently while it
 * writes; with none running, the CLI opens the store itself. --url or ADMIN_API_URL sends it to
 * that server whatever DATA_DIR holds.
 *
 * `restore <file>`: loads such a backup as DATA_DIR's store; refused while any process holds
 * DATA_DIR. The store that was there is moved aside, never deleted.
 *
 * Neither holds the secrets (DATA_DIR/secrets-key or SECRETS_KEY): they are kept apart from the
 * data they open, and a restore on a new DATA_DIR needs the same ones (said when missing).
 */
export async function runStoreCommand(line: CommandLine, io: AdminIo): Promise<void> {
  const [action, file, ...extra] = line.positionals;
  if (file === undefined || extra.length > 0) throw new UsageError(`${action} takes <file>, got ${file === undefined ? 'none' : `"${line.positionals.slice(1).join(' ')}"`}`);
  const flag = Object.keys(line.flags)[0];
  if (flag !== undefined) throw new UsageError(`${action} does not take --${flag}`);
  const print = (text: string) => io.stdout(`${text}\n`);
  const dataDir = path.resolve(nonEmpty(io.env.DATA_DIR) ?? './data');
  const viaApi = nonEmpty(line.url) !== undefined || nonEmpty(io.env.ADMIN_API_URL) !== undefined;
  if (action === 'backup') await backup(path.resolve(file), dataDir, viaApi, line, io, print);
  else await restore(path.resolve(file), dataDir, io.env, print);
}

async function backup(file: string, dataDir: string, viaApi: boolean, line: CommandLine, io: AdminIo, print: (text: string) => void): Promise<void> {
  if (existsSync(file)) throw new CliError(`${file} exists: a backup never overwrites a file; name another`);
  if (!viaApi && nonEmpty(io.env.DATABASE_URL) !== undefined) throw new CliError(POSTGRES_BACKUP);
  let dump: Buffer;
  let source: string;
  if (viaApi || serving(dataDir)) {
    const target = await resolveTarget({ url: line.url, token: line.token }, io.env);
    dump = await new AdminClient(target).download('POST', '/admin/v1/backup', {}, 'application/gzip', BACKUP_TIMEOUT_MS);
    source = `the running server at ${target.url}`;
  } else {
    if (!existsSync(path.join(pgliteStoreDir(dataDir), 'PG_VERSION'))) throw new CliError(`no embedded store in ${dataDir} (DATA_DIR) to back up`);
    const database = await openDatabase({ engine: 'pglite', dataDir });
    try {
      if (database.backup === undefined) throw new Error('a PGlite store without its backup');
      dump = Buffer.from(await (await database.backup()).arrayBuffer());
    } finally {
      await database.close();
    }
    source = `${dataDir} (no server was running on it)`;
  }
  // Written aside and renamed: a file under the given name is always a whole backup.
  const partial = `${file}.partial-${process.pid}`;
  try {
    await writeFile(partial, dump, { mode: 0o600, flag: 'wx' });
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw new CliError(`cannot write ${file}: ${(error as Error).message}`);
  }
  print(`backup of ${source} written to ${file} (${megabytes(dump.length)})`);
  print('it holds the database, not the secrets key that opens its stored secrets: keep DATA_DIR/secrets-key (or SECRETS_KEY) safe apart from it');
}

/** Whether a live process holds DATA_DIR's lock (a server is running on the store). */
function serving(dataDir: string): boolean {
  if (!existsSync(dataDir)) return false;
  try {
    lockDataDir(dataDir).release();
    return false;
  } catch (error) {
    if (error instanceof DataDirLockedError) return true;
    throw error;
  }
}

async function restore(file: string, dataDir: string, env: AdminIo['env'], print: (text: string) => void): Promise<void> {
  if (nonEmpty(env.DATABASE_URL) !== undefined) throw new CliError(POSTGRES_RESTORE);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let restored;
  try {
    restored = await restorePgliteStore(dataDir, new Blob([bytes], { type: 'application/gzip' }));
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      throw new CliError(
        `${dataDir} (DATA_DIR) is in use by process ${error.holderPid}, a running server or worker: a restore never replaces a store that is serving. ` +
          'Stop it first (Ctrl-C where npm start runs, or systemctl stop exchange-api), then run restore again; ' +
          'or restore into another directory (DATA_DIR=<new dir> npm run admin -- restore <file>) and start the server there',
      );
    }
    if (error instanceof NotABackupError) throw new CliError(`cannot restore ${file}: ${error.message}`);
    throw error;
  }
  print(`restored ${file} into ${pgliteStoreDir(dataDir)}${restored.latestMigration === undefined ? '' : ` (schema at ${restored.latestMigration}; npm start applies newer migrations)`}`);
  if (restored.replacedStoreDir !== undefined) print(`the store that was there is kept in ${restored.replacedStoreDir}: remove it once the restored one serves`);
  if (nonEmpty(env.SECRETS_KEY) === undefined && !existsSync(path.join(dataDir, SECRETS_KEY_FILE))) {
    print(
      `warning: ${dataDir} has no ${SECRETS_KEY_FILE} and SECRETS_KEY is not set: before npm start, copy secrets-key (and quote-signing-key) ` +
        'from the DATA_DIR the backup was taken from, or set SECRETS_KEY to its value; a new key would leave the stored API and webhook secrets unreadable',
    );
  }
  print('at start the server moves every deposit index past the restored ones plus ADDRESS_RESYNC_GAP: orders placed after the backup keep their addresses (docs/operations.md)');
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
