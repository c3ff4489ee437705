import type { App, Services } from '../../app-types.js';
import { csvField, csvRecord } from '../../domain/csv.js';
import { CommissionStatements } from '../../services/commission-statements.js';
import type { PayoutAddressChange } from '../../services/partner-payout-addresses.js';
import { html } from './html.js';
import { can, confirmForm, csrfField, page, roleNote, time } from './layout.js';
import { formField, sessionOf, type CabinetSessions } from './session.js';

const PROBLEMS: Record<Exclude<PayoutAddressChange, { ok: true }>['problem'], string> = {
  'unknown-currency': 'Choose a currency from the list.',
  'wrong-password': 'The password is not right. Nothing was changed.',
  'wrong-code': 'The two-factor code is not right or was already used. Nothing was changed.',
  'no-two-factor': 'Turn on two-factor authentication (Account) first: a payout address can be changed only with a code.',
  'invalid-address': 'That is not an address of the chosen network.',
};

/**
 * GET/POST /cabinet/payouts: where the partner's commission is paid, per currency
 * (docs/contract.md §11.6). Owners only: a new address needs the person's password and a current two-factor code, takes
 * effect 24 hours later (shown as pending, cancellable meanwhile), and every person of the
 * partner is told by mail (services/partner-payout-addresses.ts). Any person may cancel a pending
 * change: cancelling moves no money, and it is how a team stops a change made from a stolen session.
 */
export function registerCabinetPayouts(app: App, { payoutAddresses, database, catalog }: Services, sessions: CabinetSessions): void {
  const statements = new CommissionStatements(database.db, catalog);
  app.get('/cabinet/payouts', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const flash = sessions.flash.read(session, request.query);
    const done = (request.query as Record<string, unknown>).done;
    const notice = done === 'requested' ? 'The new address takes effect in 24 hours. Everyone of your team was told by mail.' : done === 'cancelled' ? 'The pending change was cancelled.' : undefined;
    const views = await payoutAddresses.list(session.partnerId);
    const rows = views.filter((view) => view.current !== undefined || view.pending !== undefined);
    const lines = await statements.lines(session.partnerId);
    const body = html`<h2>Statements</h2>
${lines.length === 0
  ? html`<p>No commission yet.</p>`
  : html`<table><thead><tr><th scope="col">Month (UTC)</th><th scope="col">Currency</th><th scope="col">Orders</th><th scope="col">Commission</th><th scope="col">Paid</th><th scope="col">Transaction</th></tr></thead><tbody>${lines.map(
      (line) => html`<tr><td>${line.period}</td><td>${line.coin} (${line.network})</td><td>${line.orders}</td><td>${line.commission}</td><td>${line.paid === null ? 'not yet' : html`${line.paid} (${line.status ?? ''})`}</td><td>${line.txid === null ? '—' : line.txUrl === null ? html`<code>${line.txid}</code>` : html`<a href="${line.txUrl}" rel="noopener noreferrer"><code>${line.txid}</code></a>`}</td></tr>`,
    )}</tbody></table>`}
<p><a href="/cabinet/payouts/statements.csv" download>Download statements (CSV)</a></p>
<h2>Commission payout addresses</h2>
<p>Your commission is paid each month, per currency, to the address in force for it. A new or changed address takes effect 24 hours after it is asked for, and everyone of your team is told by mail.</p>
${rows.length === 0
  ? html`<p>No payout address yet: commission is owed but not paid until you set one.</p>`
  : html`<table><thead><tr><th scope="col">Currency</th><th scope="col">Address in force</th><th scope="col">Pending change</th></tr></thead><tbody>${rows.map(
      (view) => html`<tr><td>${view.currency.coin} (${view.currency.network})</td><td>${view.current === undefined ? 'none' : html`<code>${view.current.address}</code>${view.current.tag === null ? '' : html` tag <code>${view.current.tag}</code>`}`}</td><td>${
        view.pending === undefined
          ? '—'
          : html`<code>${view.pending.address}</code>${view.pending.tag === null ? '' : html` tag <code>${view.pending.tag}</code>`}, in force from ${time(view.pending.effective_at)} ${confirmForm({
              action: '/cabinet/payouts/cancel',
              csrf: session.csrf,
              label: 'Cancel change',
              question: `Cancel the change of the ${view.currency.coin} (${view.currency.network}) payout address?`,
              confirm: 'Cancel the change',
              fields: html`<input type="hidden" name="currency_id" value="${view.currency.id}">`,
            })}`
      }</td></tr>`,
    )}</tbody></table>`}
<h2>Set a payout address</h2>
${!can(session, 'payout_addresses')
  ? roleNote(session, 'setting a payout address needs an owner')
  : html`<form method="post" action="/cabinet/payouts" class="stack">
  ${csrfField(session.csrf)}
  <label>Currency
    <select name="currency_id" required>${views.map((view) => html`<option value="${view.currency.id}">${view.currency.coin} (${view.currency.network})</option>`)}</select>
  </label>
  <label>Address <input type="text" name="address" required maxlength="200" autocomplete="off" spellcheck="false"></label>
  <label>Tag or memo (only where the network uses one) <input type="text" name="tag" maxlength="100" autocomplete="off"></label>
  <label>Your password <input type="password" name="password" required autocomplete="current-password"></label>
  <label>Two-factor code <input type="text" name="code" required inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"></label>
  <button type="submit">Set address (in force in 24 hours)</button>
</form>`}`;
    return reply.type('text/html; charset=utf-8').send(page({ title: 'Payouts', session, active: '/cabinet/payouts', notice, problem: flash.problem, body }));
  });

  app.get('/cabinet/payouts/statements.csv', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const lines = await statements.lines(session.partnerId);
    const csv = [
      csvRecord(['period', 'coin', 'network', 'orders', 'commission', 'paid', 'status', 'txid']),
      ...lines.map((line) => csvRecord([line.period, line.coin, line.network, String(line.orders), line.commission, line.paid ?? '', line.status ?? '', line.txid ?? ''].map((field) => csvField(field)))),
    ].join('');
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="commission-statements.csv"').send(csv);
  });

  app.post('/cabinet/payouts', { schema: { hide: true }, preHandler: sessions.permitted('payout_addresses') }, async (request, reply) => {
    const session = sessionOf(request);
    const tag = (formField(request, 'tag') ?? '').trim();
    const result = await payoutAddresses.request(
      session.partnerId,
      { id: session.userId, email: session.found.email },
      {
        currencyId: formField(request, 'currency_id') ?? '',
        address: (formField(request, 'address') ?? '').trim(),
        tag: tag === '' ? undefined : tag,
        password: formField(request, 'password') ?? '',
        code: (formField(request, 'code') ?? '').trim(),
      },
    );
    if (result.ok) return reply.redirect('/cabinet/payouts?done=requested', 303);
    const problem = result.problem === 'invalid-address' && result.reason !== undefined ? `${PROBLEMS[result.problem]} (${result.reason})` : PROBLEMS[result.problem];
    return sessions.flash.redirect(reply, session, '/cabinet/payouts?done=refused', 'problem', problem);
  });

  app.post('/cabinet/payouts/cancel', { schema: { hide: true }, preHandler: sessions.partnerAction }, async (request, reply) => {
    const session = sessionOf(request);
    const cancelled = await payoutAddresses.cancel(session.partnerId, { id: session.userId, email: session.found.email }, formField(request, 'currency_id') ?? '');
    if (cancelled) return reply.redirect('/cabinet/payouts?done=cancelled', 303);
    return sessions.flash.redirect(reply, session, '/cabinet/payouts?done=refused', 'problem', 'No change was pending for that currency.');
  });
}
