import type { App, Services } from '../../app-types.js';
import { isOperatorRole, OPERATOR_ROLES } from '../../domain/operator-roles.js';
import { UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import { EMAIL_PATTERN } from '../../services/account-secrets.js';
import { requestOrigin } from '../admin/cabinet-link-base.js';
import type { Flash } from '../cabinet/flash.js';
import { html } from '../cabinet/html.js';
import { confirmForm, csrfField, time } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { act } from './actions.js';
import { consolePage, noticeOf } from './layout.js';
import { consoleSessionOf, type ConsoleSession, type ConsoleSessions } from './session.js';

const NOTICES: Readonly<Record<string, string>> = {
  role: 'The role is changed; their tokens act with it at most.',
  removed: 'The person is removed: signed out everywhere, their tokens revoked.',
  'two-factor-cleared': 'Their two-factor is cleared and their sessions ended: their next sign-in enrols again.',
  'sessions-ended': 'Every session of theirs is signed out.',
};

const HTML = 'text/html; charset=utf-8';

/**
 * The operator's people (/console/people, admin): who can sign in, with which role, two-factor
 * and live sessions; invite someone (the one-use link is shown once, on the answer to the form:
 * it is a credential, so never put in a URL), change a role, clear two-factor, end sessions,
 * remove.
 */
export function registerConsolePeople(app: App, services: Services, sessions: ConsoleSessions, flash: Flash): void {
  const { operators, config } = services;
  const admin = { schema: { hide: true }, preHandler: sessions.required('admin') };

  const peoplePage = async (session: ConsoleSession, parts: { notice?: string | undefined; problem?: string | undefined; invited?: { email: string; url: string } } = {}) => {
    const people = await operators.people.people();
    const roleOptions = (current: string) => OPERATOR_ROLES.map((role) => html`<option value="${role}"${role === current ? html` selected` : ''}>${role}</option>`);
    return consolePage({
      title: 'People',
      session,
      active: '/console/people',
      notice: parts.notice,
      problem: parts.problem,
      body: html`${parts.invited === undefined
        ? ''
        : html`<section class="reveal" aria-labelledby="invited"><h2 id="invited">Invitation for ${parts.invited.email}</h2>
<p>Send this one-use link (72 hours) to the person: it sets their password. It is shown only now.</p>
<p><input id="invitation-link" class="mono" readonly value="${parts.invited.url}" aria-label="Invitation link"> <button type="button" data-copy="invitation-link" hidden>Copy</button> <span id="invitation-link-status" role="status"></span></p></section>`}
<section aria-labelledby="invite"><h2 id="invite">Invite someone</h2>
<form method="post" action="/console/people" class="stack">${csrfField(session.csrf)}
<label>Email <input type="email" name="email" required maxlength="254" autocomplete="off"></label>
<label>Name (optional) <input type="text" name="name" maxlength="100" autocomplete="off"></label>
<label>Role <select name="role">${roleOptions('viewer')}</select></label>
<button type="submit">Invite</button>
</form></section>
<section aria-labelledby="everyone"><h2 id="everyone">Everyone</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Person</th><th scope="col">Role</th><th scope="col">Two-factor</th><th scope="col">Sessions</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead>
<tbody>${people.map(
        (person) => html`<tr><td>${person.name === null ? '' : html`${person.name}<br>`}${person.email}${person.active ? '' : ' (invited)'}</td>
<td><form method="post" action="/console/people/${person.id}/role" class="inline">${csrfField(session.csrf)}<label>Role of ${person.email} <select name="role">${roleOptions(person.role)}</select></label> <button type="submit">Change role</button></form></td>
<td>${person.two_factor ? 'on' : 'not yet'}</td><td>${person.sessions}</td><td>${time(person.created_at)}</td>
<td>${person.id === session.personId
          ? html`you`
          : html`<form method="post" action="/console/people/${person.id}/end-sessions" class="inline">${csrfField(session.csrf)}<button type="submit">End sessions of ${person.email}</button></form>
<form method="post" action="/console/people/${person.id}/clear-2fa" class="inline">${csrfField(session.csrf)}<button type="submit">Clear two-factor of ${person.email}</button></form>
${confirmForm({ action: `/console/people/${person.id}/remove`, csrf: session.csrf, label: `Remove ${person.email}`, question: `${person.email} is signed out everywhere and their tokens stop working.`, confirm: `Remove ${person.email}` })}`}</td></tr>`,
      )}</tbody></table></div></section>`,
    });
  };

  app.get('/console/people', admin, async (request, reply) => {
    const session = consoleSessionOf(request);
    const read = flash.read(session, request.query);
    return reply.type(HTML).send(await peoplePage(session, { notice: read.notice ?? noticeOf(request.query, NOTICES), problem: read.problem }));
  });

  app.post('/console/people', admin, async (request, reply) => {
    const session = consoleSessionOf(request);
    const email = (formField(request, 'email') ?? '').trim();
    const role = formField(request, 'role');
    const name = formField(request, 'name');
    if (!EMAIL_PATTERN.test(email) || email.length > 254 || !isOperatorRole(role) || (name !== undefined && name.length > 100)) {
      return reply.code(400).type(HTML).send(await peoplePage(session, { problem: 'Give an email address, a role, and a name of at most 100 characters.' }));
    }
    const base = config.operator.listener === undefined && config.cabinet.publicUrl !== undefined ? config.cabinet.publicUrl : requestOrigin(request);
    const invited = await operators.people.invite({ email, role, name }, base);
    if (!invited.ok) return reply.code(409).type(HTML).send(await peoplePage(session, { problem: 'Someone with this email signs in already.' }));
    return reply.header('cache-control', 'no-store').type(HTML).send(await peoplePage(session, { invited: { email, url: invited.url } }));
  });

  const personId = (params: unknown): string => {
    const { id } = params as { id: string };
    if (!UUID_PATTERN.test(id)) throw new ApiError('not_found', 'There is no such person.');
    return id.toLowerCase();
  };
  const refused = (result: { ok: true } | { ok: false; problem: string }) => {
    if (!result.ok) throw new ApiError('conflict', result.problem);
  };

  app.post('/console/people/:id/role', admin, async (request, reply) => {
    const role = formField(request, 'role');
    return act(reply, flash, consoleSessionOf(request), '/console/people', 'role', async () => {
      if (!isOperatorRole(role)) throw new ApiError('bad_request', 'Choose a role.');
      refused(await operators.people.changeRole(personId(request.params), role));
    });
  });
  app.post('/console/people/:id/remove', admin, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), '/console/people', 'removed', async () => {
      const id = personId(request.params);
      if (id === consoleSessionOf(request).personId) throw new ApiError('conflict', 'You cannot remove yourself.');
      refused(await operators.people.remove(id));
    }),
  );
  app.post('/console/people/:id/clear-2fa', admin, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), '/console/people', 'two-factor-cleared', async () => {
      if (!(await operators.people.clearTwoFactor(personId(request.params)))) throw new ApiError('not_found', 'There is no such person.');
    }),
  );
  app.post('/console/people/:id/end-sessions', admin, async (request, reply) =>
    act(reply, flash, consoleSessionOf(request), '/console/people', 'sessions-ended', () => operators.people.endSessions(personId(request.params))),
  );
}
