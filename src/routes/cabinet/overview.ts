import type { App, Services } from '../../app-types.js';
import type { DailyOrders } from '../../db/repositories/cabinet-overview-repository.js';
import { Decimal } from '../../domain/money.js';
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

/** USD to the cent with thousands separators (half-even), from an exact Decimal. */
function usd(value: Decimal): string {
  const [whole = '0', cents = '00'] = value.toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN).toFixed(2).split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  return `${sign}${whole.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

/** The period presets of the range picker, in days; the default is the middle one. */
const PRESETS = [7, 30, 90] as const;
const DEFAULT_PRESET = 30;
/** The longest period the picker shows (a year, leap day included). */
const PERIOD_MAX_DAYS = 366;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A chosen period of whole UTC days: `from` its first day, `to` the day after its last. */
interface Period {
  from: Date;
  to: Date;
  /** The preset it is, if one. */
  preset: number | undefined;
  /** What to say when the period asked for cannot be shown (the default is shown instead). */
  problem: string | undefined;
}

const dayText = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * The period the query asks for: `range=7d|30d|90d` (the last days up to today, UTC), or
 * `from`/`to` (YYYY-MM-DD, both days included). An impossible one (a day that does not exist,
 * the start after the end, a start after today, longer than a year) is said, and the default
 * period shown.
 */
function periodOf(query: Record<string, unknown>, now: Date): Period {
  const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS);
  const preset = (days: number, problem?: string): Period => ({ from: new Date(tomorrow.getTime() - days * DAY_MS), to: tomorrow, preset: days, problem });
  const { range, from, to } = query;
  if (typeof range === 'string' && range !== '') {
    const days = PRESETS.find((days) => range === `${days}d`);
    return days === undefined ? preset(DEFAULT_PRESET, 'Choose 7, 30 or 90 days, or type the first and last day.') : preset(days);
  }
  const asked = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const [first, last] = [asked(from), asked(to)];
  if (first === undefined && last === undefined) return preset(DEFAULT_PRESET);
  const day = (text: string | undefined, fallback: Date): Date | undefined => {
    if (text === undefined) return fallback;
    const date = new Date(`${text}T00:00:00.000Z`);
    return DATE.test(text) && !Number.isNaN(date.getTime()) && dayText(date) === text ? date : undefined;
  };
  const start = day(first, new Date(tomorrow.getTime() - DEFAULT_PRESET * DAY_MS));
  const end = day(last, new Date(tomorrow.getTime() - DAY_MS));
  if (start === undefined || end === undefined) return preset(DEFAULT_PRESET, 'That period cannot be shown: a day is not a date of the calendar (type it as YYYY-MM-DD).');
  if (start > end) return preset(DEFAULT_PRESET, `That period cannot be shown: it starts (${dayText(start)}) after it ends (${dayText(end)}).`);
  if (start >= tomorrow) return preset(DEFAULT_PRESET, `That period cannot be shown: it starts after today (${dayText(new Date(tomorrow.getTime() - DAY_MS))}, UTC).`);
  const endsAfter = new Date(end.getTime() + DAY_MS);
  if ((endsAfter.getTime() - start.getTime()) / DAY_MS > PERIOD_MAX_DAYS) return preset(DEFAULT_PRESET, `That period cannot be shown: it is longer than ${PERIOD_MAX_DAYS} days.`);
  return { from: start, to: endsAfter > tomorrow ? tomorrow : endsAfter, preset: undefined, problem: undefined };
}

/** The range picker: presets as links, and the first and last day as a form (GET: nothing changes). */
function picker(period: Period): Html {
  const last = new Date(period.to.getTime() - DAY_MS);
  return html`<form method="get" action="/cabinet" class="period" aria-labelledby="period-title">
<h2 id="period-title">Period: ${dayText(period.from)} to ${dayText(last)} (UTC)</h2>
<p class="presets">${PRESETS.map((days) =>
    period.preset === days ? html`<a href="/cabinet?range=${days}d" aria-current="true"><strong>Last ${days} days</strong></a> ` : html`<a href="/cabinet?range=${days}d">Last ${days} days</a> `,
  )}</p>
<div class="actions">
<label>From <input type="date" name="from" value="${dayText(period.from)}" required></label>
<label>To <input type="date" name="to" value="${dayText(last)}" required></label>
<button type="submit" class="secondary">Show period</button>
</div>
</form>`;
}

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
export function registerCabinetOverview(app: App, { clock, partnerStats, catalog, prices }: Services, sessions: CabinetSessions): void {
  /**
   * A coin's amount in USD at the price service's current price (what the treasury's USD view
   * uses: the coin's price symbol), to the cent; undefined without a fresh price.
   */
  const inUsd = (coin: string, amountText: string): Decimal | undefined => {
    const symbol = catalog.all().find((currency) => currency.coin === coin)?.price_symbol;
    const price = symbol === undefined ? undefined : prices.getPriceUsd(symbol);
    return price?.times(new Decimal(amountText)).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN);
  };
  /** Per-coin USD values and their total; `partial` when a coin has no price (left out of the total). */
  const usdTotal = (rows: Array<{ coin: string; amount: string }>) => {
    const values = rows.map((row) => inUsd(row.coin, row.amount));
    return { values, total: values.reduce<Decimal>((sum, value) => (value === undefined ? sum : sum.plus(value)), new Decimal(0)), partial: values.includes(undefined) };
  };
  const usdCell = (value: Decimal | undefined) => (value === undefined ? html`<span class="hint">no current price</span>` : html`${usd(value)} USD`);

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
    const period = periodOf(request.query as Record<string, unknown>, now);
    const chartSince = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (CHART_DAYS - 1) * DAY_MS);
    const [{ waiting, counts, volume, perDay, inPeriod }, day, week, month, periodCommission] = await Promise.all([
      partnerStats.overview(session.partnerId, sandbox, { now, windows, chartSince, actionMax: ACTION_LIST_MAX, period }),
      commissionIn(1),
      commissionIn(7),
      commissionIn(30),
      partnerStats.commission(session.partnerId, period.from, period.to, sandbox),
    ]);
    const periodUsd = usdTotal(inPeriod.volume);
    const periodCoins = [...new Set([...inPeriod.volume.map((row) => row.coin), ...periodCommission.by_coin.map((row) => row.coin)])].sort();
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
${picker(period)}
<dl class="cards period-cards">
<div class="card"><dt>Orders</dt><dd data-period="orders">${inPeriod.orders}</dd></div>
<div class="card"><dt>Completed</dt><dd data-period="completed">${inPeriod.completed}</dd></div>
<div class="card"><dt>Volume received</dt><dd><span data-period="volume-usd">${usd(periodUsd.total)}</span> USD${periodUsd.partial ? html` <span class="hint">(coins without a current price left out)</span>` : ''}</dd></div>
<div class="card"><dt>Commission</dt><dd><span data-period="commission-usd">${usd(periodCommission.usd)}</span> USD</dd></div>
</dl>
${periodCoins.length === 0
  ? html`<p>No completed ${kind} orders and no commission in this period.</p>`
  : html`<div class="table-wrap"><table>
<caption>Per coin in the period</caption>
<thead><tr><th scope="col">Coin</th><th scope="col" class="num">Volume received</th><th scope="col" class="num">Volume in USD now</th><th scope="col" class="num">Commission</th><th scope="col" class="num">Commission in USD</th></tr></thead>
<tbody>${periodCoins.map((coin) => {
    const index = inPeriod.volume.findIndex((row) => row.coin === coin);
    const earned = periodCommission.by_coin.find((row) => row.coin === coin);
    return html`<tr><th scope="row">${coin}</th><td class="num" data-period-volume="${coin}">${index < 0 ? '0' : amount(inPeriod.volume[index]?.amount ?? '0')}</td><td class="num" data-period-volume-usd="${coin}">${index < 0 ? '0.00 USD' : usdCell(periodUsd.values[index])}</td><td class="num">${earned === undefined ? '0' : exact(earned.amount)}</td><td class="num">${earned === undefined ? '0.00' : usd(earned.usd)} USD</td></tr>`;
  })}</tbody>
<tfoot><tr><th scope="row">All coins</th><td></td><td class="num">${usd(periodUsd.total)} USD</td><td></td><td class="num">${usd(periodCommission.usd)} USD</td></tr></tfoot>
</table></div>
<p class="hint">Volume is valued at today's USD price of each coin; commission in USD at the moment each order was exchanged.</p>`}
<h2>Last 24 hours, 7 and 30 days</h2>
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
<tfoot><tr><th scope="row">All coins, USD now</th>${(['day', 'week', 'month'] as const).map((key) => {
    const total = usdTotal(volume.map((row) => ({ coin: row.coin, amount: row[key] })));
    return html`<td class="num" data-volume-usd="${key}">${usd(total.total)}${total.partial ? '*' : ''}</td>`;
  })}</tr></tfoot>
</table></div>
<p class="hint">USD at today's price of each coin${volume.some((row) => inUsd(row.coin, row.month) === undefined) ? ' (* coins without a current price left out)' : ''}.</p>`}
<h2>Commission</h2>
${commissionTable(commission, kind)}`;
    return reply.type('text/html; charset=utf-8').send(page({ title: 'Overview', session, active: '/cabinet', body, problem: period.problem }));
  });
}
