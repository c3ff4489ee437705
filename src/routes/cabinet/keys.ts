import type { FastifyReply } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { CANONICAL_UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import { html } from './html.js';
import { can, confirmForm, csrfField, page, roleNote, time } from './layout.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

const KEY_ID = /^pk_[a-z0-9_]{4,61}$/;
const LABEL_MAX = 64;

/**
 * The partner's API keys (docs/contract.md §9): create a live or sandbox key with a label; the form's
 * answer is a redirect (post, redirect, get) to the list with a one-use reveal, and that page
 * shows the key once, with a copy button: a reload (or Back, or any later request) shows no key
 * and never posts the form again. List with last use; revoke (another partner's key id is a 404).
 */
export function registerCabinetKeys(app: App, { apiKeys, cabinet }: Services, sessions: CabinetSessions): void {
  const keysPage = async (session: CabinetSession, options: { issued?: { key_id: string; api_key: string }; notice?: string; problem?: string } = {}) => {
    // The keys of the cabinet's mode (docs/contract.md §9.1): live keys, or sandbox ones in test mode.
    const sandbox = session.mode === 'sandbox';
    const keys = await apiKeys.listForCabinet(session.partnerId, sandbox);
    const { issued } = options;
    const listed = issued === undefined ? undefined : keys.find((key) => key.key_id === issued.key_id);
    const shown = issued === undefined
      ? ''
      : html`<section class="secret" aria-labelledby="new-key-title">
<h2 id="new-key-title">Your new ${listed?.sandbox === true ? 'sandbox' : 'live'} key “${listed?.label ?? issued.key_id}”</h2>
<p>Copy it now and keep it in your server's secrets: it is shown only this once.</p>
<label>API key <input type="text" id="new-key" value="${issued.api_key}" readonly spellcheck="false" autocomplete="off"></label>
<p><button type="button" data-copy="new-key" hidden>Copy key</button> <span id="new-key-status" role="status"></span></p>
</section>`;
    const lastUsed = (key: (typeof keys)[number]) => (apiKeys.usedSinceFlush(key.key_id) ? html`in the last minute` : key.last_used_at === null ? html`never` : time(key.last_used_at));
    return page({
      title: 'API keys',
      session,
      active: '/cabinet/keys',
      notice: options.notice,
      problem: options.problem,
      body: html`${shown}
<h2>Create a ${sandbox ? 'sandbox' : 'live'} key</h2>
<p class="hint">${sandbox
    ? 'Sandbox keys (pk_test_…) make orders that run on the simulator: no real funds. Switch to live mode for live keys.'
    : 'Live keys make real orders. Switch to test mode for sandbox keys (pk_test_…) that run on the simulator.'}</p>
${can(session, 'keys')
  ? html`<form method="post" action="/cabinet/keys" class="stack">
  ${csrfField(session.csrf)}
  <input type="hidden" name="kind" value="${sandbox ? 'sandbox' : 'live'}">
  <label>Label <input type="text" name="label" required maxlength="${LABEL_MAX}" placeholder="e.g. production server"></label>
  <fieldset>
    <legend>Where it is used</legend>
    <label class="check"><input type="radio" name="scope" value="full" checked> Server (pk_…): every API route; keep it secret on your server</label>
    <label class="check"><input type="radio" name="scope" value="client"> App (pk_client_…): safe to ship inside an app or web page; it can quote, check addresses, create orders and read the orders it created, nothing else (web pages also need their origin in Settings)</label>
  </fieldset>
  <button type="submit">Create key</button>
</form>`
  : roleNote(session, 'creating and revoking keys needs a developer or an owner')}
<h2>Your ${sandbox ? 'sandbox' : 'live'} keys</h2>
${keys.length === 0
  ? html`<p>No ${sandbox ? 'sandbox' : 'live'} keys yet.</p>`
  : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">Label</th><th scope="col">Key id</th><th scope="col">Kind</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
<tbody>${keys.map(
  (key) => html`<tr>
<td data-label="Label">${key.label ?? '—'}</td>
<td data-label="Key id" class="mono">${key.key_id}</td>
<td data-label="Kind">${key.sandbox ? 'sandbox' : 'live'}${key.scope === 'client' ? ', app (client)' : ''}</td>
<td data-label="Created">${time(key.created_at)}</td>
<td data-label="Last used">${lastUsed(key)}</td>
<td data-label="State"><div>${key.revoked_at !== null
    ? html`revoked ${time(key.revoked_at)}`
    : !can(session, 'keys')
      ? 'active'
      : key.sandbox
      ? html`<form method="post" action="/cabinet/keys/${key.key_id}/revoke" class="inline">${csrfField(session.csrf)}<button type="submit" class="danger">Revoke<span class="visually-hidden"> key ${key.label ?? key.key_id}</span></button></form>`
      : // A live key serves real orders: revoking it asks first.
        confirmForm({
          action: `/cabinet/keys/${key.key_id}/revoke`,
          csrf: session.csrf,
          label: html`Revoke…<span class="visually-hidden"> live key ${key.label ?? key.key_id}</span>`,
          question: 'Requests with this live key get 401 from the moment it is revoked, and it cannot be turned back on.',
          confirm: html`Yes, revoke<span class="visually-hidden"> live key ${key.label ?? key.key_id}</span>`,
        })}</div></td>
</tr>`,
)}</tbody>
</table></div>`}`,
    });
  };
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  app.get('/cabinet/keys', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const { done, created } = request.query as Record<string, unknown>;
    if (typeof created === 'string') {
      // The page a new key's form redirected to: the key once, then never again.
      const keyId = CANONICAL_UUID_PATTERN.test(created) ? await cabinet.reveals.take(session.found.session.id, created, 'api_key') : undefined;
      const apiKey = keyId === undefined ? undefined : await apiKeys.openOwn(session.partnerId, keyId);
      if (keyId !== undefined && apiKey !== undefined) return send(reply, await keysPage(session, { issued: { key_id: keyId, api_key: apiKey } }));
      return send(reply, await keysPage(session, { notice: 'A new key is shown only once, on the page right after it is created: it is not shown again. If you did not copy it, revoke it and create another.' }));
    }
    const flash = sessions.flash.read(session, request.query);
    return send(reply, await keysPage(session, { notice: done === 'revoked' ? 'The key is revoked: requests with it get 401 from now on.' : undefined, problem: flash.problem }));
  });

  app.post('/cabinet/keys', { schema: { hide: true }, preHandler: sessions.permitted('keys') }, async (request, reply) => {
    const session = sessionOf(request);
    const label = (formField(request, 'label') ?? '').trim();
    const kind = formField(request, 'kind');
    // No scope field (a form from before client keys): a server key, as before.
    const scope = formField(request, 'scope') ?? 'full';
    if (label === '' || [...label].length > LABEL_MAX || (kind !== 'live' && kind !== 'sandbox') || (scope !== 'full' && scope !== 'client')) {
      return sessions.flash.redirect(reply, session, '/cabinet/keys', 'problem', `Give the key a label (at most ${LABEL_MAX} characters) and choose its kind.`);
    }
    let issued: Awaited<ReturnType<typeof apiKeys.issue>>;
    try {
      issued = await apiKeys.issue(session.partnerId, { sandbox: kind === 'sandbox', label, scope });
    } catch (error) {
      // At the cap of unrevoked keys of the kind (MAX_API_KEYS_PER_PARTNER): said on the form.
      if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
      return sessions.flash.redirect(reply, session, '/cabinet/keys', 'problem', `You already have as many ${kind}${scope === 'client' ? ' app' : ''} keys as a partner may have: revoke one you no longer use, then create the new one.`);
    }
    await cabinet.mail.keyCreated(session.partnerId, { id: session.userId, email: session.found.email }, { keyId: issued.key_id, label, sandbox: kind === 'sandbox', scope });
    const reveal = await cabinet.reveals.offer(session.found.session.id, 'api_key', issued.key_id);
    // The page of the new key's mode, whichever mode the form was on.
    return reply.redirect(`/cabinet/keys?created=${reveal}${kind === 'sandbox' ? '&mode=test' : '&mode=live'}`, 303);
  });

  app.post('/cabinet/keys/:key_id/revoke', { schema: { hide: true }, preHandler: sessions.permitted('keys') }, async (request, reply) => {
    const session = sessionOf(request);
    const { key_id } = request.params as { key_id: string };
    if (!KEY_ID.test(key_id) || !(await apiKeys.revokeOwn(session.partnerId, key_id))) {
      return sessions.flash.redirect(reply, session, '/cabinet/keys', 'problem', 'There is no key of yours with this id (it may be revoked already).');
    }
    return reply.redirect('/cabinet/keys?done=revoked', 303);
  });
}
