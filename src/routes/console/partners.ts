import type { FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import type { PartnerRow } from '../../db/schema/partners.js';
import { isKeyId } from '../../domain/api-key-format.js';
import { roleAtLeast } from '../../domain/operator-roles.js';
import { UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import { EMAIL_PATTERN } from '../../services/account-secrets.js';
import { CommissionStatements } from '../../services/commission-statements.js';
import { cabinetLinkBase } from '../admin/cabinet-link-base.js';
import type { Flash } from '../cabinet/flash.js';
import { html, type Html } from '../cabinet/html.js';
import { confirmForm, csrfField, time } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { act, backTo } from './actions.js';
import { actionButton } from './attention.js';
import { consoleErrorPage, consolePage, noticeOf } from './layout.js';
import { consoleSessionOf, type ConsoleSession, type ConsoleSessions } from './session.js';

const HTML = 'text/html; charset=utf-8';

const NOTICES: Readonly<Record<string, string>> = {
  created: 'The partner is created. Issue a key and invite its people below.',
  saved: 'The settings are saved: they apply to the partner’s next request.',
  suspended: 'The partner is suspended: its keys and cabinet stop working at once.',
  resumed: 'The partner is active again.',
  'key-revoked': 'The key is revoked: it stops working at once.',
  'person-removed': 'The person is removed from the cabinet and signed out everywhere.',
  'two-factor-cleared': 'Their two-factor is cleared: their next sign-in asks for the password only.',
  'sessions-ended': 'Every cabinet session of theirs is signed out.',
  enabled: 'The webhook endpoint is enabled again.',
  disabled: 'The webhook endpoint is disabled: its deliveries wait.',
  retried: 'The delivery is queued again.',
};

/** A whole number typed in a form, within bounds; undefined when left empty; a 400 in words otherwise. */
export function wholeNumber(value: string | undefined, label: string, min: number, max: number): number | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  if (!/^-?[0-9]{1,10}$/.test(text) || Number(text) < min || Number(text) > max) throw new ApiError('bad_request', `${label} must be a whole number from ${min} to ${max}.`);
  return Number(text);
}

const partnerLink = (partner: { id: string; name: string }) => html`<a href="/console/partners/${partner.id}">${partner.name}</a>`;

/**
 * Partners in the console (/console/partners): the list, a new partner, and one partner's page
 * with its settings (status, markup, limits), keys, cabinet people, webhook endpoints and their
 * deliveries, and commission statements. Each action calls the service its /admin/v1 route calls
 * and needs the role route-roles.ts gives that route.
 */
export function registerConsolePartners(app: App, services: Services, sessions: ConsoleSessions, flash: Flash): void {
  const { database, apiKeys, cabinet, webhooks, config, catalog, partners: settings } = services;
  const statements = new CommissionStatements(database.db, catalog);
  const viewer = { schema: { hide: true }, preHandler: sessions.required('viewer') };
  const support = { schema: { hide: true }, preHandler: sessions.required('support') };
  const admin = { schema: { hide: true }, preHandler: sessions.required('admin') };

  const partnerOf = async (request: FastifyRequest): Promise<PartnerRow> => {
    const { id } = request.params as { id: string };
    const partner = UUID_PATTERN.test(id) ? await settings.find(id.toLowerCase()) : undefined;
    if (partner === undefined) throw new ApiError('not_found', 'There is no such partner.');
    return partner;
  };

  app.get('/console/partners', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const partners = await settings.list(500);
    const read = flash.read(session, request.query);
    return reply.type(HTML).send(
      consolePage({
        title: 'Partners',
        session,
        active: '/console/partners',
        notice: read.notice,
        problem: read.problem,
        body: html`${roleAtLeast(session.role, 'admin')
          ? html`<section aria-labelledby="new-partner"><h2 id="new-partner">New partner</h2>
<form method="post" action="/console/partners" class="stack">${csrfField(session.csrf)}
<label>Name <input type="text" name="name" required maxlength="100" autocomplete="off"></label>
<label>Markup (basis points, 0–1000) <input type="text" inputmode="numeric" name="markup_bps" maxlength="4" autocomplete="off"></label>
<label>Requests per minute per key <input type="text" inputmode="numeric" name="rate_limit_per_minute" maxlength="7" autocomplete="off"></label>
<label>Open orders at most (empty: no cap) <input type="text" inputmode="numeric" name="max_open_orders" maxlength="7" autocomplete="off"></label>
<button type="submit">Create partner</button>
</form></section>`
          : ''}
<section aria-labelledby="all-partners"><h2 id="all-partners">All partners <span class="count">(${partners.length})</span></h2>
${partners.length === 0
  ? html`<p class="hint">No partner yet.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Partner</th><th scope="col">Status</th><th scope="col">Markup</th><th scope="col">Rate limit</th><th scope="col">Open orders cap</th><th scope="col">Since</th></tr></thead>
<tbody>${partners.map((partner) => html`<tr><td>${partnerLink(partner)}</td><td>${partner.status}</td><td>${partner.markup_bps} bps</td><td>${partner.rate_limit_per_minute}/min</td><td>${partner.max_open_orders ?? 'none'}</td><td>${time(partner.created_at)}</td></tr>`)}</tbody></table></div>`}
</section>`,
      }),
    );
  });

  app.post('/console/partners', admin, async (request, reply) => {
    const session = consoleSessionOf(request);
    const name = (formField(request, 'name') ?? '').trim();
    let created: PartnerRow;
    try {
      if (name === '' || name.length > 100) throw new ApiError('bad_request', 'Give the partner a name of at most 100 characters.');
      created = await settings.create({
        name,
        markup_bps: wholeNumber(formField(request, 'markup_bps'), 'Markup', 0, 1000),
        rate_limit_per_minute: wholeNumber(formField(request, 'rate_limit_per_minute'), 'The rate limit', 1, 1_000_000),
        max_open_orders: wholeNumber(formField(request, 'max_open_orders'), 'The open-order cap', 1, 1_000_000),
      });
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return flash.redirect(reply, session, '/console/partners', 'problem', error.message);
      throw error;
    }
    return reply.redirect(`/console/partners/${created.id}?done=created`, 303);
  });

  const partnerPage = async (session: ConsoleSession, partner: PartnerRow, parts: { notice?: string | undefined; problem?: string | undefined; reveal?: Html }) => {
    const back = `/console/partners/${partner.id}`;
    const canAdmin = roleAtLeast(session.role, 'admin');
    const canSupport = roleAtLeast(session.role, 'support');
    const [keys, people, endpoints, lines] = await Promise.all([apiKeys.list(partner.id), cabinet.people.list(partner.id), webhooks.list(partner.id, 100), statements.lines(partner.id)]);
    const deliveries = await Promise.all(endpoints.map((endpoint) => webhooks.deliveries(endpoint.id, partner.id, { limit: 5 })));
    const live = keys.filter((key) => key.revoked_at === null);
    return consolePage({
      title: `Partner ${partner.name}`,
      session,
      active: '/console/partners',
      notice: parts.notice,
      problem: parts.problem,
      body: html`${parts.reveal ?? ''}<dl class="facts">
<dt>Id</dt><dd class="mono">${partner.id}</dd>
<dt>Status</dt><dd>${partner.status}</dd>
<dt>Markup</dt><dd>${partner.markup_bps} bps</dd>
<dt>Rate limit</dt><dd>${partner.rate_limit_per_minute} requests per minute per key</dd>
<dt>Open orders cap</dt><dd>${partner.max_open_orders ?? 'none'}</dd>
<dt>Since</dt><dd>${time(partner.created_at)}</dd>
</dl>
<p><a href="/console/orders?q=${encodeURIComponent(partner.id)}">Orders of ${partner.name}</a></p>
${canAdmin
  ? html`<section aria-labelledby="settings"><h2 id="settings">Settings</h2>
<div class="actions">${partner.status === 'active'
      ? confirmForm({ action: `${back}/suspend`, csrf: session.csrf, label: `Suspend ${partner.name}`, question: 'Its API keys and cabinet stop working at once, in every process, until it is resumed.', confirm: `Suspend ${partner.name}` })
      : actionButton(session, `${back}/resume`, `Resume ${partner.name}`, back)}</div>
<form method="post" action="${back}/settings" class="stack">${csrfField(session.csrf)}
<label>Markup (basis points, 0–1000) <input type="text" inputmode="numeric" name="markup_bps" maxlength="4" value="${String(partner.markup_bps)}" autocomplete="off"></label>
<label>Requests per minute per key <input type="text" inputmode="numeric" name="rate_limit_per_minute" maxlength="7" value="${String(partner.rate_limit_per_minute)}" autocomplete="off"></label>
<label>Open orders at most (empty: no cap) <input type="text" inputmode="numeric" name="max_open_orders" maxlength="7" value="${partner.max_open_orders === null ? '' : String(partner.max_open_orders)}" autocomplete="off"></label>
<button type="submit">Save settings</button>
</form></section>`
  : ''}
<section aria-labelledby="keys"><h2 id="keys">API keys <span class="count">(${live.length} live)</span></h2>
${keys.length === 0
  ? html`<p class="hint">No key yet.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Key</th><th scope="col">Kind</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Revoked</th><th scope="col">Action</th></tr></thead>
<tbody>${keys.map((key) => html`<tr><td class="mono">${key.key_id}</td><td>${key.sandbox ? 'sandbox' : 'live'}</td><td>${key.scope}</td><td>${time(key.created_at)}</td><td>${time(key.revoked_at)}</td><td>${key.revoked_at === null && canAdmin ? confirmForm({ action: `/console/keys/${key.key_id}/revoke`, csrf: session.csrf, label: `Revoke ${key.key_id}`, question: 'Every request with this key is refused from now on, in every process.', confirm: `Revoke ${key.key_id}`, fields: html`<input type="hidden" name="back" value="${back}">` }) : ''}</td></tr>`)}</tbody></table></div>`}
${canAdmin
  ? html`<form method="post" action="${back}/keys" class="inline">${csrfField(session.csrf)}
<label>Kind <select name="kind"><option value="live">live</option><option value="sandbox">sandbox</option></select></label>
<label>Scope <select name="scope"><option value="full">full</option><option value="client">client (quotes and orders from a browser)</option></select></label>
<button type="submit">Issue a key</button></form>`
  : ''}
</section>
<section aria-labelledby="people"><h2 id="people">Cabinet people <span class="count">(${people.length})</span></h2>
${people.length === 0
  ? html`<p class="hint">Nobody signs in to this partner’s cabinet yet.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Person</th><th scope="col">Two-factor</th><th scope="col">Sessions</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead>
<tbody>${people.map((person) => {
      const at = `${back}/people/${person.id}`;
      return html`<tr><td>${person.email}</td><td>${person.totp_enabled_at === null ? 'off' : 'on'}</td><td>${person.sessions}</td><td>${time(person.created_at)}</td><td>${canAdmin
        ? html`${actionButton(session, `${at}/end-sessions`, `End sessions of ${person.email}`, back)} ${actionButton(session, `${at}/clear-2fa`, `Clear two-factor of ${person.email}`, back)}
${confirmForm({ action: `${at}/remove`, csrf: session.csrf, label: `Remove ${person.email}`, question: `${person.email} is signed out everywhere and cannot sign in to this cabinet again.`, confirm: `Remove ${person.email}` })}`
        : ''}</td></tr>`;
    })}</tbody></table></div>`}
${canAdmin
  ? html`<form method="post" action="${back}/people" class="inline">${csrfField(session.csrf)}
<label>Email of the person to invite <input type="email" name="email" required maxlength="254" autocomplete="off"></label>
<button type="submit">Invite to the cabinet</button></form>`
  : ''}
</section>
<section aria-labelledby="webhooks"><h2 id="webhooks">Webhook endpoints <span class="count">(${endpoints.length})</span></h2>
${endpoints.length === 0
  ? html`<p class="hint">The partner has no webhook endpoint.</p>`
  : endpoints.map(
      (endpoint, index) => html`<h3 class="mono">${endpoint.url}</h3>
<p>${endpoint.enabled ? 'enabled' : `disabled${endpoint.disabled_reason === null ? '' : ` (${endpoint.disabled_reason})`}`}${endpoint.failing_since === null ? '' : html`, failing since ${time(endpoint.failing_since)}`}
${canSupport ? (endpoint.enabled ? actionButton(session, `/console/webhooks/${endpoint.id}/disable`, `Disable ${endpoint.url}`, back) : actionButton(session, `/console/webhooks/${endpoint.id}/enable`, `Enable ${endpoint.url}`, back)) : ''}</p>
${(deliveries[index] ?? []).length === 0
  ? html`<p class="hint">No delivery yet.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempt</th><th scope="col">Last answer</th><th scope="col">Created</th><th scope="col">Action</th></tr></thead>
<tbody>${(deliveries[index] ?? []).map((delivery) => html`<tr><td>${delivery.event_type}</td><td>${delivery.status}</td><td>${delivery.attempt}</td><td>${delivery.status_code === null ? (delivery.error ?? '—') : String(delivery.status_code)}</td><td>${time(delivery.created_at)}</td><td>${canSupport ? actionButton(session, `/console/webhooks/deliveries/${delivery.id}/retry`, `Redeliver ${delivery.event_type} ${delivery.id.slice(0, 8)}`, back) : ''}</td></tr>`)}</tbody></table></div>`}`,
    )}
</section>
<section aria-labelledby="statements"><h2 id="statements">Commission statements</h2>
${lines.length === 0
  ? html`<p class="hint">No commission yet.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Month</th><th scope="col">Currency</th><th scope="col">Orders</th><th scope="col">Commission</th><th scope="col">Paid</th><th scope="col">Payout</th></tr></thead>
<tbody>${lines.map((line) => html`<tr><td>${line.period}</td><td>${line.coin} (${line.network})</td><td>${line.orders}</td><td>${line.commission}</td><td>${line.paid ?? '—'}</td><td>${line.status ?? '—'}${line.txid === null ? '' : html` <span class="mono">${line.txid}</span>`}</td></tr>`)}</tbody></table></div>`}
</section>`,
    });
  };

  app.get('/console/partners/:id', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const { id } = request.params as { id: string };
    const partner = UUID_PATTERN.test(id) ? await settings.find(id.toLowerCase()) : undefined;
    if (partner === undefined) return reply.code(404).type(HTML).send(consoleErrorPage('Partner not found', 'There is no partner with this id.'));
    const read = flash.read(session, request.query);
    return reply.type(HTML).send(await partnerPage(session, partner, { notice: read.notice ?? noticeOf(request.query, NOTICES), problem: read.problem }));
  });

  const back = (request: FastifyRequest) => `/console/partners/${(request.params as { id: string }).id}`;

  for (const [action, status] of [
    ['suspend', 'suspended'],
    ['resume', 'active'],
  ] as const) {
    app.post(`/console/partners/:id/${action}`, admin, async (request, reply) =>
      act(reply, flash, consoleSessionOf(request), back(request), action === 'suspend' ? 'suspended' : 'resumed', async () => settings.change((await partnerOf(request)).id, { status })),
    );
  }

  app.post('/console/partners/:id/settings', admin, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), back(request), 'saved', async () => {
      const partner = await partnerOf(request);
      const cap = (formField(request, 'max_open_orders') ?? '').trim();
      await settings.change(partner.id, {
        markup_bps: wholeNumber(formField(request, 'markup_bps'), 'Markup', 0, 1000),
        rate_limit_per_minute: wholeNumber(formField(request, 'rate_limit_per_minute'), 'The rate limit', 1, 1_000_000),
        max_open_orders: cap === '' ? null : wholeNumber(cap, 'The open-order cap', 1, 1_000_000),
      });
    }),
  );

  // A new key and an invitation link are credentials: shown once on the answer to the form, never in a URL (so not behind a 303).
  app.post('/console/partners/:id/keys', admin, async (request, reply) => {
    const session = consoleSessionOf(request);
    const partner = await partnerOf(request).catch(() => undefined);
    if (partner === undefined) return reply.code(404).type(HTML).send(consoleErrorPage('Partner not found', 'There is no partner with this id.'));
    const scope = formField(request, 'scope') === 'client' ? 'client' : 'full';
    try {
      const issued = await apiKeys.issue(partner.id, { sandbox: formField(request, 'kind') === 'sandbox', scope });
      const reveal = html`<section class="reveal" aria-labelledby="issued"><h2 id="issued">New ${issued.sandbox ? 'sandbox' : 'live'} key ${issued.key_id}</h2>
<p>Give this key to the partner now: it is shown only once.</p>
<p><input id="key-value" class="mono" readonly value="${issued.api_key}" aria-label="The new API key"> <button type="button" data-copy="key-value" hidden>Copy</button> <span id="key-value-status" role="status"></span></p></section>`;
      return reply.header('cache-control', 'no-store').type(HTML).send(await partnerPage(session, partner, { reveal }));
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return flash.redirect(reply, session, back(request), 'problem', error.message);
      throw error;
    }
  });

  app.post('/console/keys/:key_id/revoke', admin, async (request, reply) => {
    const { key_id } = request.params as { key_id: string };
    return act(reply, flash, consoleSessionOf(request), backTo(formField(request, 'back'), '/console/partners'), 'key-revoked', async () => {
      const revoked = isKeyId(key_id) ? await apiKeys.revoke(key_id) : undefined;
      if (revoked === undefined) throw new ApiError('not_found', 'There is no such key.');
    });
  });

  app.post('/console/partners/:id/people', admin, async (request, reply) => {
    const session = consoleSessionOf(request);
    const email = (formField(request, 'email') ?? '').trim();
    try {
      const partner = await partnerOf(request);
      if (!EMAIL_PATTERN.test(email) || email.length > 254) throw new ApiError('bad_request', 'Give the email address of the person to invite.');
      if (await cabinet.invitations.emailTaken(email)) throw new ApiError('conflict', 'A cabinet account with this email exists already.');
      const invitation = await cabinet.invitations.invite(partner.id, email, cabinetLinkBase(config, request));
      const reveal = html`<section class="reveal" aria-labelledby="invited"><h2 id="invited">Invitation for ${email}</h2>
<p>Send this one-use link to the person: it sets their password for the cabinet. It is shown only now and works until ${time(invitation.expiresAt)}.</p>
<p><input id="invitation-link" class="mono" readonly value="${invitation.url}" aria-label="Invitation link"> <button type="button" data-copy="invitation-link" hidden>Copy</button> <span id="invitation-link-status" role="status"></span></p></section>`;
      return reply.header('cache-control', 'no-store').type(HTML).send(await partnerPage(session, partner, { reveal }));
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return flash.redirect(reply, session, back(request), 'problem', error.message);
      throw error;
    }
  });

  const personOf = (request: FastifyRequest): { partnerId: string; personId: string } => {
    const { id, person_id } = request.params as { id: string; person_id: string };
    if (!UUID_PATTERN.test(id) || !UUID_PATTERN.test(person_id)) throw new ApiError('not_found', 'This partner has no such person.');
    return { partnerId: id.toLowerCase(), personId: person_id.toLowerCase() };
  };
  const found = <T>(value: T | undefined | false): void => {
    if (value === undefined || value === false) throw new ApiError('not_found', 'This partner has no such person.');
  };
  app.post('/console/partners/:id/people/:person_id/remove', admin, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), back(request), 'person-removed', async () => {
      const { partnerId, personId } = personOf(request);
      found(await cabinet.people.remove(partnerId, personId, request.ip));
    }),
  );
  app.post('/console/partners/:id/people/:person_id/clear-2fa', admin, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), back(request), 'two-factor-cleared', async () => {
      const { partnerId, personId } = personOf(request);
      found(await cabinet.people.clearTwoFactor(partnerId, personId, request.ip));
    }),
  );
  app.post('/console/partners/:id/people/:person_id/end-sessions', admin, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), back(request), 'sessions-ended', async () => {
      const { partnerId, personId } = personOf(request);
      found(await cabinet.people.endSessions(partnerId, personId, request.ip));
    }),
  );

  app.post('/console/webhooks/deliveries/:id/retry', support, async (request, reply) => {
    const { id } = request.params as { id: string };
    return act(reply, flash, consoleSessionOf(request), backTo(formField(request, 'back'), '/console'), 'retried', async () => {
      if (!UUID_PATTERN.test(id)) throw new ApiError('not_found', 'There is no such delivery.');
      await webhooks.retry(id.toLowerCase());
    });
  });
}
