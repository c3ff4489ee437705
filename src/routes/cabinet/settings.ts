import type { App, Services } from '../../app-types.js';
import type { PartnerRow } from '../../db/schema/partners.js';
import { CORS_ORIGINS_MAX } from '../../domain/web-origin.js';
import { ApiError } from '../../errors.js';
import { checkedCorsOrigins } from '../../services/cors-origins.js';
import { html } from './html.js';
import { can, csrfField, page, roleNote } from './layout.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

const percent = (bps: number): string => `${(bps / 100).toFixed(2)} %`;

/**
 * GET/POST /cabinet/settings: the partner's own markup on its quotes, within the operator's cap
 * (PARTNER_MARKUP_MAX_BPS), and the web origins whose pages may use its client keys (docs/contract.md §10.9).
 * A change reaches the partner's keys at once in every process,
 * as an operator's change does (ApiKeyService.forgetPartner).
 */
export function registerCabinetSettings(app: App, { partners, config }: Services, sessions: CabinetSessions): void {
  const cap = config.cabinet.partnerMarkupMaxBps;
  const settingsPage = (
    session: CabinetSession,
    partner: PartnerRow,
    options: { notice?: string; problem?: string; originsProblem?: string } = {},
  ) =>
    page({
      title: 'Settings',
      session,
      active: '/cabinet/settings',
      notice: options.notice,
      body: html`<h2>Your markup</h2>
<p>Your markup is added to every rate your keys quote, and is what you earn on each order. Now: <strong>${partner.markup_bps} basis points (${percent(partner.markup_bps)})</strong>.</p>
${can(session, 'markup')
  ? html`<form method="post" action="/cabinet/settings" class="stack">
  ${csrfField(session.csrf)}
  ${options.problem === undefined ? '' : html`<p role="alert">${options.problem}</p>`}
  <label>Markup in basis points (100 = 1 %)
    <input type="number" name="markup_bps" min="0" max="${cap}" step="1" required value="${partner.markup_bps}" aria-describedby="markup-hint">
  </label>
  <p class="hint" id="markup-hint">From 0 to ${cap} (${percent(cap)}), the most the operator allows.</p>
  <button type="submit">Save markup</button>
</form>`
  : roleNote(session, 'changing the markup needs an owner')}
<h2>Web pages that may use your app keys</h2>
<p>A web page may call the API with an app key (pk_client_…) only from the origins listed here (CORS). Servers and mobile apps need none.</p>
${can(session, 'integration_settings')
  ? html`<form method="post" action="/cabinet/settings/cors-origins" class="stack">
  ${csrfField(session.csrf)}
  ${options.originsProblem === undefined ? '' : html`<p role="alert">${options.originsProblem}</p>`}
  <label>Allowed origins, one per line
    <textarea name="cors_origins" rows="4" aria-describedby="origins-hint">${partner.cors_origins.join('\n')}</textarea>
  </label>
  <p class="hint" id="origins-hint">As a browser sends them: https://wallet.example or http://localhost:5173 (scheme, host and port; no path). At most ${CORS_ORIGINS_MAX}; empty: none.</p>
  <button type="submit">Save origins</button>
</form>`
  : roleNote(session, 'changing the origins needs a developer or an owner')}
<h2>Limits set by the operator</h2>
<dl class="facts"><dt>Requests per minute, per key</dt><dd>${partner.rate_limit_per_minute}</dd></dl>`,
    });

  /** What the page says after each form's 303 (`?done=`), from the partner as it is now. */
  const doneNotice = (done: unknown, partner: PartnerRow): string | undefined => {
    if (done === 'markup') return `Your markup is now ${partner.markup_bps} basis points (${percent(partner.markup_bps)}).`;
    if (done === 'origins') return partner.cors_origins.length === 0 ? 'No web page may use your app keys now.' : `Web pages of ${partner.cors_origins.join(', ')} may use your app keys.`;
    return undefined;
  };

  app.get('/cabinet/settings', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const partner = await partners.find(session.partnerId);
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    const flash = sessions.flash.read(session, request.query);
    const done = (request.query as Record<string, unknown>).done;
    // A refused form comes back with its problem beside the form it belongs to.
    const options = done === 'origins-refused' ? { originsProblem: flash.problem } : { problem: flash.problem };
    return reply.type('text/html; charset=utf-8').send(settingsPage(session, partner, { notice: doneNotice(done, partner), ...options }));
  });

  app.post('/cabinet/settings', { schema: { hide: true }, preHandler: sessions.permitted('markup') }, async (request, reply) => {
    const session = sessionOf(request);
    const typed = (formField(request, 'markup_bps') ?? '').trim();
    const value = /^[0-9]{1,4}$/.test(typed) ? Number(typed) : NaN;
    if (!(value >= 0 && value <= cap)) {
      return sessions.flash.redirect(reply, session, '/cabinet/settings?done=markup-refused', 'problem', `The markup must be a whole number from 0 to ${cap} (you typed “${typed.slice(0, 20)}”).`);
    }
    const partner = await partners.update(session.partnerId, { markup_bps: value });
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    return reply.redirect('/cabinet/settings?done=markup', 303);
  });

  // docs/contract.md §10.9: the partner's cors_origins, as the operator's PATCH /admin/v1/partners/{id} sets them.
  app.post('/cabinet/settings/cors-origins', { schema: { hide: true }, preHandler: sessions.permitted('integration_settings') }, async (request, reply) => {
    const session = sessionOf(request);
    const typed = formField(request, 'cors_origins') ?? '';
    const lines = typed.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
    let origins: string[];
    try {
      origins = checkedCorsOrigins(lines);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return sessions.flash.redirect(reply, session, '/cabinet/settings?done=origins-refused', 'problem', error.message);
    }
    const partner = await partners.update(session.partnerId, { cors_origins: origins });
    if (partner === undefined) throw new Error('session of a partner that does not exist');
    return reply.redirect('/cabinet/settings?done=origins', 303);
  });
}
