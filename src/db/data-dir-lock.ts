import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `the data directory ${dataDir} is in use by another process (pid ${holderPid}); ` +
        'PGlite allows one process per directory: stop that process, or set DATA_DIR to another directory',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): void;
}

/**
 * A pid file lock on the PGlite directory: two processes writing one PGlite directory corrupt it.
 * A lock whose process is gone (kill -9, power loss) is taken over at once, so a crashed
 * server restarts without manual cleanup.
 */
const heldHere = new Set<string>();

export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, 'pglite.lock');
  // A pid equal to ours in the file means a previous life of this pid (containers restart as
  // pid 1), so only this set can tell that this very process already holds the lock.
  if (heldHere.has(file)) throw new DataDirLockedError(dataDir, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      heldHere.add(file);
      return {
        release() {
          heldHere.delete(file);
          try {
            if (readPid(file) === process.pid) unlinkSync(file);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readPid(file);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new DataDirLockedError(dataDir, holder);
    }
    // Stale (dead holder or unreadable): remove it and try again.
    try {
      unlinkSync(file);
    } catch {
      // Someone else removed it first; retry the exclusive create.
    }
  }
  throw new DataDirLockedError(dataDir, readPid(file) ?? -1);
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
