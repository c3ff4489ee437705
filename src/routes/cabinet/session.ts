import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CabinetServices } from '../../app-types.js';
import type { SessionWithUser } from '../../db/repositories/cabinet-sessions-repository.js';
import { roleAllows, ROLE_WORDS, type CabinetPermission } from '../../domain/cabinet-roles.js';
import type { Mode } from '../../domain/modes.js';
import { BrowserSessions, crossSiteAllowed, formField } from '../browser-sessions.js';
import { Flash } from './flash.js';
import { errorPage } from './layout.js';

/**
 * Cabinet sessions in the browser (routes/browser-sessions.ts): `cabinet_*` cookies, Secure and
 * `__Host-` prefixed when PUBLIC_URL is https (or, without PUBLIC_URL, the request came over
 * https through a trusted proxy); a mode cookie beside them; a suspended partner's session opens nothing.
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

export class CabinetSessions extends BrowserSessions<SessionWithUser> {
  /** A form's outcome across its 303 (flash.ts). */
  readonly flash: Flash;

  constructor(
    private readonly cabinet: CabinetServices,
    publicUrl: string | undefined,
  ) {
    super(cabinet, publicUrl, { surface: 'cabinet', httpsRequestSuffices: false });
    this.flash = new Flash(cabinet.forms);
  }

  /** The live session the request's cookie names, pending second factor or not. */
  async read(request: FastifyRequest): Promise<CabinetSession | undefined> {
    const live = await this.found(request);
    if (live === undefined) return undefined;
    const { token, found } = live;
    return {
      token,
      found,
      partnerId: found.session.partner_id,
      userId: found.session.user_id,
      csrf: this.csrfOf(token),
      mode: requestedMode(request, this.names(request).mode),
      path: request.url.split('?')[0] ?? '/cabinet',
    };
  }

  /** Remembers the mode the switch chose (for the browser's session: no Max-Age). */
  setMode(request: FastifyRequest, reply: FastifyReply, mode: Mode): void {
    const names = this.names(request);
    reply.setCookie(names.mode, mode, this.cookieOptions(names));
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

// Many cabinet and console pages import these from here.
export { crossSiteAllowed, formField };
