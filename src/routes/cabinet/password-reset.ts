import type { App, Services } from '../../app-types.js';
import { html } from './html.js';
import { registerPasswordLink } from './password-link.js';
import type { CabinetSessions } from './session.js';

/**
 * The operator's password reset link (/cabinet/password-reset/<token>, one use, one hour; there
 * is no e-mail sending, the operator passes the link on): its page sets a new password, checked
 * like an invitation's. Using it signs out every session of the person and keeps their TOTP
 * enrolment: the next sign-in still asks for the second factor. The browser that used the link
 * may hold a session of its own (now ended): its cookie goes too. A link the operator issued with
 * clear_2fa clears the person's two-factor as it is used.
 */
export function registerCabinetPasswordReset(app: App, { cabinet }: Services, sessions: CabinetSessions): void {
  registerPasswordLink(app, sessions, {
    path: 'password-reset',
    title: 'Choose a new password',
    intro: (email) => html`<p>A new password for <strong>${email}</strong>. Setting it signs out every session of this account.</p>`,
    submit: 'Set new password',
    invalidTitle: 'Reset link not valid',
    invalidProblem: 'This password reset link is not valid.',
    open: (token) => cabinet.accounts.openPasswordReset(token),
    complete: (token, password, ip) => cabinet.accounts.resetPassword(token, password, ip),
    done: '/cabinet/login?done=password-reset',
    endSession: true,
  });
}
