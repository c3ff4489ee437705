import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { insertReveal, takeReveal } from '../db/repositories/cabinet-sessions-repository.js';
import type { CabinetRevealKind } from '../db/schema/cabinet-accounts.js';
import type { Database } from '../db/schema/index.js';

/**
 * A reveal (a new secret shown once by the page a form's redirect leads to) lasts this long:
 * the browser follows the redirect at once; a page opened later shows no secret.
 */
export const REVEAL_TTL_MS = 2 * 60_000;

/**
 * The cabinet's one-time reveals (migration 0032): a form that made a secret (an API key, a
 * webhook secret) redirects to a page that may show it once, to the same session only. Nothing
 * secret is stored here: the page opens the key's or endpoint's own sealed secret.
 */
export class SecretReveals {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Records that the redirect's page may show `subject`'s new secret once, to this session; returns the id the redirect names. */
  offer(sessionId: string, kind: CabinetRevealKind, subject: string): Promise<string> {
    const at = this.clock.now();
    return insertReveal(this.db, { sessionId, kind, subject, at, expiresAt: new Date(at.getTime() + REVEAL_TTL_MS) });
  }

  /** Takes the session's reveal once: its subject, or undefined (used, expired, another session's, or no such id). */
  take(sessionId: string, id: string, kind: CabinetRevealKind): Promise<string | undefined> {
    return takeReveal(this.db, sessionId, id, kind, this.clock.now());
  }
}
