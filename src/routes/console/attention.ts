import type { App, Services } from '../../app-types.js';
import type { AttentionOrder, AttentionPayout } from '../../db/repositories/attention-repository.js';
import { roleAtLeast } from '../../domain/operator-roles.js';
import { AttentionQueue, STUCK_AFTER_MS } from '../../services/attention-queue.js';
import type { Flash } from '../cabinet/flash.js';
import { html, type Html } from '../cabinet/html.js';
import { csrfField, time } from '../cabinet/layout.js';
import { age, consolePage, noticeOf } from './layout.js';
import { consoleSessionOf, type ConsoleSession, type ConsoleSessions } from './session.js';

export const ACTION_NOTICES: Readonly<Record<string, string>> = {
  continued: 'The order continues: it is exchanged at the float rate.',
  refunded: 'The refund goes ahead now.',
  'refund-address': 'The refund address is set: the refund goes ahead.',
  failed: 'The order is failed.',
  resumed: "The order continues: its step runs again at the worker's next pass, with a fresh retry budget.",
  approved: 'The payout is approved: the signer pays it at its next batch.',
  enabled: 'The webhook endpoint is enabled again.',
  disabled: 'The webhook endpoint is disabled.',
  retried: 'The delivery is queued again.',
};

const orderLink = (order: { id: string; short_id: string }) => html`<a href="/console/orders/${order.id}">${order.short_id}</a>`;

/** A small form whose one button does an action, back to the queue. */
export function actionButton(session: ConsoleSession, action: string, label: string, back: string, fields: Html | string = ''): Html {
  return html`<form method="post" action="${action}" class="inline">${csrfField(session.csrf)}<input type="hidden" name="back" value="${back}">${fields}<button type="submit">${label}</button></form>`;
}

/**
 * The attention queue (/console): what waits for an operator, by kind, oldest first, each
 * with its age and the action that resolves it (when the person's role allows it). Every
 * action is a form whose button posts and comes back here (303): usable by keyboard alone.
 */
export function registerConsoleAttention(app: App, services: Services, sessions: ConsoleSessions, flash: Flash): void {
  const queue = new AttentionQueue(services.database.db, services.clock);
  app.get('/console', { schema: { hide: true }, preHandler: sessions.required('viewer') }, async (request, reply) => {
    const session = consoleSessionOf(request);
    const now = services.clock.now();
    const items = await queue.items();
    const support = roleAtLeast(session.role, 'support');
    const finance = roleAtLeast(session.role, 'finance');
    const back = '/console';
    const orderRow = (order: AttentionOrder, since: Date, actions: Html | string) =>
      html`<tr><td>${orderLink(order)}</td><td>${order.partner_name}${order.sandbox ? ' (test)' : ''}</td><td>${order.status}${order.status_reason === null ? '' : ` (${order.status_reason})`}</td><td>${age(since, now)}</td><td>${actions}</td></tr>`;
    const orderTable = (caption: string, id: string, rows: Html[], empty: string, extra: Html | string = '') =>
      html`<section aria-labelledby="${id}"><h2 id="${id}">${caption} <span class="count">(${rows.length})</span></h2>${extra}
${rows.length === 0 ? html`<p class="hint">${empty}</p>` : html`<div class="table-wrap"><table><thead><tr><th scope="col">Order</th><th scope="col">Partner</th><th scope="col">Status</th><th scope="col">Age</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table></div>`}</section>`;
    const payoutRow = (payout: AttentionPayout, actions: Html | string) =>
      html`<tr><td>${payout.order_id === null || payout.short_id === null ? 'commission' : orderLink({ id: payout.order_id, short_id: payout.short_id })}</td><td>${payout.partner_name}</td><td>${payout.kind} of ${payout.amount} on ${payout.chain}${payout.failure_reason === null ? '' : html`: ${payout.failure_reason}`}</td><td>${age(payout.updated_at ?? payout.created_at, now)}</td><td>${actions}</td></tr>`;
    const payoutTable = (caption: string, id: string, rows: Html[], empty: string) =>
      html`<section aria-labelledby="${id}"><h2 id="${id}">${caption} <span class="count">(${rows.length})</span></h2>
${rows.length === 0 ? html`<p class="hint">${empty}</p>` : html`<div class="table-wrap"><table><thead><tr><th scope="col">Order</th><th scope="col">Partner</th><th scope="col">What</th><th scope="col">Age</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table></div>`}</section>`;

    const held = items.heldRefunds.map((order) =>
      orderRow(
        order,
        order.updated_at,
        html`until ${time(order.refund_hold_until)} ${support ? html`${actionButton(session, `/console/orders/${order.id}/continue`, `Continue ${order.short_id}`, back)} ${actionButton(session, `/console/orders/${order.id}/refund`, `Refund ${order.short_id} now`, back)}` : ''}`,
      ),
    );
    const noAddress = items.refundsWithoutAddress.map((order) =>
      orderRow(
        order,
        order.updated_at,
        support
          ? html`<form method="post" action="/console/orders/${order.id}/refund-address" class="inline">${csrfField(session.csrf)}<input type="hidden" name="back" value="${back}">
<label>Refund address of ${order.short_id} <input type="text" name="address" required maxlength="200" autocomplete="off"></label>
<label>Tag or memo <input type="text" name="tag" maxlength="100" autocomplete="off"></label>
<button type="submit">Set refund address of ${order.short_id}</button></form>`
          : html`<a href="/console/orders/${order.id}">open</a>`,
      ),
    );
    const stuck = items.stuckOrders.map((order) =>
      orderRow(
        order,
        order.updated_at,
        support
          ? html`${actionButton(session, `/console/orders/${order.id}/resume`, `Continue ${order.short_id}`, back)}
<form method="post" action="/console/orders/${order.id}/fail" class="inline">${csrfField(session.csrf)}<input type="hidden" name="back" value="${back}">
<label>Reason for ${order.short_id} <input type="text" name="reason" required maxlength="500"></label>
<button type="submit" class="danger">Fail ${order.short_id}</button></form>`
          : html`<a href="/console/orders/${order.id}">open</a>`,
      ),
    );
    const failed = items.failedPayouts.map((payout) =>
      payoutRow(
        payout,
        payout.order_id === null
          ? html`a commission payout: the partner's commission of that period stays owed`
          : html`<a href="/console/orders/${payout.order_id}">Open ${payout.short_id ?? ''} to fail or refund it</a>`,
      ),
    );
    const approval = items.payoutsAwaitingApproval.map((payout) =>
      payoutRow(payout, finance ? actionButton(session, `/console/payouts/${payout.id}/approve`, `Approve ${payout.kind} of ${payout.short_id ?? payout.partner_name}`, back) : html`needs finance`),
    );
    const endpoints = items.failingEndpoints.map(
      (endpoint) =>
        html`<tr><td class="mono">${endpoint.url}</td><td>${endpoint.partner_name}</td><td>${endpoint.enabled ? 'enabled, failing' : `disabled (${endpoint.disabled_reason ?? ''})`}</td><td>${age(endpoint.failing_since ?? endpoint.updated_at, now)}</td><td>${
          support
            ? endpoint.enabled
              ? actionButton(session, `/console/webhooks/${endpoint.id}/disable`, `Disable endpoint of ${endpoint.partner_name}`, back)
              : actionButton(session, `/console/webhooks/${endpoint.id}/enable`, `Enable endpoint of ${endpoint.partner_name}`, back)
            : ''
        }</td></tr>`,
    );
    const read = flash.read(session, request.query);
    return reply.type('text/html; charset=utf-8').send(
      consolePage({
        title: 'Attention',
        session,
        active: '/console',
        notice: read.notice ?? noticeOf(request.query, ACTION_NOTICES),
        problem: read.problem,
        body: html`<form method="get" action="/console/orders" class="inline search" role="search">
  <label>Find an order <input type="search" name="q" maxlength="200" placeholder="id, short id, address, txid, external id, partner, email"></label>
  <button type="submit">Search</button>
</form>
${orderTable('Held refunds', 'held', held, 'No refund is held for a choice.')}
${orderTable('Refunds waiting for an address', 'no-address', noAddress, 'No refund waits for an address.')}
${orderTable('Stuck in exchanging or sending', 'stuck', stuck, 'No order is stuck.', html`<p class="hint">Orders that have not moved for ${STUCK_AFTER_MS / 60_000} minutes. Continue runs the order's step (its exchange or payout) again now; fail ends it.</p>`)}
${payoutTable('Failed payouts', 'failed-payouts', failed, 'No payout failed on an open order.')}
${payoutTable('Payouts awaiting approval', 'approval', approval, 'No payout waits for approval.')}
<section aria-labelledby="endpoints"><h2 id="endpoints">Failing webhook endpoints <span class="count">(${endpoints.length})</span></h2>
${endpoints.length === 0 ? html`<p class="hint">No webhook endpoint is failing.</p>` : html`<div class="table-wrap"><table><thead><tr><th scope="col">URL</th><th scope="col">Partner</th><th scope="col">State</th><th scope="col">Age</th><th scope="col">Action</th></tr></thead><tbody>${endpoints}</tbody></table></div>`}</section>`,
      }),
    );
  });
}
