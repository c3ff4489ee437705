import { html, type Html } from './html.js';
import { pageShell, type Surface } from '../page-shell.js';
import { roleAllows, ROLE_WORDS, type CabinetPermission } from '../../domain/cabinet-roles.js';
import type { CabinetSession } from './session.js';

/** The pages of the signed-in cabinet, in the order the navigation lists them. */
export const NAVIGATION = [
  { path: '/cabinet', label: 'Overview' },
  { path: '/cabinet/orders', label: 'Orders' },
  { path: '/cabinet/keys', label: 'API keys' },
  { path: '/cabinet/webhooks', label: 'Webhooks' },
  { path: '/cabinet/requests', label: 'Requests' },
  { path: '/cabinet/payouts', label: 'Payouts' },
  { path: '/cabinet/settings', label: 'Settings' },
  { path: '/cabinet/team', label: 'Team' },
  { path: '/cabinet/account', label: 'Account' },
  { path: '/cabinet/api-reference', label: 'API reference' },
] as const;

export type NavigationPath = (typeof NAVIGATION)[number]['path'];

interface PageParts {
  title: string;
  body: Html;
  /** Signed in: the navigation, the partner's name and the sign-out button. */
  session?: CabinetSession;
  active?: NavigationPath;
  /** A short message at the top (after a change), announced to screen readers. */
  notice?: string;
  /** What went wrong with the last change (a form's refusal after its redirect), as an alert. */
  problem?: string;
}

const CABINET: Surface = {
  name: 'Partner cabinet',
  assets: '/cabinet/assets',
  stylesheet: 'cabinet.css',
  script: 'cabinet.js',
  head: html`<meta name="color-scheme" content="light dark">`,
};

/** One cabinet page (routes/page-shell.ts): signed in, the partner's name, the mode switch and the test-mode banner. */
export function page(parts: PageParts): string {
  const { session } = parts;
  return pageShell(CABINET, {
    ...parts,
    signedIn:
      session === undefined
        ? undefined
        : {
            who: html`${session.found.partnerName} · ${session.found.email}`,
            controls: modeSwitch(session),
            logout: '/cabinet/logout',
            csrf: session.csrf,
            navigation: { label: 'Cabinet', items: NAVIGATION, active: parts.active },
          },
    banner:
      session?.mode === 'sandbox'
        ? html`<section class="test-banner" aria-label="Test mode"><div role="note"><strong>Test mode</strong>: you see sandbox keys, orders, webhook endpoints and figures. Nothing here moves real funds.</div></section>`
        : undefined,
  });
}

/** The test/live switch (docs/contract.md §9.1): one button to the other mode, back to this page. */
function modeSwitch(session: CabinetSession): Html {
  const other = session.mode === 'sandbox' ? 'live' : 'sandbox';
  return html`<form method="post" action="/cabinet/mode" class="inline mode-switch">
    <input type="hidden" name="_csrf" value="${session.csrf}">
    <input type="hidden" name="mode" value="${other}">
    <input type="hidden" name="back" value="${session.path}">
    <span class="mode-now">${session.mode === 'sandbox' ? 'Test mode' : 'Live mode'}</span>
    <button type="submit" class="secondary">${other === 'sandbox' ? 'Switch to test mode' : 'Switch to live mode'}</button>
  </form>`;
}

/** A page that only says what went wrong, with a way back. */
export function errorPage(title: string, message: string): string {
  return page({ title, body: html`<p role="alert">${message}</p><p><a href="/cabinet">Back to the cabinet</a></p>` });
}

/** The page of an unknown /cabinet path (docs/contract.md §9.1: every unknown path under /cabinet is a page). */
export function notFoundPage(): string {
  return errorPage('Page not found', 'There is no page at this address in the cabinet. It may have moved, or the link may be mistyped.');
}

/** A form's CSRF field. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/**
 * A form whose button does something that cannot be undone (revoke a live key, delete or
 * rotate an endpoint, refund now): the first button only opens a disclosure that says what will
 * happen, and the form's own button inside it confirms. Works without JavaScript (details).
 */
export function confirmForm(parts: { action: string; csrf: string; label: Html | string; question: string; confirm: Html | string; fields?: Html }): Html {
  return html`<details class="confirm"><summary>${parts.label}</summary>
<div class="confirm-body"><p>${parts.question}</p>
<form method="post" action="${parts.action}">${csrfField(parts.csrf)}${parts.fields ?? ''}<button type="submit" class="danger">${parts.confirm}</button></form></div>
</details>`;
}

/**
 * A date as people read it, in UTC, with the machine-readable value beside it. The script
 * (assets/cabinet.js) shows it in the browser's time zone and keeps the UTC text on hover.
 */
export function time(at: Date | null): Html {
  if (at === null) return html`—`;
  const iso = at.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** Whether the signed-in person's role may make changes of this kind (the server checks again: session.permitted). */
export function can(session: CabinetSession, permission: CabinetPermission): boolean {
  return roleAllows(session.found.role, permission);
}

/** Said where a form is left out because the person's role cannot use it. */
export function roleNote(session: CabinetSession, needs: string): Html {
  return html`<p class="hint">You are a ${ROLE_WORDS[session.found.role].name.toLowerCase()} of this team: ${needs}.</p>`;
}
