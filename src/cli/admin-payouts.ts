import { integerFlag, type Flags } from './admin-args.js';
import { asList, asRecord, printResponse, type Command } from './admin-command.js';
import { UsageError } from './admin-errors.js';
import { cell, table } from './admin-table.js';

const STATUSES = ['requested', 'awaiting_approval', 'signed', 'broadcast', 'confirmed', 'sent', 'failed'];

function listQuery(flags: Flags): string {
  const query = new URLSearchParams();
  if (flags.status !== undefined) {
    if (!STATUSES.includes(flags.status)) throw new UsageError(`--status must be one of ${STATUSES.join(' ')}, got "${flags.status}"`);
    query.set('status', flags.status);
  }
  if (flags.chain !== undefined) query.set('chain', flags.chain.toUpperCase());
  if (flags.limit !== undefined) query.set('limit', String(integerFlag('limit', flags.limit)));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** Who acts: --by, required (the admin token names nobody; docs/contract.md §11.3 records who). */
function actor(flags: Flags, command: string): string {
  if (flags.by === undefined || flags.by.trim() === '') throw new UsageError(`${command} needs --by <who> (recorded)`);
  return flags.by;
}

function brakesView(body: unknown): string {
  const paused = asList(asRecord(body).paused ?? []);
  if (paused.length === 0) return 'the signer is not paused';
  return table(
    ['CHAIN', 'BY', 'REASON', 'PAUSED_AT'],
    paused.map((p) => [p.chain === '*' ? '* (every chain)' : p.chain, p.by, p.reason, p.paused_at].map(cell)),
  );
}

/** The signer's operator side: its payouts, approvals and brakes. */
export const payoutCommands: readonly Command[] = [
  {
    words: ['payouts', 'list'],
    args: [],
    flags: ['status', 'chain', 'limit'],
    async run(context, _args, flags) {
      printResponse(context, await context.api.send('GET', `/admin/v1/payouts${listQuery(flags)}`), (body) => {
        const payouts = asList(body);
        if (payouts.length === 0) return 'no payouts match';
        return table(
          ['ID', 'ORDER_ID', 'KIND', 'CHAIN', 'AMOUNT', 'STATUS', 'REASON', 'TXID', 'CREATED_AT'],
          payouts.map((p) => [p.id, p.order_id, p.kind, p.chain, p.amount, p.status, p.status_reason ?? p.failure_reason, p.txid, p.created_at].map(cell)),
        );
      });
    },
  },
  {
    words: ['payouts', 'approve'],
    args: ['<payout-id>'],
    flags: ['by'],
    async run(context, [id = ''], flags) {
      const by = actor(flags, 'payouts approve');
      const response = await context.api.send('POST', `/admin/v1/payouts/${encodeURIComponent(id)}/approve`, { by });
      printResponse(context, response, (body) => {
        const payout = asRecord(body);
        return `payout ${cell(payout.id)} (${cell(payout.amount)} on ${cell(payout.chain)}) approved by ${cell(payout.approved_by)}: the signer pays it at its next batch`;
      });
    },
  },
  {
    words: ['signer', 'status'],
    args: [],
    flags: [],
    async run(context) {
      printResponse(context, await context.api.send('GET', '/admin/v1/signer'), brakesView);
    },
  },
  ...(['pause', 'resume'] as const).map(
    (action): Command => ({
      words: ['signer', action],
      args: [],
      flags: ['chain', 'by', 'reason'],
      async run(context, _args, flags) {
        const body = {
          by: actor(flags, `signer ${action}`),
          ...(flags.chain === undefined ? {} : { chain: flags.chain.toUpperCase() }),
          ...(flags.reason === undefined ? {} : { reason: flags.reason }),
        };
        printResponse(context, await context.api.send('POST', `/admin/v1/signer/${action}`, body), brakesView);
      },
    }),
  ),
];
