import type { FastifyReply } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { listPartnerKeysForCabinet } from '../../db/repositories/api-keys-repository.js';
import type { IssuedKey } from '../../services/api-keys.js';
import { html } from './html.js';
import { csrfField, errorPage, page, time } from './layout.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

const KEY_ID = /^pk_[a-z0-9_]{4,61}$/;
const LABEL_MAX = 64;

/**
 * The partner's API keys (DESIGN §9): create a live or sandbox key with a label, shown once in
 * the answer to the form (the page is no-store, and the key is never written anywhere a later
 * request can read it); list with last use; revoke (another partner's key id is a 404).
 */
export function registerCabinetKeys(app: App, { database, apiKeys }: Services, sessions: CabinetSessions): void {
  const keysPage = async (session: CabinetSession, options: { issued?: IssuedKey & { label: string }; notice?: string; problem?: string } = {}) => {
    const keys = await listPartnerKeysForCabinet(database.db, session.partnerId);
    const { issued } = options;
    const shown = issued === undefined
      ? ''
      : html`<section class="secret" aria-labelledby="new-key-title">
<h2 id="new-key-title">Your new ${issued.sandbox ? 'sandbox' : 'live'} key “${issued.label}”</h2>
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
      body: html`${shown}
<h2>Create a key</h2>
<form method="post" action="/cabinet/keys" class="stack">
  ${csrfField(session.csrf)}
  ${options.problem === undefined ? '' : html`<p role="alert">${options.problem}</p>`}
  <label>Label <input type="text" name="label" required maxlength="${LABEL_MAX}" placeholder="e.g. production server"></label>
  <fieldset>
    <legend>Kind</legend>
    <label class="check"><input type="radio" name="kind" value="sandbox" checked> Sandbox (pk_test_…): orders run on the simulator, no real funds</label>
    <label class="check"><input type="radio" name="kind" value="live"> Live: real orders</label>
  </fieldset>
  <button type="submit">Create key</button>
</form>
<h2>Your keys</h2>
${keys.length === 0
  ? html`<p>No keys yet.</p>`
  : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">Label</th><th scope="col">Key id</th><th scope="col">Kind</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
<tbody>${keys.map(
  (key) => html`<tr>
<td data-label="Label">${key.label ?? '—'}</td>
<td data-label="Key id" class="mono">${key.key_id}</td>
<td data-label="Kind">${key.sandbox ? 'sandbox' : 'live'}</td>
<td data-label="Created">${time(key.created_at)}</td>
<td data-label="Last used">${lastUsed(key)}</td>
<td data-label="State">${key.revoked_at === null
    ? html`<form method="post" action="/cabinet/keys/${key.key_id}/revoke" class="inline">${csrfField(session.csrf)}<button type="submit" class="danger" aria-label="Revoke key ${key.label ?? key.key_id}">Revoke</button></form>`
    : html`revoked ${time(key.revoked_at)}`}</td>
</tr>`,
)}</tbody>
</table></div>`}`,
    });
  };
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  app.get('/cabinet/keys', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const done = (request.query as Record<string, unknown>).done;
    return send(reply, await keysPage(sessionOf(request), { notice: done === 'revoked' ? 'The key is revoked: requests with it get 401 from now on.' : undefined }));
  });

  app.post('/cabinet/keys', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const label = (formField(request, 'label') ?? '').trim();
    const kind = formField(request, 'kind');
    if (label === '' || [...label].length > LABEL_MAX || (kind !== 'live' && kind !== 'sandbox')) {
      return send(reply, await keysPage(session, { problem: `Give the key a label (at most ${LABEL_MAX} characters) and choose its kind.` }), 400);
    }
    const issued = await apiKeys.issue(session.partnerId, { sandbox: kind === 'sandbox', label });
    return send(reply, await keysPage(session, { issued: { ...issued, label } }), 201);
  });

  app.post('/cabinet/keys/:key_id/revoke', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const { key_id } = request.params as { key_id: string };
    if (!KEY_ID.test(key_id) || !(await apiKeys.revokeOwn(session.partnerId, key_id))) {
      return send(reply, errorPage('Key not found', 'There is no key of yours with this id.'), 404);
    }
    return reply.redirect('/cabinet/keys?done=revoked', 303);
  });
}
