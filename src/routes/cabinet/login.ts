import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { codeForm, signInForm } from '../account-forms.js';
import { signInAccountKey, throttled } from '../sign-in-throttle.js';
import { html } from './html.js';
import { page } from './layout.js';
import { crossSiteAllowed, csrfRefusal, formField, type CabinetSessions } from './session.js';

/** Notices a redirect to the sign-in page may ask for (a fixed set: nothing from the URL is shown). */
const NOTICES: Readonly<Record<string, string>> = {
  'password-set': 'Your password is set. Sign in with it.',
  'password-reset': 'Your new password is set and every session of your account is signed out. Sign in with it.',
  'signed-out': 'You are signed out.',
};

/** The cabinet's per-account throttle key (sign-in, and every password check of the account page). */
export const accountKey = (email: string): string => signInAccountKey('cabinet', email);

/**
 * Sign-in (/cabinet/login), its second step when the person enrolled TOTP (/cabinet/login/code),
 * and sign-out. Failures are counted per client address and per account (the email typed, or
 * the person at the code step) before the check runs, and given back on success, so only
 * failures use the budget and parallel guesses cannot slip past it. The answer to a wrong email
 * and to a wrong password is the same, in the same time.
 */
export function registerCabinetLogin(app: App, { cabinet }: Services, sessions: CabinetSessions): void {
  const loginPage = (request: FastifyRequest, reply: FastifyReply, options: { email?: string; problem?: string; notice?: string } = {}) =>
    page({
      title: 'Sign in',
      notice: options.notice,
      body: html`${signInForm({ action: '/cabinet/login', csrf: sessions.preSessionCsrf(request, reply), email: options.email, problem: options.problem })}
<p><a href="/cabinet/forgot-password">Forgot password?</a></p>
<p class="hint">No account yet? The operator sends your invitation link.</p>`,
    });

  app.get('/cabinet/login', { schema: { hide: true } }, async (request, reply) => {
    const done = (request.query as Record<string, unknown>).done;
    const notice = typeof done === 'string' ? NOTICES[done] : undefined;
    return reply.type('text/html; charset=utf-8').send(loginPage(request, reply, { notice }));
  });

  app.post('/cabinet/login', { schema: { hide: true } }, async (request, reply) => {
    if (!crossSiteAllowed(request) || !sessions.preSessionCsrfMatches(request)) {
      return reply.code(403).type('text/html; charset=utf-8').send(csrfRefusal());
    }
    const email = formField(request, 'email') ?? '';
    const password = formField(request, 'password') ?? '';
    const render = (problem: string) => loginPage(request, reply, { email, problem });
    const account = accountKey(email);
    const limited = throttled(reply, [await cabinet.signInPerAddress.attempt(request.ip), await cabinet.signInPerAccount.attempt(account)], render);
    if (limited !== undefined) return limited;
    const result = await cabinet.sessions.signIn(email, password, request.headers['user-agent']);
    if (!result.ok) return reply.code(401).type('text/html; charset=utf-8').send(render('Wrong email or password.'));
    cabinet.signInPerAddress.succeeded(request.ip);
    cabinet.signInPerAccount.succeeded(account);
    // The password was right: a device not seen before is told to the person by mail, whether
    // or not a second factor follows (a thief who has the password should not go unnoticed).
    await cabinet.mail.signedIn(email, request.headers['user-agent'], request.ip);
    sessions.start(request, reply, result.token);
    return reply.redirect(result.secondFactor ? '/cabinet/login/code' : '/cabinet', 303);
  });

  const codePage = (csrf: string, problem?: string) =>
    page({
      title: 'Two-factor code',
      body: codeForm({ action: '/cabinet/login/code', csrf, problem }),
    });

  app.get('/cabinet/login/code', { schema: { hide: true } }, async (request, reply) => {
    const session = await sessions.read(request);
    if (session === undefined) return reply.redirect('/cabinet/login', 303);
    if (!session.found.session.second_factor_pending) return reply.redirect('/cabinet', 303);
    return reply.type('text/html; charset=utf-8').send(codePage(session.csrf));
  });

  app.post('/cabinet/login/code', { schema: { hide: true } }, async (request, reply) => {
    const session = await sessions.read(request);
    if (session === undefined) return reply.redirect('/cabinet/login', 303);
    if (!session.found.session.second_factor_pending) return reply.redirect('/cabinet', 303);
    if (!sessions.changeAllowed(request, session)) return reply.code(403).type('text/html; charset=utf-8').send(csrfRefusal());
    const account = accountKey(session.found.email);
    const render = (problem: string) => codePage(session.csrf, problem);
    const limited = throttled(reply, [await cabinet.signInPerAddress.attempt(request.ip), await cabinet.signInPerAccount.attempt(account)], render);
    if (limited !== undefined) return limited;
    if (!(await cabinet.sessions.completeSecondFactor(session.token, session.found, formField(request, 'code') ?? ''))) {
      return reply.code(401).type('text/html; charset=utf-8').send(render('That code is not right, or was used already.'));
    }
    cabinet.signInPerAddress.succeeded(request.ip);
    cabinet.signInPerAccount.succeeded(account);
    return reply.redirect('/cabinet', 303);
  });

  app.post('/cabinet/logout', { schema: { hide: true } }, async (request, reply) => {
    const session = await sessions.read(request);
    if (session !== undefined) {
      if (!sessions.changeAllowed(request, session)) return reply.code(403).type('text/html; charset=utf-8').send(csrfRefusal());
      await cabinet.sessions.signOut(session.token);
    }
    sessions.end(request, reply);
    return reply.redirect('/cabinet/login?done=signed-out', 303);
  });
}
