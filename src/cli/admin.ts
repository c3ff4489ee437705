import { parseCommandLine } from './admin-args.js';
import { AdminClient } from './admin-client.js';
import { findCommand } from './admin-commands.js';
import { CliError, UsageError } from './admin-errors.js';
import { resolveTarget } from './admin-target.js';
import { USAGE } from './admin-usage.js';

/**
 * `npm run admin -- <command>`: a thin client over the operator API (/admin/v1) of a running
 * server. Exit codes: 0 done, 1 the API or the connection failed, 2 usage mistake.
 */
async function main(argv: string[]): Promise<void> {
  const line = parseCommandLine(argv);
  if (line.help || line.positionals[0] === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  // Usage is checked before the token is looked for, so a typo never needs a running server.
  const { command, args } = findCommand(line);
  const target = await resolveTarget({ url: line.url, token: line.token });
  const print = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  await command.run({ api: new AdminClient(target), json: line.json, print }, args, line.flags);
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
  } else if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
  } else {
    process.stderr.write(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  // exitCode rather than exit(): stdout to a pipe may still be flushing.
  process.exitCode = error instanceof CliError ? error.exitCode : 1;
}
