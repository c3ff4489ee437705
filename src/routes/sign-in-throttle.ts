import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { AttemptDecision } from '../plugins/rate-limit.js';
import { normalEmail } from '../services/account-secrets.js';

/**
 * Sign-in throttles of the cabinet and the console: failures are counted per client address and
 * per account (the email typed, or the person at the code step) before the check runs, and
 * given back on success, so only failures use the budget and parallel guesses cannot slip past it.
 */

/** The per-account throttle's key on `surface`: a hash, so no email sits in the limiter's store. */
export const signInAccountKey = (surface: 'cabinet' | 'console', email: string): string =>
  createHash('sha256').update(`${surface}:${normalEmail(email)}`).digest('hex').slice(0, 32);

/** A 429 page with Retry-After when any of `decisions` refused (the longest wait is said); undefined when all allowed. */
export function throttled(reply: FastifyReply, decisions: AttemptDecision[], render: (problem: string) => string | Promise<string>): Promise<FastifyReply> | undefined {
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length === 0) return undefined;
  const retry = Math.max(...refused.map((decision) => (decision.allowed ? 0 : decision.retryAfterSeconds)));
  return Promise.resolve(render(`Too many sign-in attempts. Wait ${retry} seconds, then try again.`)).then((body) =>
    reply.code(429).header('retry-after', String(retry)).type('text/html; charset=utf-8').send(body),
  );
}
