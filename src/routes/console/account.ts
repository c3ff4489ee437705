import type { App, Services } from '../../app-types.js';
import { isOperatorRole, OPERATOR_ROLES, roleAtLeast } from '../../domain/operator-roles.js';
import { UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import type { Flash } from '../cabinet/flash.js';
import { html } from '../cabinet/html.js';
import { confirmForm, csrfField, time } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { act } from './actions.js';
import { consolePage, noticeOf } from './layout.js';
import { SECURITY_KEY_NOTICES, SECURITY_KEYS_SCRIPT, securityKeysSection } from './security-keys.js';
import { consoleSessionOf, type ConsoleSession, type ConsoleSessions } from './session.js';

const HTML = 'text/html; charset=utf-8';

/**
 * The person's own account page (/console/account): API tokens for the operator API (create one
 * with a label and a role up to the person's own, shown once on the answer to the form; see when
 * each was last used; revoke), and security keys (security-keys.ts: list, add, remove). Every
 * showing of the page makes the session a new registration challenge for its add form.
 */
export function registerConsoleAccount(app: App, { operators }: Services, sessions: ConsoleSessions, flash: Flash): void {
  const viewer = { schema: { hide: true }, preHandler: sessions.required('viewer') };

  const accountPage = async (session: ConsoleSession, parts: { notice?: string | undefined; problem?: string | undefined; created?: string } = {}) => {
    const tokens = await operators.people.tokens(session.personId);
    const { keys, options: keyOptions } = await operators.securityKeys.forAccountPage(session.found.session.id, { id: session.personId, email: session.found.email, name: session.found.name });
    return consolePage({
      title: 'My account',
      session,
      active: '/console/account',
      notice: parts.notice,
      problem: parts.problem,
      scripts: keyOptions === undefined ? [] : [SECURITY_KEYS_SCRIPT],
      body: html`${parts.created === undefined
        ? ''
        : html`<section class="reveal" aria-labelledby="new-token"><h2 id="new-token">Your new token</h2>
<p>Use it as <span class="mono">Authorization: Bearer …</span> on the operator API. It is shown only now.</p>
<p><input id="token-value" class="mono" readonly value="${parts.created}" aria-label="New token"> <button type="button" data-copy="token-value" hidden>Copy</button> <span id="token-value-status" role="status"></span></p></section>`}
<h2>API tokens</h2>
<p>Tokens act as you, with their role at most and never more than yours (${session.role}); every call is in the audit log under your name.</p>
<form method="post" action="/console/account/tokens" class="stack">${csrfField(session.csrf)}
<label>Label <input type="text" name="label" required maxlength="100" autocomplete="off"></label>
<label>Role <select name="role">${OPERATOR_ROLES.filter((role) => roleAtLeast(session.role, role)).map((role) => html`<option value="${role}"${role === session.role ? html` selected` : ''}>${role}</option>`)}</select></label>
<button type="submit">Create token</button>
</form>
${tokens.length === 0
  ? html`<p class="hint">You have no token.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Label</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
<tbody>${tokens.map((token) => html`<tr><td>${token.label}</td><td>${token.role}</td><td>${time(token.created_at)}</td><td>${time(token.last_used_at)}</td><td>${token.revoked_at === null ? confirmForm({ action: `/console/account/tokens/${token.id}/revoke`, csrf: session.csrf, label: `Revoke ${token.label}`, question: 'Programs using this token stop at once.', confirm: `Revoke ${token.label}` }) : html`revoked ${time(token.revoked_at)}`}</td></tr>`)}</tbody></table></div>`}
${securityKeysSection(session, keys, keyOptions)}`,
    });
  };

  app.get('/console/account', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const read = flash.read(session, request.query);
    return reply.type(HTML).send(await accountPage(session, { notice: read.notice ?? noticeOf(request.query, { revoked: 'The token is revoked.', ...SECURITY_KEY_NOTICES }), problem: read.problem }));
  });

  app.post('/console/account/tokens', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const role = formField(request, 'role');
    const made = isOperatorRole(role) ? await operators.people.createToken(session.personId, formField(request, 'label') ?? '', role) : { ok: false as const, problem: 'Choose a role.' };
    if (!made.ok) return reply.code(400).type(HTML).send(await accountPage(session, { problem: made.problem }));
    return reply.header('cache-control', 'no-store').type(HTML).send(await accountPage(session, { created: made.token }));
  });

  app.post('/console/account/tokens/:id/revoke', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const { id } = request.params as { id: string };
    return act(reply, flash, session, '/console/account', 'revoked', async () => {
      if (!UUID_PATTERN.test(id) || !(await operators.people.revokeToken(session.personId, id.toLowerCase()))) throw new ApiError('not_found', 'There is no such token of yours.');
    });
  });
}
