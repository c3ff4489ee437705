import type { FastifyReply } from 'fastify';
import { ApiError } from '../../errors.js';
import type { Flash } from '../cabinet/flash.js';
import type { ConsoleSession } from './session.js';

/** Where a form comes back to: a console path from the form, else `fallback` (never another site). */
export function backTo(value: string | undefined, fallback: string): string {
  return value !== undefined && /^\/console(\/[A-Za-z0-9/_-]*)?(\?[A-Za-z0-9=&%._-]*)?$/.test(value) ? value : fallback;
}

/**
 * Runs a console action and answers 303 to `back`: with `?done=<word>` on success, or the
 * refusal in words (a service's ApiError: 404, 409 and the like) signed for the session.
 */
export async function act(reply: FastifyReply, flash: Flash, session: ConsoleSession, back: string, done: string, action: () => Promise<unknown>): Promise<FastifyReply> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return flash.redirect(reply, session, back, 'problem', error.message);
    throw error;
  }
  return reply.redirect(`${back}${back.includes('?') ? '&' : '?'}done=${done}`, 303);
}
