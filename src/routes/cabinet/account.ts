import QRCode from 'qrcode';
import type { FastifyReply } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { listPartnerCabinetUsers } from '../../db/repositories/cabinet-accounts-repository.js';
import { html, trusted } from './html.js';
import { csrfField, page, time } from './layout.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

/**
 * The person's account: optional TOTP two-factor (enrol with a QR code and a first code, then
 * ten recovery codes shown once; turn off with the password) and the partner's people.
 */
export function registerCabinetAccount(app: App, { cabinet, database }: Services, sessions: CabinetSessions): void {
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  const accountPage = async (session: CabinetSession, notice?: string, problem?: string) => {
    const people = await listPartnerCabinetUsers(database.db, session.partnerId);
    const twoFactor = session.found.totpEnabled
      ? html`<p>Two-factor sign-in is <strong>on</strong>: ${await cabinet.accounts.unusedRecoveryCodes(session.userId)} recovery codes left.</p>
<form method="post" action="/cabinet/account/totp/disable" class="stack">
  ${csrfField(session.csrf)}
  ${problem === undefined ? '' : html`<p role="alert">${problem}</p>`}
  <label>Your password <input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label>
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
      body: html`<dl class="facts"><dt>Email</dt><dd>${session.found.email}</dd><dt>Partner</dt><dd>${session.found.partnerName}</dd></dl>
<h2>Two-factor sign-in</h2>
${twoFactor}
<h2>People of ${session.found.partnerName}</h2>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Two-factor</th><th scope="col">Since</th></tr></thead>
<tbody>${people.map((person) => html`<tr><td>${person.email}</td><td>${person.totp_enabled_at === null ? 'off' : 'on'}</td><td>${time(person.created_at)}</td></tr>`)}</tbody>
</table></div>
<p class="hint">The operator invites more people of your team.</p>`,
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
<li>Type the 6-digit code the app shows.</li>
</ol>
<figure class="qr" role="img" aria-label="QR code of your two-factor key">${trusted(qr)}</figure>
<p>Key: <span class="mono">${enrolment.secret.replace(/(.{4})/g, '$1 ').trim()}</span></p>
<form method="post" action="/cabinet/account/totp/confirm" class="stack">
  ${csrfField(session.csrf)}
  ${problem === undefined ? '' : html`<p role="alert">${problem}</p>`}
  <label>Code from the app <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="12"></label>
  <button type="submit">Turn on two-factor sign-in</button>
</form>`,
    });
  };

  app.get('/cabinet/account', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) =>
    send(reply, await accountPage(sessionOf(request))),
  );

  app.post('/cabinet/account/totp', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    if (session.found.totpEnabled) return send(reply, await accountPage(session, 'Two-factor sign-in is already on.'));
    return send(reply, await enrolPage(session, await cabinet.accounts.beginTotp(session.userId, session.found.email)));
  });

  app.post('/cabinet/account/totp/confirm', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const codes = await cabinet.accounts.confirmTotp(session.userId, formField(request, 'code') ?? '', session.token);
    if (codes === undefined) {
      const pending = await cabinet.accounts.pendingTotp(session.userId, session.found.email);
      if (pending === undefined) return send(reply, await accountPage(session), 409);
      return send(reply, await enrolPage(session, pending, 'That code is not right: check the app and try the next one.'), 400);
    }
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
    if (!(await cabinet.accounts.disableTotp(session.userId, formField(request, 'password') ?? ''))) {
      return send(reply, await accountPage(session, undefined, 'Wrong password.'), 400);
    }
    return send(reply, await accountPage({ ...session, found: { ...session.found, totpEnabled: false } }, 'Two-factor sign-in is off.'));
  });
}
