import type { App, Services } from '../../app-types.js';
import {
  countOrdersByStatus,
  countOrdersPerDay,
  ordersNeedingAction,
  sumCompletedVolume,
  type DailyOrders,
} from '../../db/repositories/cabinet-overview-repository.js';
import type { Decimal } from '../../domain/money.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';
import type { CommissionSummary } from '../../services/partner-stats.js';
import { html, type Html } from './html.js';
import { page, time } from './layout.js';
import { amount, orderBadge, statusWords } from './format.js';
import { sessionOf, type CabinetSessions } from './session.js';

const DAY_MS = 86_400_000;
const CHART_DAYS = 30;
/** The most orders "Needs your action" lists (the orders page has the rest). */
const ACTION_LIST_MAX = 20;
const WINDOWS = [
  { key: 'day', days: 1, label: '24 hours' },
  { key: 'week', days: 7, label: '7 days' },
  { key: 'month', days: 30, label: '30 days' },
] as const;

/** An exact sum as people read it (never through a float). */
const exact = (value: Decimal): string => value.toFixed();

/**
 * The commission per coin (its amount and USD value) in each window, and the USD total: the
 * figures of GET /partner/stats for the same periods, read through the same service.
 */
function commissionTable(commission: Record<'day' | 'week' | 'month', CommissionSummary>, kind: string): Html {
  const coins = [...new Set(WINDOWS.flatMap(({ key }) => commission[key].by_coin.map((row) => row.coin)))].sort();
  if (coins.length === 0) return html`<p>No commission on ${kind} orders exchanged in the last 30 days.</p>`;
  const cell = (key: 'day' | 'week' | 'month', coin: string) => {
    const row = commission[key].by_coin.find((entry) => entry.coin === coin);
    return row === undefined
      ? html`<td class="num">0</td>`
      : html`<td class="num"><span data-commission="${key} ${coin}">${exact(row.amount)}</span><br><span class="hint"><span data-commission-usd="${key} ${coin}">${exact(row.usd)}</span> USD</span></td>`;
  };
  return html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Coin</th>${WINDOWS.map(({ label }) => html`<th scope="col" class="num">${label}</th>`)}</tr></thead>
<tbody>${coins.map((coin) => html`<tr><th scope="row">${coin}</th>${WINDOWS.map(({ key }) => cell(key, coin))}</tr>`)}</tbody>
<tfoot><tr><th scope="row">All coins, USD</th>${WINDOWS.map(({ key }) => html`<td class="num" data-commission-total="${key}">${exact(commission[key].usd)}</td>`)}</tr>
<tr><th scope="row">Orders exchanged</th>${WINDOWS.map(({ key }) => html`<td class="num">${commission[key].orders}</td>`)}</tr></tfoot>
</table></div>
<p class="hint">Your markup's share of each ${kind} order, recorded in the coin paid out and in USD at the moment it was exchanged; orders whose payout failed for good earn nothing.</p>`;
}

/** The last 30 UTC days' bars, oldest first: orders created (blue) and completed (green) per day. */
function chart(days: DailyOrders[], now: Date): Html {
  const byDay = new Map(days.map((day) => [day.day, day]));
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const series = Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = new Date(today - (CHART_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, created: 0, completed: 0 };
  });
  const max = Math.max(1, ...series.map((day) => day.created));
  // A left axis with its values (0, half, the most) and gridlines; the bars start after it.
  const axis = 32;
  const width = 600;
  const height = 160;
  const slot = width / CHART_DAYS;
  const bar = (value: number) => Math.round((value / max) * (height - 20));
  const ticks = [...new Set([0, Math.round(max / 2), max])];
  return html`<svg class="chart" viewBox="0 0 ${axis + width} ${height + 14}" role="img" aria-labelledby="chart-title">
<title id="chart-title">Orders created and completed per day, last ${CHART_DAYS} days (most in one day: ${max})</title>
${ticks.map((tick) => html`<line class="grid" x1="${axis}" x2="${axis + width}" y1="${height - bar(tick)}" y2="${height - bar(tick)}"></line><text x="${axis - 4}" y="${height - bar(tick) + 4}" text-anchor="end">${tick}</text>`)}
${series.map((day, i) => {
    const x = axis + Math.round(i * slot);
    return html`<g><title>${day.day}: ${day.created} created, ${day.completed} completed</title>
<rect class="created" x="${x + 1}" y="${height - bar(day.created)}" width="${Math.max(1, Math.round(slot / 2) - 1)}" height="${bar(day.created)}"></rect>
<rect class="completed" x="${x + Math.round(slot / 2)}" y="${height - bar(day.completed)}" width="${Math.max(1, Math.round(slot / 2) - 1)}" height="${bar(day.completed)}"></rect></g>`;
  })}
<text x="${axis}" y="${height + 12}">${series[0]?.day ?? ''}</text>
<text x="${axis + width}" y="${height + 12}" text-anchor="end">${series[series.length - 1]?.day ?? ''}</text>
</svg>
<p class="legend"><span><span class="swatch created"></span>created</span><span><span class="swatch completed"></span>completed</span></p>
<details class="chart-numbers"><summary>The numbers per day</summary>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Created</th><th scope="col" class="num">Completed</th></tr></thead>
<tbody>${series.slice().reverse().map((day) => html`<tr><th scope="row">${day.day}</th><td class="num">${day.created}</td><td class="num">${day.completed}</td></tr>`)}</tbody>
</table></div></details>`;
}

/**
 * GET /cabinet: the partner's orders of the session's mode (docs/contract.md §9.1: live, or sandbox in
 * test mode) of the last 1, 7 and 30 days: by status, the volume received by completed orders
 * per coin, the commission (docs/contract.md §7.8) and a chart of orders per day.
 */
export function registerCabinetOverview(app: App, { database, clock, partnerStats }: Services, sessions: CabinetSessions): void {
  app.get('/cabinet', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const sandbox = session.mode === 'sandbox';
    const kind = sandbox ? 'sandbox' : 'live';
    const now = clock.now();
    const windows = {
      dayStart: new Date(now.getTime() - DAY_MS),
      weekStart: new Date(now.getTime() - 7 * DAY_MS),
      monthStart: new Date(now.getTime() - 30 * DAY_MS),
    };
    // The commission's periods are the stats' default one's shape, [to - days, to) with `to`
    // just after now, so the 30-day column is exactly what GET /partner/stats answers unasked.
    const to = new Date(now.getTime() + 1);
    const commissionIn = (days: number) => partnerStats.commission(session.partnerId, new Date(to.getTime() - days * DAY_MS), to, sandbox);
    const [waiting, counts, volume, perDay, day, week, month] = await Promise.all([
      ordersNeedingAction(database.db, session.partnerId, sandbox, now, ACTION_LIST_MAX),
      countOrdersByStatus(database.db, session.partnerId, windows, sandbox),
      sumCompletedVolume(database.db, session.partnerId, windows, sandbox),
      countOrdersPerDay(database.db, session.partnerId, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (CHART_DAYS - 1) * DAY_MS), sandbox),
      commissionIn(1),
      commissionIn(7),
      commissionIn(30),
    ]);
    const commission = { day, week, month };
    const total = (key: 'day' | 'week' | 'month') => counts.reduce((sum, row) => sum + row[key], 0);
    const completed = counts.find((row) => row.status === 'completed');
    const ordered = ORDER_STATUSES.map((status) => counts.find((row) => row.status === status)).filter((row) => row !== undefined);
    const body = html`${waiting.length === 0
  ? ''
  : html`<section class="held" aria-labelledby="needs-title"><h2 id="needs-title">Needs your action</h2>
<ul>${waiting.map((order) => {
    const badge = orderBadge(order, now);
    return html`<li><a href="/cabinet/orders/${order.id}" class="mono">${order.short_id}</a> <span class="badge ${badge.tone}">${badge.label}</span>${order.refund_hold_until !== null && order.refund_hold_until > now ? html` — choose refund or continue before ${time(order.refund_hold_until)}` : ' — set the refund address'}</li>`;
  })}</ul></section>`}
<div class="cards">
${(['day', 'week', 'month'] as const).map(
  (key) => html`<dl class="card"><dt>Orders, last ${key === 'day' ? '24 hours' : key === 'week' ? '7 days' : '30 days'}</dt><dd>${total(key)}</dd><dt>Completed</dt><dd>${completed?.[key] ?? 0}</dd><dt>Commission</dt><dd>${exact(commission[key].usd)} USD</dd></dl>`,
)}
</div>
<h2>Orders per day</h2>
${chart(perDay, now)}
<h2>Orders by status</h2>
${ordered.length === 0
  ? html`<p>No ${kind} orders in the last 30 days.${sandbox ? '' : html` Orders made with a sandbox key are in <a href="/cabinet?mode=test">test mode</a>.`}</p>`
  : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Status</th><th scope="col" class="num">24 hours</th><th scope="col" class="num">7 days</th><th scope="col" class="num">30 days</th></tr></thead>
<tbody>${ordered.map((row) => html`<tr><th scope="row"><a href="/cabinet/orders?status=${row.status}">${statusWords(row.status)}</a></th><td class="num">${row.day}</td><td class="num">${row.week}</td><td class="num">${row.month}</td></tr>`)}</tbody>
</table></div>`}
<h2>Volume received by completed orders</h2>
${volume.length === 0
  ? html`<p>No completed ${kind} orders in the last 30 days.</p>`
  : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Coin</th><th scope="col" class="num">24 hours</th><th scope="col" class="num">7 days</th><th scope="col" class="num">30 days</th></tr></thead>
<tbody>${volume.map((row) => html`<tr><th scope="row">${row.coin}</th><td class="num">${amount(row.day)}</td><td class="num">${amount(row.week)}</td><td class="num">${amount(row.month)}</td></tr>`)}</tbody>
</table></div>`}
<h2>Commission</h2>
${commissionTable(commission, kind)}`;
    return reply.type('text/html; charset=utf-8').send(page({ title: 'Overview', session, active: '/cabinet', body }));
  });
}
