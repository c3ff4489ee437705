import { momentFlag } from './admin-args.js';
import { UsageError } from './admin-errors.js';
import { asList, asRecord, printResponse, type Command } from './admin-command.js';
import { cell, table } from './admin-table.js';

/** The operator's commission report (GET /admin/v1/commissions, docs/contract.md §7.8) and payouts (POST /admin/v1/commissions/payouts, §11.6). */
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
  {
    words: ['commissions', 'pay'],
    args: [],
    flags: ['period'],
    async run(context, _args, flags) {
      if (flags.period === undefined) throw new UsageError('commissions pay needs --period YYYY-MM (a month that is over, UTC)');
      const response = await context.api.send('POST', '/admin/v1/commissions/payouts', { period: flags.period });
      printResponse(context, response, (body) => {
        const run = asRecord(body);
        const payouts = asList(run.payouts ?? []);
        const skipped = asList(run.skipped ?? []);
        const made = payouts.filter((p) => p.created === true).length;
        const head = `commission for ${cell(run.period)}: ${made} payout(s) made, ${payouts.length - made} made before, ${skipped.length} skipped`;
        const parts = [head];
        if (payouts.length > 0) {
          parts.push(
            table(
              ['PARTNER_ID', 'ASSET', 'AMOUNT', 'ADDRESS', 'STATUS', 'TXID', 'PAYOUT_ID'],
              payouts.map((p) => [cell(p.partner_id), cell(p.asset), cell(p.amount), cell(p.address), `${cell(p.status)}${p.created === true ? '' : ' (earlier run)'}`, cell(p.txid), cell(p.payout_id)]),
            ),
          );
        }
        if (skipped.length > 0) {
          parts.push('skipped:', table(['PARTNER_ID', 'ASSET', 'AMOUNT', 'REASON'], skipped.map((s) => [cell(s.partner_id), cell(s.asset), cell(s.amount), cell(s.reason)])));
        }
        return parts.join('\n');
      });
    },
  },
];
