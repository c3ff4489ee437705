import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { App, Services } from '../../app-types.js';
import { UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import { SECURITY_KEY_NAME_MAX, type ListedSecurityKey } from '../../services/operator-security-keys.js';
import type { Flash } from '../cabinet/flash.js';
import { html, type Html } from '../cabinet/html.js';
import { confirmForm, csrfField, time } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { act } from './actions.js';
import { consoleSessionOf, type ConsoleSession, type ConsoleSessions } from './session.js';

/**
 * The script of the pages with a security key ceremony: @simplewebauthn/browser's own bundle
 * and the console's few lines that run it (assets/security-keys.js), served as one file
 * (routes/console/index.ts).
 */
export const SECURITY_KEYS_SCRIPT = 'security-keys.js';

/** What the account page says of keys when they are off. */
const KEYS_OFF = 'Security keys are off on this console: they need PUBLIC_URL set to the address the console is reached at, with a domain name (WebAuthn binds a key to it).';

/** Said where a ceremony's form stays hidden: the script shows the form once it finds WebAuthn in the browser. */
const needsScript = (what: string): Html => html`<p class="hint" data-webauthn-unsupported>${what} needs JavaScript and a browser that supports security keys (WebAuthn).</p>`;

/**
 * A form whose submission first runs a WebAuthn ceremony (assets/security-keys.js): the server's
 * options ride in an attribute, the browser's answer goes in the hidden `credential` field, and
 * the form is then sent as any other. Hidden until the script shows it.
 */
function ceremonyForm(parts: {
  kind: 'register' | 'authenticate';
  action: string;
  csrf: string;
  options: PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON;
  fields?: Html;
  submit: string;
}): Html {
  return html`<form method="post" action="${parts.action}" class="stack" data-webauthn="${parts.kind}" data-webauthn-options="${JSON.stringify(parts.options)}" hidden>
  ${csrfField(parts.csrf)}
  ${parts.fields ?? ''}
  <input type="hidden" name="credential" value="">
  <button type="submit">${parts.submit}</button>
  <p role="status" data-webauthn-status></p>
</form>`;
}

/** The account page's section: the person's keys, removing one, and adding one. */
export function securityKeysSection(session: ConsoleSession, keys: readonly ListedSecurityKey[], options: PublicKeyCredentialCreationOptionsJSON | undefined): Html {
  const list =
    keys.length === 0
      ? html`<p class="hint">You have no security key.</p>`
      : html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Remove</th></tr></thead>
<tbody>${keys.map(
          (key) =>
            html`<tr><td>${key.name}</td><td>${time(key.created_at)}</td><td data-key-last-used>${time(key.last_used_at)}</td><td>${confirmForm({ action: `/console/account/security-keys/${key.id}/remove`, csrf: session.csrf, label: `Remove ${key.name}`, question: 'This key no longer signs you in. Your authenticator app and other keys still do.', confirm: `Remove ${key.name}` })}</td></tr>`,
        )}</tbody></table></div>`;
  const adding =
    options === undefined
      ? html`<p class="hint">${KEYS_OFF}</p>`
      : html`${ceremonyForm({
          kind: 'register',
          action: '/console/account/security-keys',
          csrf: session.csrf,
          options,
          fields: html`<label>Name of the key <input type="text" name="name" required maxlength="${SECURITY_KEY_NAME_MAX}" autocomplete="off"></label>`,
          submit: 'Add a security key',
        })}
${needsScript('Adding a key')}`;
  return html`<section aria-labelledby="security-keys"><h2 id="security-keys">Security keys</h2>
<p>A security key (or your device’s passkey) can stand in for the code of your authenticator app when you sign in, after your password. The app stays on, and its codes keep working.</p>
${list}
${adding}</section>`;
}

/** The sign-in's second step by security key, above the code form (login.ts). */
export function securityKeySignIn(csrf: string, options: PublicKeyCredentialRequestOptionsJSON): Html {
  return html`<section aria-labelledby="use-key"><h2 id="use-key">With your security key</h2>
${ceremonyForm({ kind: 'authenticate', action: '/console/login/security-key', csrf, options, submit: 'Use my security key' })}
${needsScript('Signing in with a key')}
</section>
<h2>Or with a code</h2>`;
}

const NOTICES = { 'key-added': 'The security key is added: it can sign you in from now on.', 'key-removed': 'The security key is removed.' } as const;
export const SECURITY_KEY_NOTICES: Readonly<Record<string, string>> = NOTICES;

/**
 * Adding and removing the person's own security keys (/console/account/security-keys). Both are
 * actions of a signed-in session, so the session's CSRF token is needed (ConsoleSessions.required)
 * and the operator audit log has an entry for each (routes/console/index.ts).
 */
export function registerConsoleSecurityKeys(app: App, { operators }: Services, sessions: ConsoleSessions, flash: Flash): void {
  const viewer = { schema: { hide: true }, preHandler: sessions.required('viewer') };

  app.post('/console/account/security-keys', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    return act(reply, flash, session, '/console/account', 'key-added', async () => {
      const added = await operators.securityKeys.register(session.found.session.id, session.personId, formField(request, 'name') ?? '', formField(request, 'credential') ?? '');
      if (!added.ok) throw new ApiError('unprocessable', added.problem);
    });
  });

  app.post('/console/account/security-keys/:id/remove', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const { id } = request.params as { id: string };
    return act(reply, flash, session, '/console/account', 'key-removed', async () => {
      if (!UUID_PATTERN.test(id) || !(await operators.securityKeys.remove(session.personId, id.toLowerCase()))) throw new ApiError('not_found', 'There is no such security key of yours.');
    });
  });
}
