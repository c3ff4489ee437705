import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { requestOrigin } from '../admin/cabinet-link-base.js';
import { html } from './html.js';
import { csrfField, page } from './layout.js';
import { accountKey } from './login.js';
import { registerPasswordLink } from './password-link.js';
import { crossSiteAllowed, csrfRefusal, formField, type CabinetSessions } from './session.js';

/** Notices a redirect to the "Forgot password" page may ask for (a fixed set: nothing from the URL is shown). */
const NOTICES: Readonly<Record<string, string>> = {
  sent: 'If an account has this email, a link to reset its password is on its way there. It works once, for one hour. Nothing arrived after a few minutes? Check the spam folder, or ask again.',
};
const PROBLEMS: Readonly<Record<string, string>> = {
  wait: 'Too many reset requests. Wait a minute, then ask again.',
};

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The origin a reset link in mail is built on: PUBLIC_URL. Without it, only a request to this
 * machine itself (the embedded default on a developer's machine): anyone can write the Host
 * header of a request for someone else's reset, and a link built on it would send the victim's
 * token to the writer's host (docs/adr/0051-cabinet-mail-period-responses-reference.md).
 */
function mailLinkBase(publicUrl: string | undefined, request: FastifyRequest): string | undefined {
  if (publicUrl !== undefined) return publicUrl;
  try {
    const origin = requestOrigin(request);
    return LOOPBACK.has(new URL(origin).hostname) ? origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Password reset links (/cabinet/password-reset/<token>, one use, one hour): the operator's
 * (passed on by the operator) and the ones a person asks for by email under "Forgot password"
 * (/cabinet/forgot-password, mailed). Its page sets a new password, checked like an
 * invitation's. Using it signs out every session of the person and keeps their TOTP enrolment:
 * the next sign-in still asks for the second factor. The browser that used the link may hold a
 * session of its own (now ended): its cookie goes too. A link the operator issued with
 * clear_2fa clears the person's two-factor as it is used.
 */
export function registerCabinetPasswordReset(app: App, { cabinet, config }: Services, sessions: CabinetSessions): void {
  registerPasswordLink(app, sessions, {
    path: 'password-reset',
    title: 'Choose a new password',
    intro: (email) => html`<p>A new password for <strong>${email}</strong>. Setting it signs out every session of this account.</p>`,
    submit: 'Set new password',
    invalidTitle: 'Reset link not valid',
    invalidProblem: 'This password reset link is not valid.',
    open: async (token) => {
      const state = await cabinet.passwords.openReset(token);
      if (state.ok) return state;
      return { ok: false, problem: 'This password reset link is not valid: it was used already, has expired, was replaced by a newer one, or was mistyped. Ask for a new one under “Forgot password” on the sign-in page.' };
    },
    complete: (token, password, ip) => cabinet.passwords.reset(token, password, ip),
    done: '/cabinet/login?done=password-reset',
    endSession: true,
  });

  const forgotPage = (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, unknown>;
    const notice = typeof query.done === 'string' ? NOTICES[query.done] : undefined;
    const problem = typeof query.problem === 'string' ? PROBLEMS[query.problem] : undefined;
    const available = mailLinkBase(config.cabinet.publicUrl, request) !== undefined;
    return page({
      title: 'Forgot password',
      notice,
      problem,
      body: available
        ? html`<p>Type the email you sign in with: a link to choose a new password is mailed to it.</p>
<form method="post" action="/cabinet/forgot-password" class="stack">
  ${csrfField(sessions.preSessionCsrf(request, reply))}
  <label>Email <input type="email" name="email" autocomplete="username" required maxlength="254"></label>
  <button type="submit">Mail me a reset link</button>
</form>
<p><a href="/cabinet/login">Back to sign in</a></p>`
        : html`<p>Reset by mail is not set up on this service (it has no public address configured). Ask the operator for a password reset link.</p>
<p><a href="/cabinet/login">Back to sign in</a></p>`,
    });
  };

  app.get('/cabinet/forgot-password', { schema: { hide: true } }, async (request, reply) => reply.type('text/html; charset=utf-8').send(forgotPage(request, reply)));

  // The same answer whether or not an account has the email (no one learns who has an account);
  // every request counts against both budgets, since each may send mail.
  app.post('/cabinet/forgot-password', { schema: { hide: true } }, async (request, reply) => {
    if (!crossSiteAllowed(request) || !sessions.preSessionCsrfMatches(request)) {
      return reply.code(403).type('text/html; charset=utf-8').send(csrfRefusal());
    }
    const email = formField(request, 'email') ?? '';
    const decisions = [await cabinet.resetPerAddress.attempt(request.ip), await cabinet.resetPerAccount.attempt(accountKey(email))];
    if (decisions.some((decision) => !decision.allowed)) return reply.redirect('/cabinet/forgot-password?problem=wait', 303);
    const base = mailLinkBase(config.cabinet.publicUrl, request);
    if (base !== undefined) await cabinet.mail.requestPasswordReset(email, base);
    return reply.redirect('/cabinet/forgot-password?done=sent', 303);
  });
}
