import QRCode from 'qrcode';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { CANONICAL_UUID_PATTERN } from '../../domain/short-id.js';
import { PASSWORD_MIN_LENGTH } from '../../services/cabinet-passwords.js';
import { html, trusted } from './html.js';
import { csrfField, page, time } from './layout.js';
import { accountKey } from './login.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

/** Notices a redirect back to the account page may ask for (a fixed set: nothing from the URL is shown). */
const NOTICES: Readonly<Record<string, string>> = {
  'session-ended': 'That session is signed out.',
  'others-ended': 'Every other session is signed out.',
  'password-changed': 'Your password is changed, and every other session is signed out.',
  'totp-off': 'Two-factor sign-in is off.',
  'totp-already-on': 'Two-factor sign-in is already on.',
};


interface AccountPageParts {
  notice?: string | undefined;
  /** What went wrong with the two-factor form. */
  totpProblem?: string;
  /** What went wrong with the password form. */
  passwordProblem?: string;
  /** What went wrong otherwise (at the top). */
  problem?: string;
}

/**
 * The person's account: their sign-in sessions (ASVS 3.3.4: each listed with when it began, was
 * last seen and its browser, this one marked; any other, or all others, can be signed out), the
 * password change (the current one asked, other sessions signed out), optional TOTP two-factor
 * (enrol with a QR code, a first code and the password, then ten recovery codes shown once; turn
 * off with the password and a code) and the partner's people. Every password check here spends
 * the sign-in throttles.
 */
export function registerCabinetAccount(app: App, { cabinet }: Services, sessions: CabinetSessions): void {
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  /**
   * Every password check of a signed-in person (password change, two-factor on and off) is a
   * guess to whoever holds a stolen session: it spends the sign-in budgets of the account and
   * of the address before it runs, as at sign-in. Refused: the seconds to wait
   * (Retry-After is set). Allowed: `giveBack` returns the attempt when the check passed or was
   * no guess.
   */
  const spendGuess = async (request: FastifyRequest, reply: FastifyReply, session: CabinetSession): Promise<{ retry: number } | { giveBack: () => void }> => {
    const account = accountKey(session.found.email);
    const decisions = [await cabinet.signInPerAddress.attempt(request.ip), await cabinet.signInPerAccount.attempt(account)];
    if (decisions.some((decision) => !decision.allowed)) {
      const retry = Math.max(0, ...decisions.map((decision) => (decision.allowed ? 0 : decision.retryAfterSeconds)));
      reply.header('retry-after', String(retry));
      return { retry };
    }
    return {
      giveBack: () => {
        cabinet.signInPerAddress.succeeded(request.ip);
        cabinet.signInPerAccount.succeeded(account);
      },
    };
  };
  const tooMany = (retry: number) => `Too many wrong passwords. Wait ${retry} seconds, then try again.`;

  const accountPage = async (session: CabinetSession, parts: AccountPageParts = {}) => {
    const { notice, totpProblem: problem, passwordProblem } = parts;
    const people = await cabinet.team.people(session.partnerId);
    const live = await cabinet.sessions.list(session.userId);
    const others = live.filter((entry) => entry.id !== session.found.session.id);
    const twoFactor = session.found.totpEnabled
      ? html`<p>Two-factor sign-in is <strong>on</strong>: ${await cabinet.twoFactor.unusedRecoveryCodes(session.userId)} recovery codes left.</p>
<form method="post" action="/cabinet/account/totp/disable" class="stack">
  ${csrfField(session.csrf)}
  ${problem === undefined ? '' : html`<p role="alert">${problem}</p>`}
  <label>Your password <input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label>
  <label>Code from your authenticator app, or a recovery code <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="32"></label>
  <button type="submit" class="danger">Turn off two-factor sign-in</button>
</form>`
      : html`<p>Two-factor sign-in is <strong>off</strong>. With it on, signing in also asks for a code from an authenticator app.</p>
<form method="post" action="/cabinet/account/totp" class="stack">
  ${csrfField(session.csrf)}
  <button type="submit">Set up two-factor sign-in</button>
</form>`;
    return page({
      title: 'Account',
      session,
      active: '/cabinet/account',
      notice,
      problem: parts.problem,
      body: html`<dl class="facts"><dt>Email</dt><dd>${session.found.email}</dd><dt>Partner</dt><dd>${session.found.partnerName}</dd></dl>
<h2>Your sessions</h2>
<p class="hint">Where your account is signed in now. Last seen is kept to the minute. Sign out any session you do not recognise, then change your password.</p>
<div class="table-wrap"><table class="responsive sessions">
<thead><tr><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Browser</th><th scope="col">Session</th></tr></thead>
<tbody>${live.map((entry) => {
        const current = entry.id === session.found.session.id;
        return html`<tr${current ? html` class="current"` : ''}><td data-label="Signed in">${time(entry.created_at)}</td><td data-label="Last seen">${time(entry.last_seen_at)}</td><td data-label="Browser">${entry.user_agent ?? 'not told'}${entry.second_factor_pending ? ' (waiting for its two-factor code)' : ''}</td><td data-label="Session">${current
          ? html`<strong>This session</strong>`
          : html`<form method="post" action="/cabinet/account/sessions/${entry.id}/revoke" class="inline">${csrfField(session.csrf)}<button type="submit" class="danger">Sign out this session</button></form>`}</td></tr>`;
      })}</tbody>
</table></div>
${others.length === 0
  ? html`<p>No other session is signed in.</p>`
  : html`<form method="post" action="/cabinet/account/sessions/revoke-others" class="stack">
  ${csrfField(session.csrf)}
  <button type="submit" class="danger">Sign out all other sessions</button>
</form>`}
<h2>Password</h2>
<form method="post" action="/cabinet/account/password" class="stack">
  ${csrfField(session.csrf)}
  ${passwordProblem === undefined ? '' : html`<p role="alert">${passwordProblem}</p>`}
  <input type="email" name="email" autocomplete="username" value="${session.found.email}" hidden readonly>
  <label>Current password <input type="password" name="current" autocomplete="current-password" required maxlength="1024"></label>
  <label>New password
    <input type="password" name="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="128" aria-describedby="new-password-hint">
  </label>
  <p class="hint" id="new-password-hint">At least ${PASSWORD_MIN_LENGTH} characters and hard to guess: a few unrelated words work well. Changing it signs out your other sessions.</p>
  <label>The same new password again <input type="password" name="confirm" autocomplete="new-password" required maxlength="128"></label>
  <button type="submit">Change password</button>
</form>
<h2>Two-factor sign-in</h2>
${twoFactor}
<h2>People of ${session.found.partnerName}</h2>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Two-factor</th><th scope="col">Since</th></tr></thead>
<tbody>${people.map((person) => html`<tr><td>${person.email}</td><td>${person.totp_enabled_at === null ? 'off' : 'on'}</td><td>${time(person.created_at)}</td></tr>`)}</tbody>
</table></div>
<p class="hint">Roles, invitations and removals: <a href="/cabinet/team">Team</a>.</p>`,
    });
  };

  const enrolPage = async (session: CabinetSession, enrolment: { secret: string; uri: string }, problem?: string) => {
    const qr = await QRCode.toString(enrolment.uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return page({
      title: 'Set up two-factor sign-in',
      session,
      active: '/cabinet/account',
      body: html`<ol>
<li>Scan this code with an authenticator app (or type the key below into it).</li>
<li>Type the 6-digit code the app shows, and your password.</li>
</ol>
<figure class="qr" role="img" aria-label="QR code of your two-factor key">${trusted(qr)}</figure>
<p>Key: <span class="mono">${enrolment.secret.replace(/(.{4})/g, '$1 ').trim()}</span></p>
<form method="post" action="/cabinet/account/totp/confirm" class="stack">
  ${csrfField(session.csrf)}
  ${problem === undefined ? '' : html`<p role="alert">${problem}</p>`}
  <label>Code from the app <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="12"></label>
  <input type="email" name="email" autocomplete="username" value="${session.found.email}" hidden readonly>
  <label>Your password <input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label>
  <button type="submit">Turn on two-factor sign-in</button>
</form>`,
    });
  };

  app.get('/cabinet/account', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const done = (request.query as Record<string, unknown>).done;
    const flash = sessions.flash.read(session, request.query);
    // A refused form comes back (303) with its problem beside the form it belongs to.
    const problems = done === 'password-refused' ? { passwordProblem: flash.problem } : done === 'totp-refused' ? { totpProblem: flash.problem } : { problem: flash.problem };
    return send(reply, await accountPage(session, { notice: flash.notice ?? (typeof done === 'string' ? NOTICES[done] : undefined), ...problems }));
  });

  /** The enrolment under way (after "Set up two-factor sign-in" answered 303 here), or the account page. */
  app.get('/cabinet/account/totp', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const pending = session.found.totpEnabled ? undefined : await cabinet.twoFactor.pending(session.userId);
    if (pending === undefined) return reply.redirect('/cabinet/account', 303);
    return send(reply, await enrolPage(session, pending, sessions.flash.read(session, request.query).problem));
  });

  app.post('/cabinet/account/sessions/:id/revoke', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const { id } = request.params as { id: string };
    // Only the person's own other sessions: anyone else's id (another person, another partner) is 404.
    if (!CANONICAL_UUID_PATTERN.test(id) || !(await cabinet.sessions.endOne(session.userId, id, session.token))) {
      return sessions.flash.redirect(reply, session, '/cabinet/account', 'problem', 'No such session of yours: it may have ended already.');
    }
    return reply.redirect('/cabinet/account?done=session-ended', 303);
  });

  app.post('/cabinet/account/sessions/revoke-others', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    await cabinet.sessions.endOthers(session.userId, session.token);
    return reply.redirect('/cabinet/account?done=others-ended', 303);
  });

  app.post('/cabinet/account/password', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const problem = (text: string) => sessions.flash.redirect(reply, session, '/cabinet/account?done=password-refused', 'problem', text);
    const next = formField(request, 'password') ?? '';
    if (next !== formField(request, 'confirm')) return problem('The two new passwords differ.');
    const guess = await spendGuess(request, reply, session);
    if ('retry' in guess) return problem(tooMany(guess.retry));
    const changed = await cabinet.passwords.change(session.userId, formField(request, 'current') ?? '', next, session.token);
    // A weak new password is no wrong guess: the attempt is given back.
    if (changed.ok || !changed.wrongPassword) guess.giveBack();
    if (!changed.ok) return problem(changed.problem);
    return reply.redirect('/cabinet/account?done=password-changed', 303);
  });

  app.post('/cabinet/account/totp', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    if (session.found.totpEnabled) return reply.redirect('/cabinet/account?done=totp-already-on', 303);
    await cabinet.twoFactor.begin(session.userId, session.found.email);
    return reply.redirect('/cabinet/account/totp', 303);
  });

  app.post('/cabinet/account/totp/confirm', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const again = (problem: string) => sessions.flash.redirect(reply, session, '/cabinet/account/totp', 'problem', problem);
    const guess = await spendGuess(request, reply, session);
    if ('retry' in guess) return again(tooMany(guess.retry));
    const confirmed = await cabinet.twoFactor.confirm(session.userId, formField(request, 'code') ?? '', formField(request, 'password') ?? '', session.token);
    // Only a wrong password was a guess.
    if (confirmed.ok || confirmed.problem !== 'wrong-password') guess.giveBack();
    if (!confirmed.ok) {
      if (confirmed.problem === 'not-pending') return reply.redirect('/cabinet/account', 303);
      return again(confirmed.problem === 'wrong-code' ? 'That code is not right: check the app and try the next one.' : 'Your password is not right.');
    }
    // The one answer of a POST that is a page of its own: the recovery codes exist only in this
    // answer (stored hashed), so they are shown here once; a reload posts again and is refused
    // (not pending any more) with a 303 to the account page.
    const { codes } = confirmed;
    return send(
      reply,
      page({
        title: 'Two-factor sign-in is on',
        session: { ...session, found: { ...session.found, totpEnabled: true } },
        active: '/cabinet/account',
        body: html`<p>Keep these recovery codes somewhere safe: each one signs you in once if you lose your phone. They are shown only now.</p>
<ul class="codes">${codes.map((code) => html`<li>${code}</li>`)}</ul>
<p><a href="/cabinet/account">Done</a></p>`,
      }),
    );
  });

  app.post('/cabinet/account/totp/disable', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const guess = await spendGuess(request, reply, session);
    const refused = (problem: string) => sessions.flash.redirect(reply, session, '/cabinet/account?done=totp-refused', 'problem', problem);
    if ('retry' in guess) return refused(tooMany(guess.retry));
    if (!(await cabinet.twoFactor.disable(session.userId, formField(request, 'password') ?? '', formField(request, 'code') ?? ''))) return refused('Wrong password or code.');
    guess.giveBack();
    return reply.redirect('/cabinet/account?done=totp-off', 303);
  });
}
