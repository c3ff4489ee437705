import { roleAtLeast, type OperatorRole } from '../../domain/operator-roles.js';
import { html, type Html } from '../cabinet/html.js';
import { pageShell, type Surface } from '../page-shell.js';
import type { ConsoleSession } from './session.js';

/** The console's pages in the navigation, each with the least role that sees it. */
export const CONSOLE_NAVIGATION = [
  { path: '/console', label: 'Attention', role: 'viewer' },
  { path: '/console/orders', label: 'Orders', role: 'viewer' },
  { path: '/console/partners', label: 'Partners', role: 'viewer' },
  { path: '/console/catalog', label: 'Catalog', role: 'viewer' },
  { path: '/console/prices', label: 'Prices', role: 'viewer' },
  { path: '/console/pools', label: 'Pools', role: 'viewer' },
  { path: '/console/health', label: 'Health', role: 'viewer' },
  { path: '/console/treasury', label: 'Treasury', role: 'viewer' },
  { path: '/console/audit', label: 'Audit log', role: 'viewer' },
  { path: '/console/people', label: 'People', role: 'admin' },
  { path: '/console/account', label: 'My account', role: 'viewer' },
] as const satisfies ReadonlyArray<{ path: string; label: string; role: OperatorRole }>;

export type ConsolePath = (typeof CONSOLE_NAVIGATION)[number]['path'];

interface PageParts {
  title: string;
  body: Html;
  session?: ConsoleSession;
  active?: ConsolePath;
  notice?: string | undefined;
  problem?: string | undefined;
  /** Scripts under /console/assets this page needs beside console.js. */
  scripts?: readonly string[];
}

const CONSOLE: Surface = { name: 'Operator console', assets: '/console/assets', stylesheet: 'console.css', script: 'console.js' };

/**
 * One console page (routes/page-shell.ts): the cabinet's plain, accessible HTML and its one
 * stylesheet and script (served again under /console/assets, so the console needs nothing of
 * the partner surface); signed in, the navigation shows the pages the person's role sees.
 */
export function consolePage(parts: PageParts): string {
  const { session } = parts;
  return pageShell(CONSOLE, {
    ...parts,
    signedIn:
      session === undefined
        ? undefined
        : {
            who: html`${session.found.name ?? session.found.email} · ${session.found.email} · ${session.role}`,
            logout: '/console/logout',
            csrf: session.csrf,
            navigation: { label: 'Console', items: CONSOLE_NAVIGATION.filter((item) => roleAtLeast(session.role, item.role)), active: parts.active },
          },
  });
}

export function consoleErrorPage(title: string, message: string): string {
  return consolePage({ title, body: html`<p role="alert">${message}</p><p><a href="/console">Back to the console</a></p>` });
}

/** How long ago, in words a person scans: "5 min", "3 h", "2 d". */
export function age(since: Date, now: Date): string {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

/** The notices a redirect may name (a fixed set: nothing from the URL is shown as is). */
export function noticeOf(query: unknown, notices: Readonly<Record<string, string>>): string | undefined {
  const done = (query as Record<string, unknown> | undefined)?.done;
  return typeof done === 'string' ? notices[done] : undefined;
}
