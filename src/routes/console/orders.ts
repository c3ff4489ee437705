import type { App, Services } from '../../app-types.js';
import { roleAtLeast } from '../../domain/operator-roles.js';
import { UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import type { Flash } from '../cabinet/flash.js';
import { html } from '../cabinet/html.js';
import { csrfField, time } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { act, backTo } from './actions.js';
import { ACTION_NOTICES, actionButton } from './attention.js';
import { consoleErrorPage, consolePage, noticeOf } from './layout.js';
import { consoleSessionOf, type ConsoleSessions } from './session.js';

const HTML = 'text/html; charset=utf-8';
/** Results of one search, at most. */
const FOUND_LIMIT = 50;

/**
 * Orders in the console: the search (/console/orders?q=), one order with its timeline, payouts
 * and the actions the person's role allows, and those actions (each calls the service the
 * operator API calls, and comes back with 303).
 */
export function registerConsoleOrders(app: App, services: Services, sessions: ConsoleSessions, flash: Flash): void {
  const { clock, orderActions, orderLookup, lifecycle, payoutOperations, webhooks } = services;
  const viewer = { schema: { hide: true }, preHandler: sessions.required('viewer') };
  const support = { schema: { hide: true }, preHandler: sessions.required('support') };
  const finance = { schema: { hide: true }, preHandler: sessions.required('finance') };

  app.get('/console/orders', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const q = (request.query as Record<string, unknown>).q;
    const term = typeof q === 'string' ? q.slice(0, 200) : '';
    // The search of GET /admin/v1/orders?q= (OrderLookup.search): one implementation.
    const found = term.trim() === '' ? [] : await orderLookup.search({ q: term, limit: FOUND_LIMIT, offset: 0 });
    return reply.type(HTML).send(
      consolePage({
        title: 'Orders',
        session,
        active: '/console/orders',
        body: html`<form method="get" action="/console/orders" class="inline search" role="search">
  <label>Find an order <input type="search" name="q" maxlength="200" value="${term}" placeholder="id, short id, address, txid, external id, partner, email"></label>
  <button type="submit">Search</button>
</form>
${term.trim() === ''
  ? html`<p class="hint">Search by the order's id or short id (any case, with or without the prefix), an address, a txid, an external id, a partner's id or name, or the email of a partner's person.</p>`
  : found.length === 0
    ? html`<p role="status">No order matches “${term}”.</p>`
    : html`<p role="status">${found.length} order${found.length === 1 ? '' : 's'} found.</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Order</th><th scope="col">Partner</th><th scope="col">Pair</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
<tbody>${found.map((order) => html`<tr><td><a href="/console/orders/${order.id}">${order.short_id}</a></td><td>${order.partner_name}${order.sandbox ? ' (test)' : ''}</td><td>${order.coin_from} → ${order.coin_to}</td><td>${order.status}</td><td>${time(order.created_at)}</td></tr>`)}</tbody></table></div>`}`,
      }),
    );
  });

  app.get('/console/orders/:id', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const { id } = request.params as { id: string };
    const detail = await orderLookup.detail(id);
    if (detail === undefined) return reply.code(404).type(HTML).send(consoleErrorPage('Order not found', 'There is no order with this id.'));
    const { order, events, payouts } = detail;
    const back = `/console/orders/${order.id}`;
    const canSupport = roleAtLeast(session.role, 'support');
    const canFinance = roleAtLeast(session.role, 'finance');
    const read = flash.read(session, request.query);
    const final = ['completed', 'expired', 'refunded', 'failed'].includes(order.status);
    const actions = canSupport
      ? html`<section aria-labelledby="actions"><h2 id="actions">Actions</h2>
${order.status === 'refunding' && order.refund_hold_until !== null && order.refund_hold_until > clock.now()
  ? html`<div class="actions">${actionButton(session, `${back}/continue`, 'Continue the order', back)} ${actionButton(session, `${back}/refund`, 'Refund now', back)}</div>`
  : ''}
${order.status === 'exchanging' || order.status === 'sending'
  ? html`<div class="actions">${actionButton(session, `${back}/resume`, `Continue ${order.short_id}: run its ${order.status === 'exchanging' ? 'exchange' : 'payout'} again now`, back)}</div>`
  : ''}
${order.status === 'refunding' || (!final && order.status !== 'waiting_deposit')
  ? html`<form method="post" action="${back}/refund-address" class="stack">${csrfField(session.csrf)}<input type="hidden" name="back" value="${back}">
<label>Refund address <input type="text" name="address" required maxlength="200" autocomplete="off" value="${order.refund_address ?? ''}"></label>
<label>Tag or memo <input type="text" name="tag" maxlength="100" autocomplete="off" value="${order.refund_address_tag ?? ''}"></label>
<button type="submit">Set refund address</button></form>`
  : ''}
${final
  ? html`<p class="hint">The order is final: nothing is left to do.</p>`
  : html`<form method="post" action="${back}/fail" class="stack">${csrfField(session.csrf)}<input type="hidden" name="back" value="${back}">
<label>Reason <input type="text" name="reason" required maxlength="500"></label>
<button type="submit" class="danger">Fail the order</button></form>`}
</section>`
      : '';
    return reply.type(HTML).send(
      consolePage({
        title: `Order ${order.short_id}`,
        session,
        active: '/console/orders',
        notice: read.notice ?? noticeOf(request.query, ACTION_NOTICES),
        problem: read.problem,
        body: html`<dl class="facts">
<dt>Id</dt><dd class="mono">${order.id}</dd>
<dt>Status</dt><dd>${order.status}${order.status_reason === null ? '' : ` (${order.status_reason})`}</dd>
<dt>Pair</dt><dd>${order.amount_from_expected} ${order.coin_from} (${order.network_from}) → ${order.amount_to_expected} ${order.coin_to} (${order.network_to})</dd>
<dt>Deposit address</dt><dd class="mono">${order.deposit_address}${order.deposit_address_tag === null ? '' : ` tag ${order.deposit_address_tag}`}</dd>
<dt>Recipient</dt><dd class="mono">${order.recipient_address}</dd>
<dt>Refund address</dt><dd class="mono">${order.refund_address ?? '—'}</dd>
<dt>Deposit txid</dt><dd class="mono">${order.deposit_txid ?? '—'}</dd>
<dt>Payout txid</dt><dd class="mono">${order.payout_txid ?? '—'}</dd>
<dt>External id</dt><dd>${order.external_id ?? '—'}</dd>
<dt>Held until</dt><dd>${time(order.refund_hold_until)}</dd>
<dt>Created</dt><dd>${time(order.created_at)}</dd>
</dl>
${actions}
<section aria-labelledby="payouts"><h2 id="payouts">Payouts and refunds</h2>
${payouts.length === 0 ? html`<p class="hint">None yet.</p>` : html`<div class="table-wrap"><table><thead><tr><th scope="col">Kind</th><th scope="col">Amount</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">Transaction</th><th scope="col">Action</th></tr></thead>
<tbody>${payouts.map((payout) => html`<tr><td>${payout.kind}</td><td>${String(payout.amount)}</td><td class="mono">${payout.address}</td><td>${payout.status}${payout.failure_reason === null ? '' : `: ${payout.failure_reason}`}${payout.approved_by === null ? '' : ` (approved by ${payout.approved_by})`}</td><td class="mono">${payout.txid ?? '—'}</td><td>${payout.status === 'awaiting_approval' && canFinance ? actionButton(session, `/console/payouts/${payout.id}/approve`, `Approve the ${payout.kind}`, back) : ''}</td></tr>`)}</tbody></table></div>`}
</section>
<section aria-labelledby="timeline"><h2 id="timeline">Timeline</h2>
<ol class="timeline">${events.map((event) => html`<li>${time(event.created_at)}: ${event.from_status ?? 'created'} → ${event.to_status}${event.reason === null ? '' : ` (${event.reason})`} by ${event.actor}</li>`)}</ol>
</section>`,
      }),
    );
  });

  const orderBack = (request: { body: unknown; params: unknown }) => backTo(formField(request as never, 'back'), `/console/orders/${(request.params as { id: string }).id}`);
  const orderId = (request: { params: unknown }): string => {
    const { id } = request.params as { id: string };
    if (!UUID_PATTERN.test(id)) throw new ApiError('not_found', 'order not found');
    return id.toLowerCase();
  };

  for (const action of ['continue', 'refund'] as const) {
    app.post(`/console/orders/:id/${action}`, support, async (request, reply) =>
      act(reply, flash, consoleSessionOf(request), orderBack(request), action === 'continue' ? 'continued' : 'refunded', () =>
        orderActions.perform({ id: orderId(request) }, { action }, 'operator'),
      ),
    );
  }

  // An order stuck in exchanging or sending: its step runs again now (POST /admin/v1/orders/{id}/resume).
  app.post('/console/orders/:id/resume', support, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), orderBack(request), 'resumed', () => orderActions.resume(orderId(request))),
  );

  app.post('/console/orders/:id/refund-address', support, async (request, reply) => {
    const address = (formField(request, 'address') ?? '').trim();
    const tag = (formField(request, 'tag') ?? '').trim();
    return act(reply, flash, consoleSessionOf(request), orderBack(request), 'refund-address', async () => {
      if (address === '') throw new ApiError('bad_request', 'Type the refund address.');
      return orderActions.perform({ id: orderId(request) }, { action: 'set_refund_address', refundAddress: address, refundAddressTag: tag === '' ? undefined : tag }, 'operator');
    });
  });

  app.post('/console/orders/:id/fail', support, async (request, reply) => {
    const reason = (formField(request, 'reason') ?? '').trim();
    return act(reply, flash, consoleSessionOf(request), orderBack(request), 'failed', async () => {
      if (reason === '') throw new ApiError('bad_request', 'Say why the order is failed.');
      const result = await lifecycle.apply(orderId(request), 'operator_fail', { reason: 'operator', data: { note: reason.slice(0, 500) } });
      if (!result.ok) throw new ApiError(result.reason === 'order not found' ? 'not_found' : 'conflict', `The order cannot be failed now: ${result.reason}.`);
    });
  });

  app.post('/console/payouts/:id/approve', finance, async (request, reply) => {
    const session = consoleSessionOf(request);
    const { id } = request.params as { id: string };
    return act(reply, flash, session, backTo(formField(request, 'back'), '/console'), 'approved', async () => {
      await payoutOperations.approve(id, session.actor);
    });
  });

  for (const action of ['enable', 'disable'] as const) {
    app.post(`/console/webhooks/:id/${action}`, support, async (request, reply) => {
      const { id } = request.params as { id: string };
      return act(reply, flash, consoleSessionOf(request), backTo(formField(request, 'back'), '/console'), action === 'enable' ? 'enabled' : 'disabled', () =>
        webhooks.setEnabledByOperator(id, action === 'enable'),
      );
    });
  }
}
