import { ORDER_STATUSES } from '../domain/order-status.js';
import { integerFlag, momentFlag, type Flags } from './admin-args.js';
import type { ApiResponse } from './admin-client.js';
import { asList, asRecord, printResponse, text, type ApiRecord, type Command, type CommandContext } from './admin-command.js';
import { UsageError } from './admin-errors.js';
import { cell, fields, table } from './admin-table.js';

const STATUSES: readonly string[] = ORDER_STATUSES;
const ORDER_FIELDS = [
  'id',
  'short_id',
  'status',
  'stored_status',
  'status_reason',
  'partner_id',
  'partner_name',
  'created_at',
  'expires_at',
  'updated_at',
  'amount_from_expected',
  'amount_from_received',
  'amount_to_expected',
  'amount_to_final',
  'rate_type',
  'rate_quoted',
  'quote_id',
  'external_id',
  'metadata',
  'end_user_ip',
  'deposit_address',
  'deposit_address_tag',
  'deposit_txid',
  'deposit_confirmations',
  'deposit_confirmations_required',
  'recipient_address',
  'recipient_address_tag',
  'refund_address',
  'refund_address_tag',
  'actions',
  'refund_hold_until',
  'continued_at',
  'partner_fee',
  'payout_txid',
  'refund_txid',
  'attempts',
  'next_attempt_at',
  'version',
];

const orderPath = (id: string) => `/admin/v1/orders/${encodeURIComponent(id)}`;
const pair = (o: ApiRecord) => `${cell(o.coin_from)}:${cell(o.network_from)}->${cell(o.coin_to)}:${cell(o.network_to)}`;

function listQuery(flags: Flags, identifier?: string): string {
  const query = new URLSearchParams();
  if (identifier !== undefined) query.set('q', identifier);
  if (flags.status !== undefined) {
    if (!STATUSES.includes(flags.status)) throw new UsageError(`--status must be one of ${STATUSES.join(' ')}, got "${flags.status}"`);
    query.set('status', flags.status);
  }
  if (flags.partner !== undefined) query.set('partner_id', flags.partner);
  // Neither switch: live and sandbox orders together, as GET /admin/v1/orders lists them.
  if (flags.sandbox === true && flags.live === true) throw new UsageError('--sandbox and --live exclude each other: give one, or neither for both');
  if (flags.sandbox === true) query.set('sandbox', 'true');
  if (flags.live === true) query.set('sandbox', 'false');
  if (flags.from !== undefined) query.set('created_from', momentFlag('from', flags.from));
  if (flags.to !== undefined) query.set('created_to', momentFlag('to', flags.to));
  if (flags.cursor !== undefined) query.set('cursor', flags.cursor);
  if (flags.limit !== undefined) query.set('limit', String(integerFlag('limit', flags.limit)));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

const LIST_FLAGS = ['status', 'partner', 'sandbox', 'live', 'from', 'to', 'cursor', 'limit'] as const;

/** A page of orders as a table, each with its partner's name; the next page's cursor below it. */
function printOrders(context: CommandContext, response: ApiResponse): void {
  printResponse(context, response, (body) => {
    const orders = asList(body);
    if (orders.length === 0) return 'no orders match';
    const rows = table(
      ['ID', 'SHORT_ID', 'STATUS', 'PAIR', 'AMOUNT_FROM', 'AMOUNT_TO', 'PARTNER', 'CREATED_AT', 'SANDBOX'],
      orders.map((o) => [
        cell(o.id),
        cell(o.short_id),
        cell(o.status),
        pair(o),
        ...[o.amount_from_expected, o.amount_to_expected].map(cell),
        `${cell(o.partner_name)} (${cell(o.partner_id)})`,
        ...[o.created_at, o.sandbox].map(cell),
      ]),
    );
    return response.nextCursor === undefined ? rows : `${rows}\nmore: --cursor ${response.nextCursor}`;
  });
}

/** One order with its event trail and payouts, as GET /admin/v1/orders/{id} answers. */
function showOrder(body: unknown): string {
  const order = asRecord(body);
  const events = asList(order.events ?? []);
  const payouts = asList(order.payouts ?? []);
  const lines = [`order ${pair(order)}`, fields(order, ORDER_FIELDS), '', 'Events'];
  lines.push(
    events.length === 0
      ? '  none'
      : table(
          ['AT', 'FROM', 'TO', 'REASON', 'DATA'],
          events.map((e) => [e.created_at, e.from_status, e.to_status, e.reason, e.data].map(cell)),
        ),
  );
  lines.push('', 'Payouts');
  lines.push(
    payouts.length === 0
      ? '  none'
      : table(
          ['KIND', 'PAYER', 'STATUS', 'REASON', 'AMOUNT', 'ADDRESS', 'TAG', 'TXID', 'CREATED_AT', 'SENT_AT'],
          payouts.map((p) => [p.kind, p.payer, p.status, p.status_reason ?? p.failure_reason, p.amount, p.address, p.tag, p.txid, p.created_at, p.sent_at].map(cell)),
        ),
  );
  return lines.join('\n');
}

export const orderCommands: readonly Command[] = [
  {
    words: ['orders', 'list'],
    args: [],
    flags: LIST_FLAGS,
    async run(context, _args, flags) {
      printOrders(context, await context.api.send('GET', `/admin/v1/orders${listQuery(flags)}`));
    },
  },
  {
    // What a ticket quotes, across every partner: id, short id, address, txid or external id.
    words: ['orders', 'search'],
    args: ['<identifier>'],
    flags: LIST_FLAGS,
    async run(context, [identifier = ''], flags) {
      if (identifier.trim() === '') throw new UsageError('orders search needs an identifier: an order id, short id, address, txid or external id');
      printOrders(context, await context.api.send('GET', `/admin/v1/orders${listQuery(flags, identifier)}`));
    },
  },
  {
    words: ['orders', 'show'],
    args: ['<order-id>'],
    flags: [],
    async run(context, [id = '']) {
      printResponse(context, await context.api.send('GET', orderPath(id)), showOrder);
    },
  },
  {
    words: ['orders', 'fail'],
    args: ['<order-id>'],
    flags: ['reason'],
    async run(context, [id = ''], flags) {
      if (flags.reason === undefined || flags.reason.trim() === '') throw new UsageError('orders fail needs --reason "<why>"');
      const response = await context.api.send('POST', `${orderPath(id)}/fail`, { reason: flags.reason });
      printResponse(context, response, (body) => {
        const order = asRecord(body);
        return `order ${text(order, 'id')} (${cell(order.short_id)}) is now ${cell(order.status)}: ${flags.reason ?? ''}`;
      });
    },
  },
  // The order actions of docs/contract.md §7.5, as the operator (POST/PUT /admin/v1/orders/{id}/…),
  // and resume: an order stuck in exchanging or sending, its step run again now.
  ...(['cancel', 'continue', 'refund', 'resume'] as const).map(
    (action): Command => ({
      words: ['orders', action],
      args: ['<order-id>'],
      flags: [],
      async run(context, [id = '']) {
        printResponse(context, await context.api.send('POST', `${orderPath(id)}/${action}`), actionDone);
      },
    }),
  ),
  {
    words: ['orders', 'refund-address'],
    args: ['<order-id>'],
    flags: ['address', 'tag'],
    async run(context, [id = ''], flags) {
      if (flags.address === undefined || flags.address.trim() === '') throw new UsageError('orders refund-address needs --address <address>');
      const body = { refund_address: flags.address, ...(flags.tag === undefined ? {} : { refund_address_tag: flags.tag }) };
      printResponse(context, await context.api.send('PUT', `${orderPath(id)}/refund-address`, body), actionDone);
    },
  },
];

/** What an action left: the order's status and what may be done next. */
function actionDone(body: unknown): string {
  const order = asRecord(body);
  const actions = Array.isArray(order.actions) && order.actions.length > 0 ? order.actions.map(cell).join(', ') : 'none';
  return `order ${text(order, 'id')} (${cell(order.short_id)}) is now ${cell(order.status)}; actions: ${actions}`;
}
