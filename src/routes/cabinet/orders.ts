import type { App, Services } from '../../app-types.js';
import { isOrderStatus, ORDER_STATUSES, statusAt, type OrderStatus } from '../../domain/order-status.js';
import { ApiError } from '../../errors.js';
import { OrderList, type OrderListQuery } from '../../services/order-list.js';
import { html } from './html.js';
import { page, time } from './layout.js';
import { formatAmount, orderBadge, statusWords, type BadgeFacts } from './format.js';

import { sessionOf, type CabinetSession, type CabinetSessions } from './session.js';
import type { FastifyRequest } from 'fastify';
import type { PartnerRow } from '../../db/schema/partners.js';
import { registerOrdersExport } from './orders-export.js';

const PAGE_SIZE = 50;
/** A short id's six characters, typed without the prefix. */
const SHORT_ID_BODY = /^[A-Za-z0-9]{6}$/;

/** The status as a badge whose words and colour tell held, waiting for an address and refund in progress apart. */
function badgeOf(order: BadgeFacts, now: Date) {
  const badge = orderBadge(order, now);
  return html`<span class="badge ${badge.tone}">${badge.label}</span>`;
}
const DAY_MS = 86_400_000;
const TICKER = /^[A-Za-z0-9]{1,12}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface Filters {
  status: OrderStatus | undefined;
  coinFrom: string | undefined;
  coinTo: string | undefined;
  from: string | undefined;
  to: string | undefined;
  search: string | undefined;
  sandbox: boolean;
  cursor: string | undefined;
  /** A date field given that is no calendar day (2024-13-45): said on the page, 400, and left out. */
  badDates: string[];
}

/** Whether `text` (YYYY-MM-DD) is a real day of the proleptic Gregorian calendar, year 1 or later. */
function isCalendarDay(text: string): boolean {
  if (!DATE.test(text)) return false;
  const at = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === text && at.getUTCFullYear() >= 1;
}

/** The form's fields as typed; anything malformed is left out (the form shows what applied). */
function readFilters(query: Record<string, unknown>): Filters {
  const text = (name: string, pattern?: RegExp): string | undefined => {
    const value = query[name];
    if (typeof value !== 'string' || value.trim() === '') return undefined;
    const trimmed = value.trim();
    return pattern === undefined || pattern.test(trimmed) ? trimmed : undefined;
  };
  const status = text('status');
  const badDates: string[] = [];
  const day = (name: string, words: string): string | undefined => {
    const value = text(name);
    if (value === undefined || isCalendarDay(value)) return value;
    // Date() rolls 2024-02-30 over into March and reads 2024-13-45 as no time at all (which
    // failed the query: a 500); the form says so instead.
    badDates.push(words);
    return undefined;
  };
  return {
    status: status !== undefined && isOrderStatus(status) ? status : undefined,
    coinFrom: text('coin_from', TICKER)?.toUpperCase(),
    coinTo: text('coin_to', TICKER)?.toUpperCase(),
    from: day('from', 'Created from'),
    to: day('to', 'Created to'),
    search: text('search')?.slice(0, 128),
    sandbox: false,
    cursor: text('cursor', /^[A-Za-z0-9_.-]{1,200}$/),
    badDates,
  };
}

function listQuery(filters: Filters): OrderListQuery {
  const day = (text: string | undefined) => (text === undefined ? undefined : new Date(`${text}T00:00:00.000Z`));
  const to = day(filters.to);
  return {
    statuses: filters.status === undefined ? undefined : [filters.status],
    coinFrom: filters.coinFrom,
    coinTo: filters.coinTo,
    // The form's days are whole UTC days: from its first millisecond, to the end of the last.
    createdAfter: day(filters.from) === undefined ? undefined : new Date(day(filters.from)!.getTime() - 1),
    createdBefore: to === undefined ? undefined : new Date(to.getTime() + DAY_MS),
    search: filters.search,
    sandbox: filters.sandbox,
    limit: PAGE_SIZE,
    cursor: filters.cursor,
  };
}

/** The filters as a query string (for the next page's link, or the export without a cursor). */
function filterQuery(filters: Filters, cursor: string | undefined): string {
  const params = new URLSearchParams();
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined) params.set(name, value);
  };
  set('status', filters.status);
  set('coin_from', filters.coinFrom);
  set('coin_to', filters.coinTo);
  set('from', filters.from);
  set('to', filters.to);
  set('search', filters.search);
  if (filters.sandbox) params.set('mode', 'test');
  if (cursor !== undefined) params.set('cursor', cursor);
  return params.toString();
}

/**
 * GET /cabinet/orders: the list of GET /partner/orders (docs/contract.md §7.2) for people: the same
 * service (OrderList: newest first, keyset pages, exact-match search, signed cursors bound to
 * the partner), with filters in a form that works without JavaScript. Live and sandbox orders
 * are listed apart, as in the API.
 */
export function registerCabinetOrders(app: App, { database, clock, config, catalog, reads, partners }: Services, sessions: CabinetSessions): void {
  if (config.secretsKey === undefined) throw new Error('SECRETS_KEY must be resolved before the routes are registered');
  const list = new OrderList(database.db, clock, config.secretsKey, reads);
  /** A coin's decimals (the most of its networks), for amounts as people read them. */
  const decimalsOf = (coin: string) => Math.max(0, ...catalog.all().filter((row) => row.coin === coin).map((row) => row.decimals));
  const money = (text: string | null, coin: string) => formatAmount(text, decimalsOf(coin));

  /**
   * The filters of a request, as the list reads them: the cabinet's mode (docs/contract.md §9.1), and a
   * short id typed without its prefix (`K3X9QZ` for `EX-K3X9QZ`) searched with it first.
   */
  const filtersOf = async (request: FastifyRequest, session: CabinetSession, partner: PartnerRow) => {
    const filters = { ...readFilters(request.query as Record<string, unknown>), sandbox: session.mode === 'sandbox' };
    if (filters.search !== undefined && SHORT_ID_BODY.test(filters.search)) {
      const prefixed = { ...filters, search: `${config.shortIdPrefix}-${filters.search.toUpperCase()}` };
      const found = await list.list({ partner, mode: undefined }, { ...listQuery(prefixed), limit: 1, cursor: undefined });
      if (found.orders.length > 0) return prefixed;
    }
    return filters;
  };

  app.get('/cabinet/orders', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const partner = await partners.find(session.partnerId);
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    const filters = await filtersOf(request, session, partner);
    let problem = filters.badDates.length === 0 ? undefined : `${filters.badDates.join(' and ')}: this is not a date (YYYY-MM-DD, e.g. 2024-05-31); it was left out.`;
    // An impossible range says so, rather than an empty list that looks like no orders.
    const impossible = filters.from !== undefined && filters.to !== undefined && filters.from > filters.to;
    if (impossible) problem = `“Created from” (${filters.from}) is after “Created to” (${filters.to}): no order can match. Swap the dates.`;
    let result: Awaited<ReturnType<OrderList['list']>> = { orders: [], nextCursor: null };
    try {
      if (!impossible) result = await list.list({ partner, mode: undefined }, listQuery(filters));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problem = 'That page link is no longer valid: the list starts again from the newest order.';
      result = await list.list({ partner, mode: undefined }, listQuery({ ...filters, cursor: undefined }));
    }
    const totals = impossible ? [] : await list.totals({ partner, mode: undefined }, listQuery({ ...filters, cursor: undefined }));
    const now = clock.now();
    const selected = (value: string | undefined, option: string) => (value === option ? html` selected` : '');
    const body = html`<form method="get" action="/cabinet/orders" class="filters" role="search">
  <label>Search <input type="search" name="search" value="${filters.search ?? ''}" placeholder="id, address or txid" aria-describedby="search-hint"></label>
  <label>Status <select name="status"><option value="">any</option>${ORDER_STATUSES.map((status) => html`<option value="${status}"${selected(filters.status, status)}>${statusWords(status)}</option>`)}</select></label>
  <label>From coin <input type="text" name="coin_from" value="${filters.coinFrom ?? ''}" maxlength="12" autocapitalize="characters"></label>
  <label>To coin <input type="text" name="coin_to" value="${filters.coinTo ?? ''}" maxlength="12" autocapitalize="characters"></label>
  <label>Created from <input type="date" name="from" value="${filters.from ?? ''}"></label>
  <label>Created to <input type="date" name="to" value="${filters.to ?? ''}"></label>
${filters.sandbox ? html`<input type="hidden" name="mode" value="test">` : ''}
  <button type="submit">Show orders</button>
</form>
<p class="hint" id="search-hint">Search finds an exact order id, short id (with or without its ${config.shortIdPrefix}- prefix), deposit or recipient address, transaction id or your external id. Dates are UTC.</p>
${problem === undefined ? '' : html`<p role="alert">${problem}</p>`}
${result.orders.length === 0
  ? html`<p>No ${filters.sandbox ? 'sandbox' : 'live'} orders match.</p>`
  : html`<div class="table-wrap"><table class="responsive">
<caption class="hint">${filters.sandbox ? 'Sandbox' : 'Live'} orders, newest first</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Networks</th><th scope="col" class="num">Send</th><th scope="col" class="num">Receive</th></tr></thead>
<tbody>${result.orders.map(
  (order) => html`<tr>
<td data-label="Order"><a href="/cabinet/orders/${order.id}" class="mono">${order.short_id}</a></td>
<td data-label="Created">${time(order.created_at)}</td>
<td data-label="Status">${badgeOf({ ...order, status: statusAt(order.status, order.expires_at, now) }, now)}</td>
<td data-label="Networks">${order.network_from} → ${order.network_to}</td>
<td data-label="Send" class="num">${money(order.amount_from_expected, order.coin_from)} ${order.coin_from}</td>
<td data-label="Receive" class="num">${money(order.amount_to_expected, order.coin_to)} ${order.coin_to}</td>
</tr>`,
)}</tbody>
</table></div>`}
${result.nextCursor === null ? '' : html`<p class="pager"><a href="/cabinet/orders?${filterQuery(filters, result.nextCursor)}" rel="next">Older orders</a></p>`}
${totals.length === 0
  ? ''
  : html`<h2>Totals of every order that matches</h2>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Coin sent</th><th scope="col" class="num">Orders</th><th scope="col" class="num">Expected</th><th scope="col" class="num">Received</th></tr></thead>
<tbody>${totals.map((total) => html`<tr><th scope="row">${total.coin}</th><td class="num">${total.orders}</td><td class="num">${money(total.expected, total.coin)}</td><td class="num">${money(total.received, total.coin)}</td></tr>`)}</tbody>
</table></div>`}
<p><a href="/cabinet/orders.csv?${filterQuery(filters, undefined)}" download>Export these orders as CSV</a> <span class="hint">(every order that matches, not only this page)</span></p>`;
    return reply
      .code(filters.badDates.length === 0 ? 200 : 400)
      .type('text/html; charset=utf-8')
      .send(page({ title: 'Orders', session, active: '/cabinet/orders', problem: sessions.flash.read(session, request.query).problem, body }));
  });
  registerOrdersExport(app, { list, sessions, filtersOf, listQuery, partners, clock });
}
