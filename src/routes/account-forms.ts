import { PASSWORD_MIN_LENGTH } from '../services/cabinet-passwords.js';
import { html, type Html } from './cabinet/html.js';
import { csrfField } from './cabinet/layout.js';

/**
 * The account forms the cabinet and the console share: sign-in, the second factor's code, and
 * a new password.
 */

/** Email and password; `email` refills the field after a refusal. */
export function signInForm(parts: { action: string; csrf: string; email: string | undefined; problem: string | undefined }): Html {
  return html`<form method="post" action="${parts.action}" class="stack">
  ${csrfField(parts.csrf)}
  ${parts.problem === undefined ? '' : html`<p role="alert">${parts.problem}</p>`}
  <label>Email <input type="email" name="email" autocomplete="username" required maxlength="254" value="${parts.email ?? ''}"></label>
  <label>Password <input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label>
  <button type="submit">Sign in</button>
</form>`;
}

/** The second step of a sign-in: a code of the authenticator, or a recovery code. */
export function codeForm(parts: { action: string; csrf: string; problem: string | undefined }): Html {
  return html`<form method="post" action="${parts.action}" class="stack">
  ${csrfField(parts.csrf)}
  ${parts.problem === undefined ? '' : html`<p role="alert">${parts.problem}</p>`}
  <label>Code from your authenticator app, or a recovery code
    <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="32" autofocus>
  </label>
  <button type="submit">Continue</button>
</form>`;
}

/**
 * The form of a one-time link that sets a password (the cabinet's invitation and reset links,
 * the console's invitation): the email as a hidden username field (so a password manager files
 * the new password under it), the new password twice, and the strength hint.
 */
export function newPasswordForm(parts: { action: string; csrf: string; email: string; problem: string | undefined; submit: string }): Html {
  return html`<form method="post" action="${parts.action}" class="stack">
  ${csrfField(parts.csrf)}
  ${parts.problem === undefined ? '' : html`<p role="alert">${parts.problem}</p>`}
  <input type="email" name="email" autocomplete="username" value="${parts.email}" hidden readonly>
  <label>New password
    <input type="password" name="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="128" aria-describedby="password-hint">
  </label>
  <p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters and hard to guess: a few unrelated words work well.</p>
  <label>The same password again
    <input type="password" name="confirm" autocomplete="new-password" required maxlength="128">
  </label>
  <button type="submit">${parts.submit}</button>
</form>`;
}
