import { integerFlag, type Flags } from './admin-args.js';
import { asList, asRecord, printResponse, type Command } from './admin-command.js';
import { cell, table } from './admin-table.js';

/** The query of `audit list`: filters as given (prefixes for action and target), a page size, a cursor. */
function auditQuery(flags: Flags): string {
  const query = new URLSearchParams();
  if (flags.actor !== undefined) query.set('actor', flags.actor);
  if (flags.action !== undefined) query.set('action', flags.action);
  if (flags.target !== undefined) query.set('target', flags.target);
  if (flags.from !== undefined) query.set('from', flags.from);
  if (flags.to !== undefined) query.set('to', flags.to);
  if (flags.cursor !== undefined) query.set('cursor', flags.cursor);
  if (flags.limit !== undefined) query.set('limit', String(integerFlag('limit', flags.limit)));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** The operator audit log (docs/contract.md §12): who did what, on what, when, newest first. */
export const auditCommands: readonly Command[] = [
  {
    words: ['audit', 'list'],
    args: [],
    flags: ['actor', 'action', 'target', 'from', 'to', 'cursor', 'limit'],
    async run(context, _args, flags) {
      printResponse(context, await context.api.send('GET', `/admin/v1/audit${auditQuery(flags)}`), (body) => {
        const page = asRecord(body);
        const entries = asList(page.entries ?? []);
        if (entries.length === 0) return 'no audit entries match';
        const rows = table(
          ['AT', 'ACTOR', 'ACTION', 'TARGET', 'STATUS', 'IP'],
          entries.map((entry) => [entry.at, entry.actor, entry.action, entry.target, entry.status, entry.ip].map(cell)),
        );
        return page.next_cursor === null || page.next_cursor === undefined ? rows : `${rows}\nmore: --cursor ${cell(page.next_cursor)}`;
      });
    },
  },
];
