import { parseCommandLine } from './admin-args.js';
import { STORE_COMMANDS, runStoreCommand } from './admin-backup.js';
import { AdminClient } from './admin-client.js';
import { findCommand } from './admin-commands.js';
import { CliError, UsageError } from './admin-errors.js';
import { resolveTarget } from './admin-target.js';
import { USAGE } from './admin-usage.js';

/**
 * Where a run of the admin CLI reads its environment and writes its output. The binary passes
 * the process's own; tests pass their own and run many commands in one process, which is what
 * keeps the CLI's tests fast (a child process per command cost about a second each).
 */
export interface AdminIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * One run of `npm run admin -- <argv>`: a thin client over the operator API (/admin/v1) of a
 * running server. Answers the exit code: 0 done, 1 the API or the connection failed, 2 usage
 * mistake.
 */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  try {
    const line = parseCommandLine(argv);
    if (line.help || line.positionals[0] === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    // Backup and restore work on DATA_DIR's files too, with no server (or no token) needed.
    if (STORE_COMMANDS.has(line.positionals[0] ?? '')) {
      await runStoreCommand(line, io);
      return 0;
    }
    // Usage is checked before the token is looked for, so a typo never needs a running server.
    const { command, args } = findCommand(line);
    const target = await resolveTarget({ url: line.url, token: line.token }, io.env);
    const print = (text: string) => io.stdout(text.endsWith('\n') ? text : `${text}\n`);
    await command.run({ api: new AdminClient(target), json: line.json, print }, args, line.flags);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error: ${error.message}\n\n${USAGE}`);
    } else if (error instanceof CliError) {
      io.stderr(`error: ${error.message}\n`);
    } else {
      io.stderr(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    return error instanceof CliError ? error.exitCode : 1;
  }
}
