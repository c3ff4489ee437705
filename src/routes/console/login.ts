import QRCode from 'qrcode';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { codeForm, newPasswordForm, signInForm } from '../account-forms.js';
import { html, trusted } from '../cabinet/html.js';
import { csrfField } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { signInAccountKey, throttled } from '../sign-in-throttle.js';
import { consoleErrorPage, consolePage, noticeOf } from './layout.js';
import { SECURITY_KEYS_SCRIPT, securityKeySignIn } from './security-keys.js';
import type { ConsoleSession, ConsoleSessions } from './session.js';

const NOTICES: Readonly<Record<string, string>> = {
  'password-set': 'Your password is set. Sign in with it; you will then set up two-factor sign-in.',
  'signed-out': 'You are signed out.',
};

const accountKey = (email: string): string => signInAccountKey('console', email);

const HTML = 'text/html; charset=utf-8';
const formExpired = () => consoleErrorPage('Form expired', 'This form could not be accepted: it expired or did not come from this console. Go back, reload the page and try again.');

/**
 * Sign-in (/console/login), the second step (/console/login/code: a code, or the enrolment of
 * an authenticator when the person has none: two-factor is required; /console/login/security-key:
 * instead of the code, an assertion of one of the person's security keys), sign-out, and the
 * invitation link that sets a password. Failures (a key's included) count per client address and
 * per account before the check and are given back on success, as in the cabinet.
 *
 * A security key counts as the second factor on its own: a person who has one signs in with it
 * whether or not TOTP is on. Enrolment at first sign-in stays TOTP (with its recovery codes):
 * keys are added afterwards, on the account page, by a session that gave its second factor.
 */
export function registerConsoleLogin(app: App, { operators }: Services, sessions: ConsoleSessions): void {
  const options = { schema: { hide: true } };

  const loginPage = (request: FastifyRequest, reply: FastifyReply, parts: { email?: string; problem?: string; notice?: string | undefined } = {}) =>
    consolePage({
      title: 'Sign in',
      notice: parts.notice,
      body: signInForm({ action: '/console/login', csrf: sessions.preSessionCsrf(request, reply), email: parts.email, problem: parts.problem }),
    });

  app.get('/console/login', options, async (request, reply) => reply.type(HTML).send(loginPage(request, reply, { notice: noticeOf(request.query, NOTICES) })));

  app.post('/console/login', options, async (request, reply) => {
    if (!sessions.preSessionCsrfMatches(request)) return reply.code(403).type(HTML).send(formExpired());
    const email = formField(request, 'email') ?? '';
    const password = formField(request, 'password') ?? '';
    const account = accountKey(email);
    const limited = throttled(reply, [await operators.signInPerAddress.attempt(request.ip), await operators.signInPerAccount.attempt(account)], (problem) =>
      loginPage(request, reply, { email, problem }),
    );
    if (limited !== undefined) return limited;
    const result = await operators.sessions.signIn(email, password, request.headers['user-agent']);
    if (!result.ok) return reply.code(401).type(HTML).send(loginPage(request, reply, { email, problem: 'Wrong email or password.' }));
    operators.signInPerAddress.succeeded(request.ip);
    operators.signInPerAccount.succeeded(account);
    sessions.start(request, reply, result.token);
    return reply.redirect('/console/login/code', 303);
  });

  /**
   * The second step: a code, or (no second factor yet) the enrolment with its QR code; a person
   * with a security key is offered it first (each showing makes the session a new challenge).
   */
  const codePage = async (session: ConsoleSession, problem?: string): Promise<string> => {
    const keyOptions = await operators.securityKeys.authenticationOptions(session.found.session.id, session.personId);
    const withKey = keyOptions === undefined ? '' : securityKeySignIn(session.csrf, keyOptions);
    const scripts = keyOptions === undefined ? [] : [SECURITY_KEYS_SCRIPT];
    if (session.found.totpEnabled) {
      return consolePage({ title: 'Two-factor code', scripts, body: html`${withKey}${codeForm({ action: '/console/login/code', csrf: session.csrf, problem })}` });
    }
    const alert = problem === undefined ? '' : html`<p role="alert">${problem}</p>`;
    const enrolment = await operators.twoFactor.enrolment(session.personId);
    if (enrolment === undefined) return consoleErrorPage('Two-factor', 'Two-factor sign-in could not be set up. Sign in again.');
    const qr = await QRCode.toString(enrolment.uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return consolePage({
      title: 'Set up two-factor sign-in',
      scripts,
      body: html`${withKey}<p>The console requires two-factor sign-in. Set it up once:</p>
<ol>
<li>Scan this code with an authenticator app (or type the key below into it).</li>
<li>Type the 6-digit code the app shows.</li>
</ol>
<figure class="qr" role="img" aria-label="QR code of your two-factor key">${trusted(qr)}</figure>
<p>Key: <span class="mono" id="totp-key">${enrolment.secret.replace(/(.{4})/g, '$1 ').trim()}</span></p>
<form method="post" action="/console/login/code" class="stack">
  ${csrfField(session.csrf)}
  ${alert}
  <label>Code from the app <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="12"></label>
  <button type="submit">Turn on two-factor and continue</button>
</form>`,
    });
  };

  const pendingSession = async (request: FastifyRequest, reply: FastifyReply): Promise<ConsoleSession | undefined> => {
    const session = await sessions.read(request);
    if (session === undefined) {
      await reply.redirect('/console/login', 303);
      return undefined;
    }
    if (!session.found.session.second_factor_pending) {
      await reply.redirect('/console', 303);
      return undefined;
    }
    return session;
  };

  /**
   * A second-factor answer (a code or a key's assertion): its pending session, the form's CSRF
   * check and the sign-in throttles counted, or the answer already sent when one of them refused.
   */
  const secondFactorAttempt = async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ session: ConsoleSession; account: string } | { answered: FastifyReply | Promise<FastifyReply> }> => {
    const session = await pendingSession(request, reply);
    if (session === undefined) return { answered: reply };
    if (!sessions.changeAllowed(request, session)) return { answered: reply.code(403).type(HTML).send(formExpired()) };
    const account = accountKey(session.found.email);
    const limited = throttled(reply, [await operators.signInPerAddress.attempt(request.ip), await operators.signInPerAccount.attempt(account)], (problem) =>
      codePage(session, problem),
    );
    return limited === undefined ? { session, account } : { answered: limited };
  };

  app.get('/console/login/code', options, async (request, reply) => {
    const session = await pendingSession(request, reply);
    if (session === undefined) return reply;
    return reply.type(HTML).send(await codePage(session));
  });

  app.post('/console/login/code', options, async (request, reply) => {
    const attempt = await secondFactorAttempt(request, reply);
    if (!('session' in attempt)) return attempt.answered;
    const { session, account } = attempt;
    const code = formField(request, 'code') ?? '';
    if (!session.found.totpEnabled) {
      const confirmed = await operators.sessions.completeEnrolment(session.token, session.found, code);
      if (!confirmed.ok) return reply.code(401).type(HTML).send(await codePage(session, 'That code is not right. Check the app shows this key, and type its current code.'));
      operators.signInPerAddress.succeeded(request.ip);
      operators.signInPerAccount.succeeded(account);
      // The recovery codes are shown once, on this answer (not a redirect: they must not sit in a URL).
      return reply.type(HTML).send(
        consolePage({
          title: 'Two-factor sign-in is on',
          body: html`<p>Keep these recovery codes somewhere safe: each signs you in once if you lose your authenticator. They are shown only now.</p>
<ul class="codes">${confirmed.codes.map((c) => html`<li>${c}</li>`)}</ul>
<p><a href="/console">Continue to the console</a></p>`,
        }),
      );
    }
    if (!(await operators.sessions.completeSecondFactor(session.token, session.found, code))) {
      return reply.code(401).type(HTML).send(await codePage(session, 'That code is not right, or was used already.'));
    }
    operators.signInPerAddress.succeeded(request.ip);
    operators.signInPerAccount.succeeded(account);
    return reply.redirect('/console', 303);
  });

  // Instead of the code: an assertion of one of the person's keys over the challenge the code page made.
  app.post('/console/login/security-key', options, async (request, reply) => {
    const attempt = await secondFactorAttempt(request, reply);
    if (!('session' in attempt)) return attempt.answered;
    const { session, account } = attempt;
    const answer = formField(request, 'credential') ?? '';
    const opened = await operators.sessions.completeSecondFactorWith(session.token, session.found, (personId) => operators.securityKeys.authenticate(session.found.session.id, personId, answer));
    if (!opened) return reply.code(401).type(HTML).send(await codePage(session, 'That security key could not sign you in. Try it again, or type a code.'));
    operators.signInPerAddress.succeeded(request.ip);
    operators.signInPerAccount.succeeded(account);
    return reply.redirect('/console', 303);
  });

  app.post('/console/logout', options, async (request, reply) => {
    const session = await sessions.read(request);
    if (session !== undefined) {
      if (!sessions.changeAllowed(request, session)) return reply.code(403).type(HTML).send(formExpired());
      await operators.sessions.signOut(session.token);
    }
    sessions.end(request, reply);
    return reply.redirect('/console/login?done=signed-out', 303);
  });

  // The invitation link: its token is a credential until used (the logger drops it from the request line).
  const invitationForm = (request: FastifyRequest, reply: FastifyReply, token: string, email: string, problem?: string) =>
    consolePage({
      title: 'Set your password',
      body: html`<p>You were invited to the operator console as <strong>${email}</strong>.</p>
${newPasswordForm({ action: `/console/invitation/${token}`, csrf: sessions.preSessionCsrf(request, reply), email, problem, submit: 'Set password' })}`,
    });

  app.get('/console/invitation/:token', options, async (request, reply) => {
    const { token } = request.params as { token: string };
    const state = await operators.people.openInvitation(token);
    if (!state.ok) return reply.code(404).type(HTML).send(consoleErrorPage('Invitation not valid', state.problem));
    return reply.type(HTML).send(invitationForm(request, reply, token, state.email));
  });

  app.post('/console/invitation/:token', options, async (request, reply) => {
    if (!sessions.preSessionCsrfMatches(request)) return reply.code(403).type(HTML).send(formExpired());
    const { token } = request.params as { token: string };
    const state = await operators.people.openInvitation(token);
    if (!state.ok) return reply.code(404).type(HTML).send(consoleErrorPage('Invitation not valid', state.problem));
    const password = formField(request, 'password') ?? '';
    if (password !== formField(request, 'confirm')) return reply.code(400).type(HTML).send(invitationForm(request, reply, token, state.email, 'The two passwords differ.'));
    const accepted = await operators.people.acceptInvitation(token, password);
    if (!accepted.ok) return reply.code(400).type(HTML).send(invitationForm(request, reply, token, state.email, accepted.problem));
    return reply.redirect('/console/login?done=password-set', 303);
  });
}
