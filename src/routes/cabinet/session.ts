import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CabinetServices } from '../../app-types.js';
import type { SessionWithUser } from '../../db/repositories/cabinet-sessions-repository.js';
import { roleAllows, ROLE_WORDS, type CabinetPermission } from '../../domain/cabinet-roles.js';
import type { Mode } from '../../domain/modes.js';
import { Flash } from './flash.js';
import { errorPage } from './layout.js';

/**
 * Cabinet sessions in the browser (ASVS V3): the session token in an HttpOnly, SameSite=Strict
 * cookie, Secure and `__Host-` prefixed behind TLS (PUBLIC_URL https or a request that came
 * over https through a trusted proxy); no Max-Age, so it ends with the browser as well as on
 * the server's idle and absolute timeouts. Before sign-in a pre-session cookie anchors the
 * login form's CSRF token.
 */

/** Who may make a change of each kind, as the 403 page says it. */
const PERMISSION_NEEDS: Readonly<Record<CabinetPermission, string>> = {
  people: 'an owner',
  markup: 'an owner',
  payout_addresses: 'an owner',
  keys: 'a developer or an owner',
  webhooks: 'a developer or an owner',
  orders: 'a developer or an owner',
  integration_settings: 'a developer or an owner',
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person's session, set by requireSession. */
    cabinetSession?: CabinetSession;
  }
}

export interface CabinetSession {
  /** The cookie's token (never logged, never in a page). */
  token: string;
  found: SessionWithUser;
  partnerId: string;
  userId: string;
  /** The CSRF token every form of this session carries. */
  csrf: string;
  /**
   * The mode every list, count and form of the page follows (docs/contract.md §9.1, §10.2): `?mode=` of
   * the request (`test` or `sandbox`, or `live`), else the mode cookie the switch sets; live by default.
   */
  mode: Mode;
  /** The page's path (no query): where the mode switch comes back to. */
  path: string;
}

/** The mode a request asks for: its query, else the mode cookie. */
export function requestedMode(request: FastifyRequest, cookie: string): Mode {
  const query = request.query as Record<string, unknown> | undefined;
  const asked = query?.mode;
  if (asked === 'test' || asked === 'sandbox') return 'sandbox';
  if (asked === 'live') return 'live';
  // The orders page's links from before the switch (`?sandbox=1`).
  if (query?.sandbox === '1') return 'sandbox';
  return request.cookies[cookie] === 'sandbox' ? 'sandbox' : 'live';
}

export interface CookieNames {
  session: string;
  pre: string;
  /** The cabinet's mode (live or test), set by the switch: a preference, no secret. */
  mode: string;
  path: string;
  secure: boolean;
}

export function cookieNames(request: FastifyRequest, publicUrl: string | undefined): CookieNames {
  const secure = publicUrl === undefined ? request.protocol === 'https' : publicUrl.startsWith('https:');
  // __Host- cookies must be Secure with Path=/; over plain HTTP (a local start) the path keeps
  // the cookie to the cabinet.
  return secure
    ? { session: '__Host-cabinet_session', pre: '__Host-cabinet_pre', mode: '__Host-cabinet_mode', path: '/', secure }
    : { session: 'cabinet_session', pre: 'cabinet_pre', mode: 'cabinet_mode', path: '/cabinet', secure };
}

const cookieOptions = (names: CookieNames) => ({ path: names.path, httpOnly: true, sameSite: 'strict' as const, secure: names.secure });

export class CabinetSessions {
  /** A form's outcome across its 303 (flash.ts). */
  readonly flash: Flash;

  constructor(
    private readonly cabinet: CabinetServices,
    private readonly publicUrl: string | undefined,
  ) {
    this.flash = new Flash(cabinet);
  }

  names(request: FastifyRequest): CookieNames {
    return cookieNames(request, this.publicUrl);
  }

  /** The live session the request's cookie names, pending second factor or not. */
  async read(request: FastifyRequest): Promise<CabinetSession | undefined> {
    const token = request.cookies[this.names(request).session];
    if (token === undefined || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    const found = await this.cabinet.accounts.session(token);
    if (found === undefined) return undefined;
    return {
      token,
      found,
      partnerId: found.session.partner_id,
      userId: found.session.user_id,
      csrf: this.cabinet.accounts.csrfToken(token),
      mode: requestedMode(request, this.names(request).mode),
      path: request.url.split('?')[0] ?? '/cabinet',
    };
  }

  start(request: FastifyRequest, reply: FastifyReply, token: string): void {
    const names = this.names(request);
    reply.setCookie(names.session, token, cookieOptions(names));
    reply.clearCookie(names.pre, cookieOptions(names));
  }

  /** Remembers the mode the switch chose (for the browser's session: no Max-Age). */
  setMode(request: FastifyRequest, reply: FastifyReply, mode: Mode): void {
    const names = this.names(request);
    reply.setCookie(names.mode, mode, cookieOptions(names));
  }

  end(request: FastifyRequest, reply: FastifyReply): void {
    reply.clearCookie(this.names(request).session, cookieOptions(this.names(request)));
  }

  /** The pre-session anchor of the login and invitation forms, made on first sight. */
  preSessionCsrf(request: FastifyRequest, reply: FastifyReply): string {
    const names = this.names(request);
    let anchor = request.cookies[names.pre];
    if (anchor === undefined || !/^[A-Za-z0-9_-]{43}$/.test(anchor)) {
      anchor = randomBytes(32).toString('base64url');
      reply.setCookie(names.pre, anchor, cookieOptions(names));
    }
    return this.cabinet.accounts.csrfToken(`pre:${anchor}`);
  }

  /** Whether a form posted before sign-in carries the token of its pre-session cookie. */
  preSessionCsrfMatches(request: FastifyRequest): boolean {
    const anchor = request.cookies[this.names(request).pre];
    return anchor !== undefined && this.cabinet.accounts.csrfMatches(`pre:${anchor}`, formField(request, '_csrf'));
  }

  /**
   * preHandler of every signed-in page and action: no live session is a redirect to sign-in;
   * a session still waiting for its second factor goes to the code page. Changes (POST) also
   * need the session's CSRF token.
   */
  required = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const session = await this.read(request);
    if (session === undefined) {
      this.end(request, reply);
      return reply.redirect('/cabinet/login', 303);
    }
    if (session.found.session.second_factor_pending) return reply.redirect('/cabinet/login/code', 303);
    if (session.found.partnerStatus !== 'active') {
      return reply.code(403).type('text/html; charset=utf-8').send(errorPage('Account suspended', 'This partner account is suspended. Contact the operator.'));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && !this.changeAllowed(request, session)) {
      return reply.code(403).type('text/html; charset=utf-8').send(csrfRefusal());
    }
    request.cabinetSession = session;
  };

  /**
   * preHandler of a signed-in action that does what a partner API request does (create or
   * revoke a key, add, test, rotate, enable, disable or delete a webhook endpoint, resend a
   * delivery, act on an order, change a setting): `required`, then one request of the partner's
   * shared budget (the `partner` bucket its keys count against, plugins/rate-limit.ts), so the
   * cabinet is no way around the partner's rate limit. Pages (GET) and the
   * person's own account stay outside it. Over budget: a 429 page with Retry-After.
   */
  partnerAction = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    await this.required(request, reply);
    const session = request.cabinetSession;
    if (session === undefined || reply.sent) return;
    const decision = await this.cabinet.partnerBudget(session.partnerId, session.found.partnerRateLimit);
    if (decision.allowed) return;
    request.cabinetSession = undefined;
    return reply
      .code(429)
      .header('retry-after', String(decision.retryAfterSeconds))
      .type('text/html; charset=utf-8')
      .send(
        errorPage(
          'Too many requests',
          `Your account has used its requests for this minute (the API and this cabinet share one budget). Nothing was changed: try again in ${decision.retryAfterSeconds} s.`,
        ),
      );
  };

  /**
   * preHandler of an action only some roles may take (domain/cabinet-roles.ts): `partnerAction`
   * (or `required` for a change the partner API cannot make, `budget: false`), then the
   * person's role is checked on the server; refused: a 403 page that says who may do it.
   * Pages hide the forms a role cannot use, and this refuses them all the same.
   */
  permitted(permission: CabinetPermission, options: { budget?: boolean } = {}) {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      await (options.budget === false ? this.required(request, reply) : this.partnerAction(request, reply));
      const session = request.cabinetSession;
      if (session === undefined || reply.sent) return;
      if (roleAllows(session.found.role, permission)) return;
      request.cabinetSession = undefined;
      return reply
        .code(403)
        .type('text/html; charset=utf-8')
        .send(errorPage('Not allowed for your role', `Your role is ${ROLE_WORDS[session.found.role].name.toLowerCase()}: this change needs ${PERMISSION_NEEDS[permission]}. Nothing was changed.`));
    };
  }

  /** CSRF: the session's token in the form, and no cross-site fetch metadata. */
  changeAllowed(request: FastifyRequest, session: CabinetSession): boolean {
    return crossSiteAllowed(request) && this.cabinet.accounts.csrfMatches(session.token, formField(request, '_csrf'));
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

export function csrfRefusal() {
  return errorPage('Form expired', 'This form could not be accepted: it expired or did not come from this cabinet. Go back, reload the page and try again.');
}

/** The session set by `required` (a route without it is a bug). */
export function sessionOf(request: FastifyRequest): CabinetSession {
  const session = request.cabinetSession;
  if (session === undefined) throw new Error('cabinet route without the session preHandler');
  return session;
}
