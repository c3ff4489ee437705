import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FoundSession } from '../services/account-audience.js';
import type { FormTokens } from '../services/account-secrets.js';
import { SECRET_SHAPE } from '../services/account-secrets.js';
import type { AccountSessions } from '../services/account-sessions.js';

/**
 * A signed-in browser of the cabinet or the console (ASVS V3): the session token in an
 * HttpOnly, SameSite=Strict cookie, Secure and `__Host-` prefixed behind TLS; no Max-Age, so it
 * ends with the browser as well as on the server's idle and absolute timeouts. Before sign-in
 * a pre-session cookie anchors the sign-in and link forms' CSRF token. Each surface has cookies
 * of its own names, so a browser signed in to both keeps both.
 */

export interface CookieNames {
  session: string;
  pre: string;
  /** The cabinet's mode (live or test), set by its switch: a preference, no secret. */
  mode: string;
  path: string;
  secure: boolean;
}

export interface CookieRules {
  /** `cabinet` or `console`: the cookies are `<surface>_session`, `<surface>_pre`… (`__Host-` prefixed when secure). */
  surface: string;
  /**
   * Whether a request that came over https (through a trusted proxy) makes the cookies Secure
   * even when PUBLIC_URL is http (the console); else PUBLIC_URL decides when it is set (the cabinet).
   */
  httpsRequestSuffices: boolean;
}

/** The two account services a browser session needs: the sessions, and the CSRF keys of the surface's forms. */
interface SurfaceAccounts<S extends FoundSession> {
  readonly sessions: Pick<AccountSessions<never, S>, 'session'>;
  readonly forms: Pick<FormTokens, 'token' | 'matches'>;
}

export class BrowserSessions<S extends FoundSession> {
  constructor(
    protected readonly accounts: SurfaceAccounts<S>,
    private readonly publicUrl: string | undefined,
    private readonly rules: CookieRules,
  ) {}

  names(request: FastifyRequest): CookieNames {
    const overHttps = request.protocol === 'https';
    const secure = this.publicUrl === undefined ? overHttps : (this.rules.httpsRequestSuffices && overHttps) || this.publicUrl.startsWith('https:');
    const surface = this.rules.surface;
    // __Host- cookies must be Secure with Path=/; over plain HTTP (a local start) the path keeps
    // the cookie to the surface.
    return secure
      ? { session: `__Host-${surface}_session`, pre: `__Host-${surface}_pre`, mode: `__Host-${surface}_mode`, path: '/', secure }
      : { session: `${surface}_session`, pre: `${surface}_pre`, mode: `${surface}_mode`, path: `/${surface}`, secure };
  }

  protected cookieOptions(names: CookieNames) {
    return { path: names.path, httpOnly: true, sameSite: 'strict' as const, secure: names.secure };
  }

  /** The live session the request's cookie names (pending its second factor or not), with its token. */
  protected async found(request: FastifyRequest): Promise<{ token: string; found: S } | undefined> {
    const token = request.cookies[this.names(request).session];
    if (token === undefined || !SECRET_SHAPE.test(token)) return undefined;
    const found = await this.accounts.sessions.session(token);
    return found === undefined ? undefined : { token, found };
  }

  /** The CSRF token of a session's forms. */
  protected csrfOf(token: string): string {
    return this.accounts.forms.token(token);
  }

  start(request: FastifyRequest, reply: FastifyReply, token: string): void {
    const names = this.names(request);
    reply.setCookie(names.session, token, this.cookieOptions(names));
    reply.clearCookie(names.pre, this.cookieOptions(names));
  }

  end(request: FastifyRequest, reply: FastifyReply): void {
    const names = this.names(request);
    reply.clearCookie(names.session, this.cookieOptions(names));
  }

  /** The pre-session anchor of the sign-in and link forms, made on first sight. */
  preSessionCsrf(request: FastifyRequest, reply: FastifyReply): string {
    const names = this.names(request);
    let anchor = request.cookies[names.pre];
    if (anchor === undefined || !SECRET_SHAPE.test(anchor)) {
      anchor = randomBytes(32).toString('base64url');
      reply.setCookie(names.pre, anchor, this.cookieOptions(names));
    }
    return this.accounts.forms.token(`pre:${anchor}`);
  }

  /** Whether a form posted before sign-in is same-site and carries the token of its pre-session cookie. */
  preSessionCsrfMatches(request: FastifyRequest): boolean {
    const anchor = request.cookies[this.names(request).pre];
    return crossSiteAllowed(request) && anchor !== undefined && this.accounts.forms.matches(`pre:${anchor}`, formField(request, '_csrf'));
  }

  /** CSRF: the session's token in the form, and no cross-site fetch metadata. */
  changeAllowed(request: FastifyRequest, session: { token: string }): boolean {
    return crossSiteAllowed(request) && this.accounts.forms.matches(session.token, formField(request, '_csrf'));
  }
}

/** Fetch metadata (sent by every current browser): a form posted from another site is refused outright. */
export function crossSiteAllowed(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

export function formField(request: FastifyRequest, name: string): string | undefined {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}
