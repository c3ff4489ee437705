import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { PASSWORD_MIN_LENGTH } from '../../services/cabinet-passwords.js';
import { html } from './html.js';
import { csrfField, errorPage, page } from './layout.js';
import { crossSiteAllowed, csrfRefusal, formField, type CabinetSessions } from './session.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The link's token is a credential until used, and the path carries it: these routes log the
 * request line without it (Fastify's request serializer, less the token).
 */
const ROUTE_OPTIONS = {
  schema: { hide: true },
  logSerializers: {
    req: (request: FastifyRequest) => ({ method: request.method, url: '/cabinet/invitation/[redacted]', host: request.host, remoteAddress: request.ip }),
  },
};

/**
 * The invitation link (/cabinet/invitation/<token>, one use, 72 h): its page sets the invited
 * person's password, checked for strength, and creates the account; then the person signs in.
 */
export function registerCabinetInvitation(app: App, { cabinet }: Services, sessions: CabinetSessions): void {
  const form = (request: FastifyRequest, reply: FastifyReply, token: string, email: string, problem?: string) =>
    page({
      title: 'Set your password',
      body: html`<p>You were invited to the partner cabinet as <strong>${email}</strong>.</p>
<form method="post" action="/cabinet/invitation/${token}" class="stack">
  ${csrfField(sessions.preSessionCsrf(request, reply))}
  ${problem === undefined ? '' : html`<p role="alert">${problem}</p>`}
  <input type="email" name="email" autocomplete="username" value="${email}" hidden readonly>
  <label>New password
    <input type="password" name="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="128" aria-describedby="password-hint">
  </label>
  <p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters and hard to guess: a few unrelated words work well.</p>
  <label>The same password again
    <input type="password" name="confirm" autocomplete="new-password" required maxlength="128">
  </label>
  <button type="submit">Set password</button>
</form>`,
    });
  const invalid = (reply: FastifyReply, problem: string) => reply.code(404).type('text/html; charset=utf-8').send(errorPage('Invitation not valid', problem));

  app.get('/cabinet/invitation/:token', ROUTE_OPTIONS, async (request, reply) => {
    const { token } = request.params as { token: string };
    const state = TOKEN.test(token) ? await cabinet.accounts.openInvitation(token) : undefined;
    if (state === undefined || !state.ok) return invalid(reply, state?.problem ?? 'This invitation link is not valid.');
    return reply.type('text/html; charset=utf-8').send(form(request, reply, token, state.invitation.email));
  });

  app.post('/cabinet/invitation/:token', ROUTE_OPTIONS, async (request, reply) => {
    if (!crossSiteAllowed(request) || !sessions.preSessionCsrfMatches(request)) {
      return reply.code(403).type('text/html; charset=utf-8').send(csrfRefusal());
    }
    const { token } = request.params as { token: string };
    const state = TOKEN.test(token) ? await cabinet.accounts.openInvitation(token) : undefined;
    if (state === undefined || !state.ok) return invalid(reply, state?.problem ?? 'This invitation link is not valid.');
    const password = formField(request, 'password') ?? '';
    if (password !== formField(request, 'confirm')) {
      return reply.code(400).type('text/html; charset=utf-8').send(form(request, reply, token, state.invitation.email, 'The two passwords differ.'));
    }
    const accepted = await cabinet.accounts.acceptInvitation(token, password);
    if (!accepted.ok) return reply.code(400).type('text/html; charset=utf-8').send(form(request, reply, token, state.invitation.email, accepted.problem));
    return reply.redirect('/cabinet/login?done=password-set', 303);
  });
}
