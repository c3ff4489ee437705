import { html, type Html } from './cabinet/html.js';

/**
 * The page both browser surfaces (the partner cabinet and the operator console) serve: plain
 * HTML, one stylesheet and one small script of this origin (the CSP allows nothing else; a page
 * with a security key ceremony adds that one's script, of this origin too), readable with
 * JavaScript off and at phone width. A surface names itself, its assets, and what
 * its signed-in header shows.
 */

export interface Surface {
  /** The brand in the header and the title's suffix: "Partner cabinet", "Operator console". */
  name: string;
  /** Where its assets are served: /cabinet/assets, /console/assets. */
  assets: string;
  stylesheet: string;
  script: string;
  /** Extra head lines (the cabinet's colour scheme). */
  head?: Html;
}

/** What the header shows to a signed-in person. */
export interface SignedInHeader {
  who: Html;
  /** Beside the sign-out button (the cabinet's mode switch). */
  controls?: Html;
  logout: string;
  csrf: string;
  /** The navigation's accessible name, its links in order, and the page among them. */
  navigation: { label: string; items: ReadonlyArray<{ path: string; label: string }>; active: string | undefined };
}

export interface ShellParts {
  title: string;
  body: Html;
  /** Signed in: the navigation and the sign-out button. */
  signedIn?: SignedInHeader;
  /** Between the header and the page's content (the cabinet's test-mode banner). */
  banner?: Html;
  /** A short message at the top (after a change), announced to screen readers. */
  notice?: string | undefined;
  /** What went wrong with the last change (a form's refusal after its redirect), as an alert. */
  problem?: string | undefined;
  /** Scripts of the surface's assets this page alone needs beside its own (a security key ceremony's). */
  scripts?: readonly string[];
}

export function pageShell(surface: Surface, parts: ShellParts): string {
  const { signedIn } = parts;
  const header =
    signedIn === undefined
      ? html`<header class="top"><span class="brand">${surface.name}</span></header>`
      : html`<header class="top">
  <span class="brand">${surface.name}</span>
  <span class="who">${signedIn.who}</span>
  ${signedIn.controls ?? ''}
  <form method="post" action="${signedIn.logout}" class="inline">
    <input type="hidden" name="_csrf" value="${signedIn.csrf}">
    <button type="submit">Sign out</button>
  </form>
</header>
<nav aria-label="${signedIn.navigation.label}">
  <ul>${signedIn.navigation.items.map(
    (item) => html`<li><a href="${item.path}"${item.path === signedIn.navigation.active ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
  )}</ul>
</nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${surface.head ?? ''}
<title>${parts.title} · ${surface.name}</title>
<link rel="icon" href="${surface.assets}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${surface.assets}/${surface.stylesheet}">
<script src="${surface.assets}/${surface.script}" defer></script>
${(parts.scripts ?? []).map((script) => html`<script src="${surface.assets}/${script}" defer></script>
`)}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
${parts.banner ?? ''}
<main id="main">
<h1>${parts.title}</h1>
${parts.notice === undefined ? '' : html`<p class="notice" role="status">${parts.notice}</p>`}
${parts.problem === undefined ? '' : html`<p class="problem" role="alert">${parts.problem}</p>`}
${parts.body}
</main>
</body>
</html>
`.text;
}
