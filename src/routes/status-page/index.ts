import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import QRCode from 'qrcode';
import type { App, Services } from '../../app-types.js';
import { publicOrderView, type PublicOrderRow } from '../../views/public-order-view.js';
import { FINAL_STATUSES, statusAt, type OrderStatus } from '../../domain/order-status.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { html, trusted, type Html } from '../cabinet/html.js';

/**
 * /status/{token} (no key; docs/contract.md §10.10): the end user's page of one order, the HTML twin of
 * GET /api/v1/public/orders/{token}. Plain HTML under the service's CSP (one stylesheet of this
 * origin, and one script of this origin that it does not need): every value goes through the
 * escaping template of the cabinet (routes/cabinet/html.ts), the QR code is SVG this server
 * draws. It shows exactly the public view's fields (the order's amounts, addresses and status),
 * nothing of the partner. While the order can still move, a browser without JavaScript loads it
 * again every 30 seconds (a meta refresh inside <noscript>); where the script (status.js) runs,
 * the page follows the order's status stream instead and shows each move as it happens (docs/contract.md
 * §10.11). An unknown link is a 404: a page for a browser (Accept text/html), the JSON error
 * envelope for anything else.
 */

const STYLESHEET = readFileSync(new URL('./status.css', import.meta.url));
const STYLESHEET_PATH = '/status/assets/status.css';
/** The page's script (status.js): it follows the order's status stream; the page works without it. */
const SCRIPT = readFileSync(new URL('./status.js', import.meta.url));
const SCRIPT_PATH = '/status/assets/status.js';
/** Seconds between reloads while the order can still move. */
const REFRESH_SECONDS = 30;


/** The status in words for the end user, and what happens next. */
const STATUS_TEXT: Readonly<Record<OrderStatus, { title: string; next: string; tone?: 'good' | 'bad' }>> = {
  waiting_deposit: { title: 'Waiting for your deposit', next: 'Send the amount below to the deposit address before the order expires.' },
  confirming: { title: 'Deposit received, confirming', next: 'Your deposit was seen on the network and is waiting for confirmations.' },
  exchanging: { title: 'Exchanging', next: 'Your deposit is confirmed and is being exchanged.' },
  sending: { title: 'Sending', next: 'The exchanged amount is being sent to the recipient address.' },
  completed: { title: 'Completed', next: 'The exchange is done and the payout was sent.', tone: 'good' },
  expired: { title: 'Expired', next: 'No deposit arrived in time. Do not send anything to this address any more.', tone: 'bad' },
  refunding: { title: 'Refunding', next: 'The exchange could not be made; your deposit is being returned.' },
  refunded: { title: 'Refunded', next: 'Your deposit was returned.', tone: 'bad' },
  failed: { title: 'Failed', next: 'The exchange could not be completed. Contact the service you made it with, quoting the order id.', tone: 'bad' },
};

/** The amounts as the Order writes them (exact decimals), as text for the page. */
function amountText(view: Record<string, unknown>, field: string): string | null {
  const value = view[field];
  return value === null || value === undefined ? null : toJson(value);
}

/** A UTC time a person reads: `2026-06-15 12:30 UTC`. */
function timeText(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

async function statusPage(order: PublicOrderRow & { version: number }, token: string, now: Date): Promise<{ body: string; final: boolean }> {
  const status = statusAt(order.status, order.expires_at, now);
  const text = STATUS_TEXT[status];
  const view = publicOrderView(order, now);
  const from = `${order.coin_from} (${order.network_from})`;
  const to = `${order.coin_to} (${order.network_to})`;
  const sendAmount = amountText(view, 'amount_from_expected');
  let deposit: Html | string = '';
  if (status === 'waiting_deposit') {
    const qr = await QRCode.toString(order.deposit_uri ?? order.deposit_address, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    deposit = html`<h2>Deposit</h2>
<dl>
<dt>Send exactly</dt><dd class="mono">${sendAmount} ${from}</dd>
<dt>To address</dt><dd class="mono">${order.deposit_address}</dd>
${order.deposit_address_tag === null ? '' : html`<dt>Memo / tag</dt><dd class="mono">${order.deposit_address_tag} <strong>(required: without it the deposit is lost)</strong></dd>`}
<dt>Before</dt><dd>${timeText(order.expires_at)}</dd>
</dl>
<div class="qr" role="img" aria-label="QR code of the deposit">${trusted(qr)}</div>
${order.deposit_uri === null ? '' : html`<p><a class="wallet" href="${order.deposit_uri}">Open in a wallet</a></p>`}`;
  }
  const finalAmount = amountText(view, 'amount_to_final');
  const transactions: [string, string | null][] = [
    ['Deposit', order.deposit_txid],
    ['Payout', order.payout_txid],
    ['Refund', order.refund_txid],
  ];
  const sent = transactions.filter((entry): entry is [string, string] => entry[1] !== null);
  const final = FINAL_STATUSES.has(status);
  const body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${final ? '' : trusted(`<noscript><meta http-equiv="refresh" content="${REFRESH_SECONDS}"></noscript>`)}
<title>Order ${order.short_id}: ${text.title}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${final ? '' : html`<script src="${SCRIPT_PATH}" defer></script>`}
</head>
<body>
${final ? trusted('<main>') : html`<main data-stream="/api/v1/public/orders/${token}/stream" data-version="${String(order.version)}">`}
<h1>Order <span class="mono">${order.short_id}</span></h1>
<p class="status${text.tone === undefined ? '' : ` ${text.tone}`}" role="status">${text.title}</p>
<p class="hint">${text.next}${final ? '' : html`<span data-refresh-note> This page refreshes every ${String(REFRESH_SECONDS)} seconds.</span>`}</p>
${deposit}
<h2>Exchange</h2>
<dl>
<dt>You send</dt><dd class="mono">${sendAmount} ${from}</dd>
<dt>You receive</dt><dd class="mono">${finalAmount ?? `about ${amountText(view, 'amount_to_expected')}`} ${to}</dd>
<dt>Created</dt><dd>${timeText(order.created_at)}</dd>
<dt>Updated</dt><dd>${timeText(order.updated_at)}</dd>
</dl>
${sent.length === 0 ? '' : html`<h2>Transactions</h2>
<dl>${sent.map(([label, txid]) => html`<dt>${label}</dt><dd class="mono">${txid}</dd>`)}</dl>`}
</main>
</body>
</html>
`;
  return { body: body.text, final };
}

function notFoundPage(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>Order not found</title><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><main><h1>Order not found</h1><p>No order has this status link. Check that the whole link was copied.</p></main></body>
</html>
`;
}

export function registerStatusPage(app: App, { orders, clock }: Services): void {
  app.get(STYLESHEET_PATH, { schema: { hide: true } }, (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );
  app.get(SCRIPT_PATH, { schema: { hide: true } }, (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );
  app.get(
    '/status/:token',
    { schema: { hide: true, params: Type.Object({ token: Type.String() }) } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
      try {
        const order = await orders.findByStatusToken(request.params.token);
        const page = await statusPage(order, request.params.token, clock.now());
        return reply.send(page.body);
      } catch (error) {
        // A browser (it asks for HTML) gets a page; any other client the JSON error, as everywhere.
        const browser = /\btext\/html\b/.test(request.headers.accept ?? '');
        if (browser && error instanceof ApiError && error.code === 'not_found') return reply.code(404).send(notFoundPage());
        reply.removeHeader('content-type');
        throw error;
      }
    },
  );
}
