import { momentFlag } from './admin-args.js';
import { asList, asRecord, printResponse, type Command } from './admin-command.js';
import { cell, table } from './admin-table.js';

/** The operator's commission report (GET /admin/v1/commissions, docs/contract.md §7.8). */
export const commissionCommands: readonly Command[] = [
  {
    words: ['commissions', 'report'],
    args: [],
    flags: ['from', 'to'],
    async run(context, _args, flags) {
      const query = new URLSearchParams();
      if (flags.from !== undefined) query.set('from', momentFlag('from', flags.from));
      if (flags.to !== undefined) query.set('to', momentFlag('to', flags.to));
      const text = query.toString();
      const response = await context.api.send('GET', `/admin/v1/commissions${text === '' ? '' : `?${text}`}`);
      printResponse(context, response, (body) => {
        const report = asRecord(body);
        const partners = asList(report.partners ?? []);
        const head = `commission owed from ${cell(report.from)} to ${cell(report.to)}`;
        if (partners.length === 0) return `${head}: none`;
        const rows = table(
          ['PARTNER_ID', 'NAME', 'ORDERS', 'VOLUME_USD', 'COMMISSION_USD', 'BY_COIN'],
          partners.map((p) => [
            cell(p.partner_id),
            cell(p.name),
            cell(p.orders),
            cell(p.volume_usd),
            cell(p.commission_usd),
            asList(p.by_coin ?? []).map((c) => `${cell(c.amount)} ${cell(c.coin)}`).join(', '),
          ]),
        );
        return `${head}\n${rows}`;
      });
    },
  },
];
