import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import type { PartnerRow } from '../../db/schema/partners.js';
import type { PartnerOrderRow } from '../../views/partner-order-view.js';
import { statusAt } from '../../domain/order-status.js';
import { ORDER_PAGE_MAX, type OrderList, type OrderListQuery } from '../../services/order-list.js';
import { amount } from './format.js';
import type { Filters } from './orders.js';
import { sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

/** The columns of the export, in order: what a partner's accounting reads. */
const COLUMNS: ReadonlyArray<[string, (order: PartnerOrderRow, now: Date) => string | null]> = [
  ['short_id', (order) => order.short_id],
  ['id', (order) => order.id],
  ['created_at', (order) => order.created_at.toISOString()],
  ['status', (order, now) => statusAt(order.status, order.expires_at, now)],
  ['status_reason', (order) => order.status_reason],
  ['coin_from', (order) => order.coin_from],
  ['network_from', (order) => order.network_from],
  ['amount_from_expected', (order) => amount(order.amount_from_expected)],
  ['amount_from_received', (order) => (order.amount_from_received === null ? null : amount(order.amount_from_received))],
  ['coin_to', (order) => order.coin_to],
  ['network_to', (order) => order.network_to],
  ['amount_to_expected', (order) => amount(order.amount_to_expected)],
  ['amount_to_final', (order) => (order.amount_to_final === null ? null : amount(order.amount_to_final))],
  ['amount_refunded', (order) => (order.amount_refunded === null ? null : amount(order.amount_refunded))],
  ['rate_type', (order) => order.rate_type],
  ['deposit_address', (order) => order.deposit_address],
  ['recipient_address', (order) => order.recipient_address],
  ['refund_address', (order) => order.refund_address],
  ['deposit_txid', (order) => order.deposit_txid],
  ['payout_txid', (order) => order.payout_txid],
  ['refund_txid', (order) => order.refund_txid],
];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; a text that a
 * spreadsheet would run as a formula (=, +, -, @, tab, CR first) is written after a ' (OWASP's
 * CSV injection advice). Amounts are exact decimals, never negative, so never touched.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

interface ExportParts {
  list: OrderList;
  sessions: CabinetSessions;
  partners: Services['partners'];
  clock: Services['clock'];
  filtersOf: (request: FastifyRequest, session: CabinetSession, partner: PartnerRow) => Promise<Filters>;
  listQuery: (filters: Filters) => OrderListQuery;
}

/**
 * GET /cabinet/orders.csv: every order the orders page's filters match (its mode, search, status,
 * coins, dates), of any number, as CSV: read a page of ORDER_PAGE_MAX at a time through the
 * list's keyset pages and written as it is read, so memory stays one page whatever the size.
 */
export function registerOrdersExport(app: App, parts: ExportParts): void {
  const { list, sessions, partners } = parts;
  app.get('/cabinet/orders.csv', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const partner = await partners.find(session.partnerId);
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    const filters = await parts.filtersOf(request, session, partner);
    const impossible = filters.from !== undefined && filters.to !== undefined && filters.from > filters.to;
    const query = parts.listQuery(filters);
    async function* rows(): AsyncGenerator<string> {
      yield `${COLUMNS.map(([name]) => name).join(',')}\r\n`;
      if (impossible) return;
      let cursor: string | undefined;
      do {
        const page = await list.list({ partner: partner!, mode: undefined }, { ...query, limit: ORDER_PAGE_MAX, cursor });
        const now = parts.clock.now();
        yield page.orders.map((order) => `${COLUMNS.map(([, read]) => csvField(read(order, now))).join(',')}\r\n`).join('');
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
    }
    const name = `orders-${session.mode === 'sandbox' ? 'sandbox' : 'live'}.csv`;
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).send(Readable.from(rows()));
  });
}
