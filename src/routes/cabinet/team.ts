import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { CABINET_ROLES, isCabinetRole, ROLE_WORDS } from '../../domain/cabinet-roles.js';
import { CANONICAL_UUID_PATTERN } from '../../domain/short-id.js';
import { html } from './html.js';
import { can, confirmForm, csrfField, page, roleNote, time } from './layout.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

const NOTICES: Readonly<Record<string, string>> = {
  role: 'The role is changed: it applies from their next page.',
  removed: 'The person is removed and signed out everywhere.',
};

/**
 * The team: the partner's people with their roles. Owners invite people with a role (the
 * link is mailed to them, and shown once here should the mail not arrive), change roles and remove people; everyone else reads.
 * Each change is checked on the server by role (session.permitted), the forms only hidden.
 */
export function registerCabinetTeam(app: App, { cabinet, config }: Services, sessions: CabinetSessions): void {
  const send = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);
  const linkBase = (request: FastifyRequest) => config.cabinet.publicUrl ?? new URL(`${request.protocol}://${request.host}`).origin;

  const roleSelect = (name: string, id: string, selected: string) =>
    html`<select name="${name}" id="${id}">${CABINET_ROLES.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${ROLE_WORDS[role].name}</option>`)}</select>`;

  const teamPage = async (session: CabinetSession, options: { notice?: string; problem?: string; invited?: { url: string; email: string; role: string; expiresAt: Date } }) => {
    const people = await cabinet.team.people(session.partnerId);
    const owner = can(session, 'people');
    const { invited } = options;
    return page({
      title: 'Team',
      session,
      active: '/cabinet/team',
      notice: options.notice,
      problem: options.problem,
      body: html`${invited === undefined
  ? ''
  : html`<section class="secret" aria-labelledby="invited-title">
<h2 id="invited-title">Invitation for ${invited.email} (${invited.role})</h2>
<p>The link is mailed to them. Should it not arrive, send it yourself: it is shown only this once, works once, until ${time(invited.expiresAt)}.</p>
<label>Invitation link <input type="text" id="invitation-link" value="${invited.url}" readonly spellcheck="false" autocomplete="off"></label>
<p><button type="button" data-copy="invitation-link" hidden>Copy link</button> <span id="invitation-link-status" role="status"></span></p>
</section>`}
<h2>People of ${session.found.partnerName}</h2>
<dl class="facts">${CABINET_ROLES.map((role) => html`<dt>${ROLE_WORDS[role].name}</dt><dd>${ROLE_WORDS[role].allows}</dd>`)}</dl>
<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Two-factor</th><th scope="col">Since</th>${owner ? html`<th scope="col">Change</th>` : ''}</tr></thead>
<tbody>${people.map(
  (person) => html`<tr>
<td data-label="Email">${person.email}${person.id === session.userId ? html` <strong>(you)</strong>` : ''}</td>
<td data-label="Role">${ROLE_WORDS[person.role].name}</td>
<td data-label="Two-factor">${person.totp_enabled_at === null ? 'off' : 'on'}</td>
<td data-label="Since">${time(person.created_at)}</td>
${owner
  ? html`<td data-label="Change"><div class="actions">${person.id === session.userId
      ? html`<span class="hint">another owner changes yours</span>`
      : html`<form method="post" action="/cabinet/team/${person.id}/role" class="inline">${csrfField(session.csrf)}<label class="check">Role<span class="visually-hidden"> of ${person.email}</span> ${roleSelect('role', `role-${person.id}`, person.role)}</label> <button type="submit" class="secondary">Save<span class="visually-hidden"> role of ${person.email}</span></button></form>
${confirmForm({
  action: `/cabinet/team/${person.id}/remove`,
  csrf: session.csrf,
  label: html`Remove…<span class="visually-hidden"> ${person.email}</span>`,
  question: `${person.email} loses access at once: their account and sessions end. Inviting them again makes a new account.`,
  confirm: html`Yes, remove<span class="visually-hidden"> ${person.email}</span>`,
})}`}</div></td>`
  : ''}
</tr>`,
)}</tbody></table></div>
<h2>Invite someone</h2>
${owner
  ? html`<form method="post" action="/cabinet/team/invitations" class="stack">
  ${csrfField(session.csrf)}
  <label>Email <input type="email" name="email" required maxlength="254" autocomplete="off"></label>
  <label>Role ${roleSelect('role', 'invite-role', 'developer')}</label>
  <p class="hint">The link is mailed to them, and shown here once; it works once, for 72 hours.</p>
  <button type="submit">Invite</button>
</form>`
  : roleNote(session, 'owners invite people and change roles')}`,
    });
  };

  app.get('/cabinet/team', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const { done, invited } = request.query as Record<string, unknown>;
    if (typeof invited === 'string') {
      const link = CANONICAL_UUID_PATTERN.test(invited) ? await cabinet.team.takeInvitationLink(session.partnerId, session.found.session.id, invited, linkBase(request)) : undefined;
      if (link !== undefined) return send(reply, await teamPage(session, { invited: { ...link, role: ROLE_WORDS[link.role].name.toLowerCase() } }));
      return send(reply, await teamPage(session, { notice: 'An invitation link is shown only once, right after it is made. If it was not sent, make another (the old one expires unused).' }));
    }
    const flash = sessions.flash.read(session, request.query);
    return send(reply, await teamPage(session, { notice: flash.notice ?? (typeof done === 'string' ? NOTICES[done] : undefined), problem: flash.problem }));
  });

  const ownerOnly = { schema: { hide: true }, preHandler: sessions.permitted('people', { budget: false }) };

  app.post('/cabinet/team/invitations', ownerOnly, async (request, reply) => {
    const session = sessionOf(request);
    const role = formField(request, 'role');
    if (!isCabinetRole(role)) return sessions.flash.redirect(reply, session, '/cabinet/team', 'problem', 'Choose a role: owner, developer or viewer.');
    const owner = { id: session.userId, email: session.found.email };
    const made = await cabinet.team.invite(session.partnerId, owner, session.found.session.id, formField(request, 'email') ?? '', role, linkBase(request));
    if (!made.ok) return sessions.flash.redirect(reply, session, '/cabinet/team', 'problem', made.problem);
    return reply.redirect(`/cabinet/team?invited=${made.reveal}`, 303);
  });

  app.post('/cabinet/team/:id/role', ownerOnly, async (request, reply) => {
    const session = sessionOf(request);
    const { id } = request.params as { id: string };
    const role = formField(request, 'role');
    if (!isCabinetRole(role)) return sessions.flash.redirect(reply, session, '/cabinet/team', 'problem', 'Choose a role: owner, developer or viewer.');
    if (id === session.userId) return sessions.flash.redirect(reply, session, '/cabinet/team', 'problem', 'Another owner changes your role.');
    const changed = CANONICAL_UUID_PATTERN.test(id) ? await cabinet.team.changeRole(session.partnerId, id, role) : { ok: false as const, problem: 'No such person in your team.' };
    if (!changed.ok) return sessions.flash.redirect(reply, session, '/cabinet/team', 'problem', changed.problem);
    return reply.redirect('/cabinet/team?done=role', 303);
  });

  app.post('/cabinet/team/:id/remove', ownerOnly, async (request, reply) => {
    const session = sessionOf(request);
    const { id } = request.params as { id: string };
    const removed = CANONICAL_UUID_PATTERN.test(id) ? await cabinet.team.remove(session.partnerId, session.userId, id, request.ip) : { ok: false as const, problem: 'No such person in your team.' };
    if (!removed.ok) return sessions.flash.redirect(reply, session, '/cabinet/team', 'problem', removed.problem);
    return reply.redirect('/cabinet/team?done=removed', 303);
  });
}
