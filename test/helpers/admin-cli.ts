import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runAdmin } from '../../src/cli/admin-run.js';
import { srcModule } from './compiled-src.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What a CLI run may not inherit from the test process: it would point it elsewhere. */
const TARGET_VARIABLES = ['ADMIN_API_URL', 'ADMIN_TOKEN', 'DATA_DIR', 'PORT'];

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The admin CLI run in this process (src/cli/admin-run.ts), with `env` as its whole
 * environment: the same code as the binary but for the process boundary, which
 * `spawnAdminCli` covers. Every run's output is also pushed to `outputs` when given, so a test
 * can check that none of it ever held a secret.
 */
export async function runAdminCli(args: string[], env: Record<string, string>, outputs?: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  outputs?.push(stdout, stderr);
  return { code, stdout, stderr };
}

/**
 * `node --import tsx src/cli/admin.ts <args>` as a child process (the run's compiled
 * `cli/admin.js` under `npm test`: test/helpers/compiled-src.ts), asynchronously (the app it
 * talks to runs in this process). Its environment is this process's without any ADMIN_*,
 * DATA_DIR or PORT, plus `env`. About a second per run: for what only the binary shows
 * (exit codes, which stream the output goes to).
 */
export function spawnAdminCli(args: string[], env: Record<string, string>, outputs?: string[]): Promise<CliRun> {
  const inherited = { ...process.env };
  for (const name of TARGET_VARIABLES) delete inherited[name];
  const cli = srcModule('cli/admin.ts');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...cli.loader, cli.file, ...args],
      { cwd: ROOT, env: { ...inherited, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        outputs?.push(stdout, stderr);
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
