import QRCode from 'qrcode';
import type { FastifyReply } from 'fastify';
import type { App, Services } from '../../app-types.js';
import type { OrderEventListing } from '../../db/repositories/order-events-repository.js';
import { statusAt } from '../../domain/order-status.js';
import type { PartnerOrderRow } from '../../views/partner-order-view.js';
import { ApiError } from '../../errors.js';
import type { ActionRequest } from '../../services/order-actions.js';
import { orderView } from '../v1/order-view.js';
import { html, trusted, type Html } from './html.js';
import { can, confirmForm, csrfField, errorPage, page, roleNote, time } from './layout.js';
import { amount, eventSentence, orderBadge, reasonSentence, statusWords } from './format.js';
import { Decimal } from '../../domain/money.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

/** What each action's button says, and what the page says once it is done. */
const ACTION_WORDS = {
  cancel: { button: 'Cancel the order', done: 'The order is cancelled.' },
  continue: { button: 'Continue at the current rate', done: 'The exchange continues at the current rate.' },
  refund: { button: 'Refund now', done: 'The refund is on its way.' },
  set_refund_address: { button: 'Set refund address', done: 'The refund address is set.' },
} as const;
type ActionName = keyof typeof ACTION_WORDS;

/** The actions that cannot be undone, and what their confirmation says. */
const CONFIRMS = {
  cancel: { question: 'The order is cancelled now: a deposit sent to its address after this is refunded, not exchanged.', confirm: 'Yes, cancel the order' },
  refund: { question: 'What was received is sent back to the refund address now, instead of being exchanged. This cannot be undone.', confirm: 'Yes, refund now' },
} as const;

/** One line of the timeline. */
interface TimelineLine {
  at: Date;
  text: string;
}

/**
 * The order's events as lines people read: each move in words (its event or reason as a
 * sentence, the status it led to); the confirmations of the deposit, one event each as they
 * grow, are one line with the count where the last one is.
 */
export function timelineLines(events: readonly OrderEventListing[], order: Pick<PartnerOrderRow, 'deposit_confirmations' | 'deposit_confirmations_required'>): TimelineLine[] {
  const lines: TimelineLine[] = [];
  const confirmations = events.filter((event) => event.reason === 'confirmations');
  const last = confirmations[confirmations.length - 1];
  for (const event of events) {
    if (event.reason === 'confirmations') {
      if (event !== last) continue;
      const count = order.deposit_confirmations ?? confirmations.length;
      lines.push({ at: event.created_at, text: `Deposit confirmations: ${count} of ${order.deposit_confirmations_required}` });
      continue;
    }
    const moved = event.from_status !== null && event.from_status !== event.to_status;
    const said = event.from_status === null ? 'Order created' : eventSentence(event.reason);
    const now = event.reason === 'cancelled' ? 'cancelled' : statusWords(event.to_status);
    lines.push({ at: event.created_at, text: moved || event.from_status === null ? `${said} (now ${now})` : said });
  }
  return lines;
}
const isActionName = (name: string): name is ActionName => Object.hasOwn(ACTION_WORDS, name);

/** A link to the coin's block explorer, when the catalog has one for it; else the text alone. */
function explorerLink(template: string | null | undefined, placeholder: '{txid}' | '{address}', value: string | null): Html {
  if (value === null) return html`—`;
  if (template === null || template === undefined) return html`<span class="mono">${value}</span>`;
  const url = template.replace(placeholder, encodeURIComponent(value));
  return /^https:\/\//.test(url) ? html`<a class="mono" href="${url}" rel="noopener noreferrer">${value}</a>` : html`<span class="mono">${value}</span>`;
}

/**
 * GET /cabinet/orders/{id} (UUID or short id): the order as GET /partner/orders/{id} reads it
 * (OrderService.get: another partner's order is not found, 404), its event timeline, the
 * deposit QR code and explorer links (live orders: a sandbox order is on no public chain).
 */
export function registerCabinetOrderDetail(app: App, { clock, orders, orderActions, catalog, linkBase, quotes, partners }: Services, sessions: CabinetSessions): void {
  /** The session's partner's order, or undefined (another partner's order is not found either). */
  const ownOrder = async (session: CabinetSession, orderId: string): Promise<PartnerOrderRow | undefined> => {
    const partner = await partners.find(session.partnerId);
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    try {
      // A person reaches both modes' orders (docs/contract.md §10.2: only a key is held to its own).
      return await orders.get({ partner, mode: undefined }, orderId);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    }
  };
  const notFound = (reply: FastifyReply) =>
    reply.code(404).type('text/html; charset=utf-8').send(errorPage('Order not found', 'There is no order of yours with this id.'));

  /**
   * A refund held for the partner's choice (docs/contract.md §7.5): what the person decides on. Until when
   * (a countdown), where the refund goes, the rate quoted against the rate now, and what each
   * choice gives: the refund sends back all that was received; continue exchanges it at the
   * float rate now, less the payout network fee.
   */
  const heldRefund = (order: PartnerOrderRow, now: Date, markupBps: number): Html => {
    const until = order.refund_hold_until;
    if (order.status !== 'refunding' || until === null || until <= now || order.amount_from_received === null) return html``;
    const fromRow = catalog.all().find((row) => row.coin === order.coin_from && row.network === order.network_from);
    const toRow = catalog.all().find((row) => row.coin === order.coin_to && row.network === order.network_to);
    const priced = fromRow === undefined || toRow === undefined ? undefined : quotes.tryPricePair(fromRow, toRow, { amount: new Decimal(order.amount_from_received), rateType: 'float', markupBps });
    const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
    return html`<section class="held" aria-labelledby="held-title"><h2 id="held-title">Your choice: refund or continue</h2>
<p>${reasonSentence(order.status_reason ?? 'exchange_failed')} Choose before ${time(until)} (<span data-countdown-ms="${until.getTime() - now.getTime()}">${minutes} min left</span>); after that the refund proceeds.</p>
<dl class="facts">
<dt>Received</dt><dd>${amount(order.amount_from_received)} ${order.coin_from}</dd>
<dt>Refund goes to</dt><dd>${order.refund_address === null ? 'no refund address yet: set one below' : html`<span class="mono">${order.refund_address}</span>${order.refund_address_tag === null ? '' : html` tag <span class="mono">${order.refund_address_tag}</span>`}`}</dd>
<dt>Rate quoted</dt><dd>${amount(order.rate_quoted)} ${order.coin_to} per ${order.coin_from}</dd>
<dt>Rate now</dt><dd>${priced?.ok === true ? html`${amount(priced.rate.toFixed())} ${order.coin_to} per ${order.coin_from}` : 'no rate now: continue cannot be priced'}</dd>
<dt>Refund now gives</dt><dd>${amount(order.amount_from_received)} ${order.coin_from} back, no fee taken</dd>
<dt>Continue gives</dt><dd>${priced?.ok === true ? html`${amount(priced.amountTo.toFixed())} ${order.coin_to}, after the network fee of ${amount(priced.networkFee.toFixed())} ${order.coin_to}` : '—'}</dd>
</dl></section>`;
  };

  const render = async (session: CabinetSession, order: PartnerOrderRow, options: { notice?: string; problem?: string } = {}) => {
    const events = await orders.timeline(order.id);
    const now = clock.now();
    const status = statusAt(order.status, order.expires_at, now);
    // A sandbox order lives on the simulator: its transactions and deposit address are on no
    // public chain, so it links to no explorer (its values are shown as text).
    const catalogRow = (coin: string, network: string) => (order.sandbox ? undefined : catalog.all().find((row) => row.coin === coin && row.network === network));
    const from = catalogRow(order.coin_from, order.network_from);
    const to = catalogRow(order.coin_to, order.network_to);
    const badge = orderBadge(order, now);
    // Continue re-prices with the partner's markup now (OrderActions.markupNow).
    const partner = await partners.find(session.partnerId);
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    // The QR code invites a payment: only while the order waits for its deposit (a second
    // payment to a completed or refunding order would be a second refund to chase).
    const awaitingDeposit = status === 'waiting_deposit';
    const qr = awaitingDeposit ? await QRCode.toString(order.deposit_uri ?? order.deposit_address, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) : undefined;
    const body = html`${heldRefund(order, now, partner.markup_bps)}<dl class="facts">
<dt>Status</dt><dd><span class="badge ${badge.tone}">${badge.label}</span>${order.status_reason === null ? '' : html` ${reasonSentence(order.status_reason)}`}</dd>
<dt>Order id</dt><dd class="mono">${order.id}</dd>
<dt>Created</dt><dd>${time(order.created_at)}</dd>
<dt>Expires</dt><dd>${time(order.expires_at)}</dd>
<dt>Last change</dt><dd>${time(order.updated_at)}</dd>
<dt>Send</dt><dd>${amount(order.amount_from_expected)} ${order.coin_from} (${order.network_from})</dd>
<dt>Receive</dt><dd>${amount(order.amount_to_expected)} ${order.coin_to} (${order.network_to}), ${order.rate_type} rate</dd>
<dt>Received</dt><dd>${order.amount_from_received === null ? '—' : html`${amount(order.amount_from_received)} ${order.coin_from}`}</dd>
<dt>Paid out</dt><dd>${order.amount_to_final === null || order.payout_txid === null ? '—' : html`${amount(order.amount_to_final)} ${order.coin_to}${order.rate_final === null ? '' : html` at ${amount(order.rate_final)} ${order.coin_to} per ${order.coin_from}`}`}</dd>
<dt>Refunded</dt><dd>${order.amount_refunded === null ? '—' : html`${amount(order.amount_refunded)} ${order.coin_from}`}</dd>
<dt>Deposit address</dt><dd>${explorerLink(from?.explorer_address_url, '{address}', order.deposit_address)}${order.deposit_address_tag === null ? '' : html` tag <span class="mono">${order.deposit_address_tag}</span>`}</dd>
<dt>Recipient</dt><dd>${explorerLink(to?.explorer_address_url, '{address}', order.recipient_address)}${order.recipient_address_tag === null ? '' : html` tag <span class="mono">${order.recipient_address_tag}</span>`}</dd>
<dt>Refund address</dt><dd>${order.refund_address === null ? '—' : html`${explorerLink(from?.explorer_address_url, '{address}', order.refund_address)}${order.refund_address_tag === null ? '' : html` tag <span class="mono">${order.refund_address_tag}</span>`}`}</dd>
<dt>Deposit transaction</dt><dd>${explorerLink(from?.explorer_tx_url, '{txid}', order.deposit_txid)}${order.deposit_confirmations === null ? '' : html` (${order.deposit_confirmations} of ${order.deposit_confirmations_required} confirmations)`}</dd>
<dt>Payout transaction</dt><dd>${explorerLink(to?.explorer_tx_url, '{txid}', order.payout_txid)}</dd>
<dt>Refund transaction</dt><dd>${explorerLink(from?.explorer_tx_url, '{txid}', order.refund_txid)}</dd>
${order.sandbox ? html`<dt>Sandbox</dt><dd>yes: a test order on the simulator</dd>` : ''}
</dl>
${qr === undefined
  ? ''
  : html`<h2>Deposit QR code</h2>
<figure class="qr" role="img" aria-label="QR code of the deposit ${order.deposit_uri === null ? 'address' : 'payment link'}">${trusted(qr)}</figure>`}
<h2>Timeline</h2>
<ol class="timeline">${timelineLines(events, order).map((line) => html`<li>${time(line.at)}: ${line.text}</li>`)}</ol>
<p><a href="/cabinet/orders${order.sandbox ? '?mode=test' : ''}">All ${order.sandbox ? 'sandbox' : 'live'} orders</a></p>`;
    return page({ title: `Order ${order.short_id}`, session, active: '/cabinet/orders', notice: options.notice, problem: options.problem, body: html`${actionForms(session, order)}${body}` });
  };

  /** The actions the order offers now (its `actions`, as the API lists them), as forms. */
  const actionForms = (session: CabinetSession, order: PartnerOrderRow): Html => {
    const offered = (orderView(order, clock.now(), linkBase).actions as string[]).filter(isActionName);
    if (offered.length === 0) return html``;
    if (!can(session, 'orders')) return roleNote(session, 'acting on orders needs a developer or an owner');
    const memo = catalog.all().find((row) => row.coin === order.coin_from && row.network === order.network_from)?.is_memo === true;
    const form = (action: ActionName, fields: Html = html``) => {
      const path = `/cabinet/orders/${order.id}/actions/${action}`;
      // Cancel and refund cannot be undone: they ask first (continue re-prices, and is the default the hold offers).
      const confirm = CONFIRMS[action as keyof typeof CONFIRMS] as { question: string; confirm: string } | undefined;
      if (confirm !== undefined) return confirmForm({ action: path, csrf: session.csrf, label: `${ACTION_WORDS[action].button}…`, ...confirm });
      return html`<form method="post" action="${path}" class="${action === 'set_refund_address' ? 'stack' : 'inline'}">${csrfField(session.csrf)}${fields}<button type="submit">${ACTION_WORDS[action].button}</button></form>`;
    };
    return html`<section aria-labelledby="actions-title"><h2 id="actions-title">What you can do</h2>
<div class="actions">${offered.filter((action) => action !== 'set_refund_address').map((action) => form(action))}</div>
${offered.includes('set_refund_address')
  ? form(
      'set_refund_address',
      html`<label>Refund address (${order.coin_from} on ${order.network_from}) <input type="text" name="refund_address" required maxlength="128" spellcheck="false" autocomplete="off"></label>${memo ? html`<label>Refund memo or tag <input type="text" name="refund_address_tag" required maxlength="128"></label>` : ''}`,
    )
  : ''}</section>`;
  };

  app.get('/cabinet/orders/:order_id', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const order = await ownOrder(session, (request.params as { order_id: string }).order_id);
    if (order === undefined) return notFound(reply);
    const done = (request.query as Record<string, unknown>).done;
    const notice = typeof done === 'string' && isActionName(done) ? ACTION_WORDS[done].done : undefined;
    return reply.type('text/html; charset=utf-8').send(await render(session, order, { notice, problem: sessions.flash.read(session, request.query).problem }));
  });

  /** The order actions (docs/contract.md §7.5) through OrderActions, the service the partner API uses. */
  app.post('/cabinet/orders/:order_id/actions/:action', { schema: { hide: true }, preHandler: sessions.permitted('orders') }, async (request, reply) => {
    const session = sessionOf(request);
    const { order_id, action } = request.params as { order_id: string; action: string };
    const order = await ownOrder(session, order_id);
    if (order === undefined || !isActionName(action)) return sessions.flash.redirect(reply, session, '/cabinet/orders', 'problem', 'There is no order of yours with this id, or no such action.');
    const tag = formField(request, 'refund_address_tag')?.trim();
    const asked: ActionRequest =
      action === 'set_refund_address'
        ? { action, refundAddress: (formField(request, 'refund_address') ?? '').trim(), refundAddressTag: tag === '' ? undefined : tag }
        : { action };
    try {
      await orderActions.perform(order, asked, { userId: session.userId });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code === 'not_found') throw error;
      return sessions.flash.redirect(reply, session, `/cabinet/orders/${order.id}`, 'problem', error.message);
    }
    return reply.redirect(`/cabinet/orders/${order.id}?done=${action}`, 303);
  });
}
