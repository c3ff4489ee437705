import type { CommandLine, FlagName } from './admin-args.js';
import type { Command } from './admin-command.js';
import { auditCommands } from './admin-audit.js';
import { commissionCommands } from './admin-commissions.js';
import { currencyCommands } from './admin-currencies.js';
import { healthCommands } from './admin-health.js';
import { UsageError } from './admin-errors.js';
import { keyCommands } from './admin-keys.js';
import { ledgerCommands } from './admin-ledger.js';
import { operatorCommands } from './admin-operators.js';
import { orderCommands } from './admin-orders.js';
import { partnerCommands } from './admin-partners.js';
import { payoutCommands } from './admin-payouts.js';
import { peopleCommands } from './admin-people.js';
import { poolCommands } from './admin-pools.js';
import { priceCommands } from './admin-prices.js';
import { simulatorCommands } from './admin-simulator.js';
import { webhookCommands } from './admin-webhooks.js';

const COMMANDS: readonly Command[] = [
  ...partnerCommands,
  ...peopleCommands,
  ...keyCommands,
  ...currencyCommands,
  ...priceCommands,
  ...orderCommands,
  ...commissionCommands,
  ...ledgerCommands,
  ...simulatorCommands,
  ...poolCommands,
  ...webhookCommands,
  ...payoutCommands,
  ...auditCommands,
  ...healthCommands,
  ...operatorCommands,
];

/** The command the words name, checked against its arguments and options before any request. */
export function findCommand(line: CommandLine): { command: Command; args: string[] } {
  const [group, action, ...rest] = line.positionals;
  const twoWords = COMMANDS.find((c) => c.words.length === 2 && c.words[0] === group && c.words[1] === action);
  const command = twoWords ?? COMMANDS.find((c) => c.words.length === 1 && c.words[0] === group);
  const args = twoWords === undefined ? line.positionals.slice(1) : rest;
  if (command === undefined) {
    const given = [group, action].filter((word) => word !== undefined).join(' ');
    throw new UsageError(given === '' ? 'no command given' : `unknown command "${given}"`);
  }
  const name = command.words.join(' ');
  if (args.length !== command.args.length) {
    const expected = command.args.length === 0 ? 'no arguments' : command.args.join(' ');
    throw new UsageError(`${name} takes ${expected}, got ${args.length === 0 ? 'none' : `"${args.join(' ')}"`}`);
  }
  for (const flag of Object.keys(line.flags) as FlagName[]) {
    if (!command.flags.includes(flag)) throw new UsageError(`${name} does not take --${flag}`);
  }
  return { command, args };
}
