import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperatorServices } from '../../app-types.js';
import type { OperatorSessionWithPerson } from '../../db/repositories/operator-people-repository.js';
import { roleAtLeast, type OperatorRole } from '../../domain/operator-roles.js';
import { SECRET_SHAPE } from '../../services/account-secrets.js';
import { personActor } from '../../services/operator-people.js';
import { crossSiteAllowed, formField } from '../cabinet/session.js';
import { consoleErrorPage } from './layout.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person's session, set by ConsoleSessions.required. */
    consoleSession?: ConsoleSession;
  }
}

export interface ConsoleSession {
  /** The cookie's token (never logged, never in a page). */
  token: string;
  found: OperatorSessionWithPerson;
  personId: string;
  role: OperatorRole;
  /** `person:<email>`: the audit log's actor. */
  actor: string;
  csrf: string;
}

interface CookieNames {
  session: string;
  pre: string;
  path: string;
  secure: boolean;
}

/**
 * Console sessions in the browser, as the cabinet's (routes/cabinet/session.ts): the token in an
 * HttpOnly, SameSite=Strict cookie, Secure and `__Host-` prefixed behind TLS; a pre-session
 * cookie anchors the sign-in form's CSRF token. Cookies of their own names, so a browser signed
 * in to both keeps both.
 */
export class ConsoleSessions {
  constructor(
    private readonly operators: OperatorServices,
    private readonly publicUrl: string | undefined,
  ) {}

  private names(request: FastifyRequest): CookieNames {
    const secure = this.publicUrl === undefined ? request.protocol === 'https' : request.protocol === 'https' || this.publicUrl.startsWith('https:');
    return secure
      ? { session: '__Host-console_session', pre: '__Host-console_pre', path: '/', secure }
      : { session: 'console_session', pre: 'console_pre', path: '/console', secure };
  }

  private options(names: CookieNames) {
    return { path: names.path, httpOnly: true, sameSite: 'strict' as const, secure: names.secure };
  }

  async read(request: FastifyRequest): Promise<ConsoleSession | undefined> {
    const token = request.cookies[this.names(request).session];
    if (token === undefined || !SECRET_SHAPE.test(token)) return undefined;
    const found = await this.operators.people.session(token);
    if (found === undefined) return undefined;
    return { token, found, personId: found.session.person_id, role: found.role, actor: personActor(found.email), csrf: this.operators.people.csrfToken(token) };
  }

  start(request: FastifyRequest, reply: FastifyReply, token: string): void {
    const names = this.names(request);
    reply.setCookie(names.session, token, this.options(names));
    reply.clearCookie(names.pre, this.options(names));
  }

  end(request: FastifyRequest, reply: FastifyReply): void {
    const names = this.names(request);
    reply.clearCookie(names.session, this.options(names));
  }

  preSessionCsrf(request: FastifyRequest, reply: FastifyReply): string {
    const names = this.names(request);
    let anchor = request.cookies[names.pre];
    if (anchor === undefined || !SECRET_SHAPE.test(anchor)) {
      anchor = randomBytes(32).toString('base64url');
      reply.setCookie(names.pre, anchor, this.options(names));
    }
    return this.operators.people.csrfToken(`pre:${anchor}`);
  }

  preSessionCsrfMatches(request: FastifyRequest): boolean {
    const anchor = request.cookies[this.names(request).pre];
    return crossSiteAllowed(request) && anchor !== undefined && this.operators.people.csrfMatches(`pre:${anchor}`, formField(request, '_csrf'));
  }

  changeAllowed(request: FastifyRequest, session: ConsoleSession): boolean {
    return crossSiteAllowed(request) && this.operators.people.csrfMatches(session.token, formField(request, '_csrf'));
  }

  /**
   * preHandler of a signed-in page or action needing `minimum`: no live session goes to sign-in,
   * one pending its second factor to the code page; a role below `minimum` is a 403 page; a
   * change (POST) needs the session's CSRF token.
   */
  required(minimum: OperatorRole) {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const session = await this.read(request);
      if (session === undefined) {
        this.end(request, reply);
        return reply.redirect('/console/login', 303);
      }
      if (session.found.session.second_factor_pending) return reply.redirect('/console/login/code', 303);
      if (request.method !== 'GET' && request.method !== 'HEAD' && !this.changeAllowed(request, session)) {
        return reply
          .code(403)
          .type('text/html; charset=utf-8')
          .send(consoleErrorPage('Form expired', 'This form could not be accepted: it expired or did not come from this console. Go back, reload the page and try again.'));
      }
      if (!roleAtLeast(session.role, minimum)) {
        return reply
          .code(403)
          .type('text/html; charset=utf-8')
          .send(consoleErrorPage('Not allowed', `This needs the ${minimum} role; you are ${session.role}. Ask an admin if you need it.`));
      }
      request.consoleSession = session;
    };
  }
}

/** The session set by `required` (a route without it is a bug). */
export function consoleSessionOf(request: FastifyRequest): ConsoleSession {
  const session = request.consoleSession;
  if (session === undefined) throw new Error('console route without the session preHandler');
  return session;
}
