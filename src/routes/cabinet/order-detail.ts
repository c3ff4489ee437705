import QRCode from 'qrcode';
import type { App, Services } from '../../app-types.js';
import { listOrderEvents } from '../../db/repositories/order-events-repository.js';
import { findPartner } from '../../db/repositories/partners-repository.js';
import { statusAt } from '../../domain/order-status.js';
import { ApiError } from '../../errors.js';
import { html, trusted, type Html } from './html.js';
import { errorPage, page, time } from './layout.js';
import { amount, statusWords } from './format.js';
import { sessionOf, type CabinetSessions } from './session.js';

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
 * deposit QR code and explorer links.
 */
export function registerCabinetOrderDetail(app: App, { database, clock, orders, catalog }: Services, sessions: CabinetSessions): void {
  app.get('/cabinet/orders/:order_id', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const partner = await findPartner(database.db, session.partnerId);
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    const { order_id } = request.params as { order_id: string };
    let order;
    try {
      order = await orders.get(partner, order_id);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') {
        return reply.code(404).type('text/html; charset=utf-8').send(errorPage('Order not found', 'There is no order of yours with this id.'));
      }
      throw error;
    }
    const events = await listOrderEvents(database.db, order.id);
    const now = clock.now();
    const status = statusAt(order.status, order.expires_at, now);
    const from = catalog.all().find((row) => row.coin === order.coin_from && row.network === order.network_from);
    const to = catalog.all().find((row) => row.coin === order.coin_to && row.network === order.network_to);
    const qr = await QRCode.toString(order.deposit_uri ?? order.deposit_address, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    const body = html`<dl class="facts">
<dt>Status</dt><dd>${statusWords(status)}${order.status_reason === null ? '' : html` (${order.status_reason})`}</dd>
<dt>Order id</dt><dd class="mono">${order.id}</dd>
<dt>Created</dt><dd>${time(order.created_at)}</dd>
<dt>Expires</dt><dd>${time(order.expires_at)}</dd>
<dt>Send</dt><dd>${amount(order.amount_from_expected)} ${order.coin_from} (${order.network_from})</dd>
<dt>Receive</dt><dd>${amount(order.amount_to_expected)} ${order.coin_to} (${order.network_to}), ${order.rate_type} rate</dd>
<dt>Received</dt><dd>${order.amount_from_received === null ? '—' : html`${amount(order.amount_from_received)} ${order.coin_from}`}</dd>
<dt>Deposit address</dt><dd>${explorerLink(from?.explorer_address_url, '{address}', order.deposit_address)}${order.deposit_address_tag === null ? '' : html` tag <span class="mono">${order.deposit_address_tag}</span>`}</dd>
<dt>Recipient</dt><dd>${explorerLink(to?.explorer_address_url, '{address}', order.recipient_address)}</dd>
<dt>Deposit transaction</dt><dd>${explorerLink(from?.explorer_tx_url, '{txid}', order.deposit_txid)}${order.deposit_confirmations === null ? '' : html` (${order.deposit_confirmations} of ${order.deposit_confirmations_required} confirmations)`}</dd>
<dt>Payout transaction</dt><dd>${explorerLink(to?.explorer_tx_url, '{txid}', order.payout_txid)}</dd>
<dt>Refund transaction</dt><dd>${explorerLink(from?.explorer_tx_url, '{txid}', order.refund_txid)}</dd>
${order.sandbox ? html`<dt>Sandbox</dt><dd>yes: a test order on the simulator</dd>` : ''}
</dl>
<h2>Deposit QR code</h2>
<figure class="qr" role="img" aria-label="QR code of the deposit ${order.deposit_uri === null ? 'address' : 'payment link'}">${trusted(qr)}</figure>
<h2>Timeline</h2>
<ol class="timeline">${events.map(
  (event) => html`<li>${time(event.created_at)}: ${event.from_status === null ? 'created' : html`${statusWords(event.from_status)} → ${statusWords(event.to_status)}`}${event.from_status === null ? html` (${statusWords(event.to_status)})` : ''}${event.reason === null ? '' : html`, ${event.reason}`}</li>`,
)}</ol>
<p><a href="/cabinet/orders${order.sandbox ? '?sandbox=1' : ''}">All orders</a></p>`;
    return reply.type('text/html; charset=utf-8').send(page({ title: `Order ${order.short_id}`, session, active: '/cabinet/orders', body }));
  });
}
