import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app-types.js';
import { newPasswordForm } from '../account-forms.js';
import { html, type Html } from './html.js';
import { errorPage, page } from './layout.js';
import { crossSiteAllowed, csrfRefusal, formField, type CabinetSessions } from './session.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

type Outcome = { ok: true } | { ok: false; problem: string };

/** What differs between the one-time links whose page sets a password (invitation, reset). */
export interface PasswordLink {
  /** The path segment after /cabinet/: the link is /cabinet/<path>/<token>. */
  path: string;
  title: string;
  intro: (email: string) => Html;
  submit: string;
  invalidTitle: string;
  invalidProblem: string;
  /** The link's state: the person's email while it can still be used. */
  open: (token: string) => Promise<({ ok: true; email: string }) | { ok: false; problem: string }>;
  /** Sets the password and uses the link up; `ip` is the browser's address (a reset's use is recorded with it). */
  complete: (token: string, password: string, ip: string) => Promise<Outcome>;
  /** Where the browser goes once the password is set (a 303). */
  done: string;
  /** Ends the browser's own session too (its cookie) once the password is set. */
  endSession?: boolean;
}

/**
 * GET shows the form, POST checks CSRF (the pre-session token), the link, the confirmation and
 * the password's strength, then completes. The link's token is a credential until used, and the
 * path carries it: the request line is logged without it (src/logger.ts).
 */
export function registerPasswordLink(app: App, sessions: CabinetSessions, link: PasswordLink): void {
  const route = `/cabinet/${link.path}/:token`;
  // The request line is logged without the token by the logger's own `req` serializer
  // (redactUrl in src/logger.ts), on this route and on any 404 under it.
  const options = { schema: { hide: true } };
  const form = (request: FastifyRequest, reply: FastifyReply, token: string, email: string, problem?: string) =>
    page({
      title: link.title,
      body: html`${link.intro(email)}
${newPasswordForm({ action: `/cabinet/${link.path}/${token}`, csrf: sessions.preSessionCsrf(request, reply), email, problem, submit: link.submit })}`,
    });
  const opened = async (request: FastifyRequest, reply: FastifyReply): Promise<{ token: string; email: string } | undefined> => {
    const { token } = request.params as { token: string };
    const state = TOKEN.test(token) ? await link.open(token) : undefined;
    if (state !== undefined && state.ok) return { token, email: state.email };
    await reply.code(404).type('text/html; charset=utf-8').send(errorPage(link.invalidTitle, state?.problem ?? link.invalidProblem));
    return undefined;
  };
  const html400 = (reply: FastifyReply, body: string) => reply.code(400).type('text/html; charset=utf-8').send(body);

  app.get(route, options, async (request, reply) => {
    const state = await opened(request, reply);
    if (state === undefined) return reply;
    return reply.type('text/html; charset=utf-8').send(form(request, reply, state.token, state.email));
  });

  app.post(route, options, async (request, reply) => {
    if (!crossSiteAllowed(request) || !sessions.preSessionCsrfMatches(request)) {
      return reply.code(403).type('text/html; charset=utf-8').send(csrfRefusal());
    }
    const state = await opened(request, reply);
    if (state === undefined) return reply;
    const password = formField(request, 'password') ?? '';
    if (password !== formField(request, 'confirm')) return html400(reply, form(request, reply, state.token, state.email, 'The two passwords differ.'));
    const completed = await link.complete(state.token, password, request.ip);
    if (!completed.ok) return html400(reply, form(request, reply, state.token, state.email, completed.problem));
    if (link.endSession === true) sessions.end(request, reply);
    return reply.redirect(link.done, 303);
  });
}
