import { momentFlag } from './admin-args.js';
import { asList, asRecord, printResponse, type Command } from './admin-command.js';
import { cell, table } from './admin-table.js';

/** The ledger's reads (docs/contract.md §11.5): GET /admin/v1/ledger/trial-balance and /entries. */
export const ledgerCommands: readonly Command[] = [
  {
    words: ['ledger', 'trial-balance'],
    args: [],
    flags: ['at'],
    async run(context, _args, flags) {
      const at = flags.at === undefined ? '' : `?at=${encodeURIComponent(momentFlag('at', flags.at))}`;
      const response = await context.api.send('GET', `/admin/v1/ledger/trial-balance${at}`);
      printResponse(context, response, (body) => {
        const balance = asRecord(body);
        const accounts = asList(balance.accounts ?? []);
        if (accounts.length === 0) return 'the ledger is empty';
        const totals = asRecord(balance.totals ?? {});
        return table(
          ['ASSET', 'ACCOUNT', 'BALANCE'],
          [
            ...accounts.map((row) => [cell(row.asset), cell(row.account), cell(row.balance)]),
            ...Object.entries(totals).map(([asset, total]) => [asset, 'TOTAL', cell(total)]),
          ],
        );
      });
    },
  },
  {
    words: ['ledger', 'entries'],
    args: [],
    flags: ['from', 'to', 'csv'],
    async run(context, _args, flags) {
      const query = new URLSearchParams();
      if (flags.from !== undefined) query.set('from', momentFlag('from', flags.from));
      if (flags.to !== undefined) query.set('to', momentFlag('to', flags.to));
      const text = query.toString();
      const path = `/admin/v1/ledger/entries${text === '' ? '' : `?${text}`}`;
      if (flags.csv === true) {
        // The CSV as the API wrote it: what an accountant's spreadsheet opens.
        context.print((await context.api.send('GET', path, undefined, 'text/csv')).text);
        return;
      }
      const response = await context.api.send('GET', path);
      printResponse(context, response, (body) => {
        const report = asRecord(body);
        const lines = asList(report.entries ?? []);
        const head = `ledger lines from ${cell(report.from)} to ${cell(report.to)}`;
        if (lines.length === 0) return `${head}: none`;
        const rows = table(
          ['POSTED', 'KIND', 'ACCOUNT', 'ASSET', 'AMOUNT', 'ORDER_ID'],
          lines.map((line) => [cell(line.created_at), cell(line.kind), cell(line.account), cell(line.asset), cell(line.amount), cell(line.order_id)]),
        );
        return `${head}\n${rows}`;
      });
    },
  },
];
