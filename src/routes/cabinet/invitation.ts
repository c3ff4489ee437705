import type { App, Services } from '../../app-types.js';
import { html } from './html.js';
import { registerPasswordLink } from './password-link.js';
import type { CabinetSessions } from './session.js';

/**
 * The invitation link (/cabinet/invitation/<token>, one use, 72 h): its page sets the invited
 * person's password, checked for strength, and creates the account; then the person signs in.
 */
export function registerCabinetInvitation(app: App, { cabinet }: Services, sessions: CabinetSessions): void {
  registerPasswordLink(app, sessions, {
    path: 'invitation',
    title: 'Set your password',
    intro: (email) => html`<p>You were invited to the partner cabinet as <strong>${email}</strong>.</p>`,
    submit: 'Set password',
    invalidTitle: 'Invitation not valid',
    invalidProblem: 'This invitation link is not valid.',
    open: async (token) => {
      const state = await cabinet.invitations.open(token);
      return state.ok ? { ok: true, email: state.invitation.email } : state;
    },
    complete: (token, password) => cabinet.invitations.accept(token, password),
    done: '/cabinet/login?done=password-set',
  });
}
