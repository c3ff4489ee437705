import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperatorServices } from '../../app-types.js';
import type { OperatorSessionWithPerson } from '../../db/repositories/operator-people-repository.js';
import { roleAtLeast, type OperatorRole } from '../../domain/operator-roles.js';
import { personActor } from '../../services/operator-people.js';
import { BrowserSessions } from '../browser-sessions.js';
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

/**
 * Console sessions in the browser, as the cabinet's (routes/browser-sessions.ts): `console_*`
 * cookies, Secure and `__Host-` prefixed when PUBLIC_URL is https or the request came over https.
 */
export class ConsoleSessions extends BrowserSessions<OperatorSessionWithPerson> {
  constructor(operators: OperatorServices, publicUrl: string | undefined) {
    super(operators, publicUrl, { surface: 'console', httpsRequestSuffices: true });
  }

  async read(request: FastifyRequest): Promise<ConsoleSession | undefined> {
    const live = await this.found(request);
    if (live === undefined) return undefined;
    const { token, found } = live;
    return { token, found, personId: found.session.person_id, role: found.role, actor: personActor(found.email), csrf: this.csrfOf(token) };
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
