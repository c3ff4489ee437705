import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { ListedSession } from '../db/repositories/account-tables-repository.js';
import type { Database } from '../db/schema/index.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type AccountAudience, type AccountPerson, type FoundSession } from './account-audience.js';
import { normalEmail, randomSecret, SECRET_SHAPE, sessionState, sha256 } from './account-secrets.js';
import { verifyPassword } from './cabinet-passwords.js';
import type { TotpConfirmResult, TwoFactor } from './two-factor.js';

/** The User-Agent kept per session: enough to tell browsers apart, never a large header. */
const USER_AGENT_MAX = 256;

/**
 * `secondFactor`: the session waits for a code (or, where two-factor is required and the person
 * has none, for its enrolment: `enrolled` false).
 */
export type SignInResult = { ok: true; token: string; secondFactor: boolean; enrolled: boolean } | { ok: false };

/**
 * The sessions of one audience's people (account-audience.ts): sign-in, the session a cookie
 * names, its second step, sign-out, and the person's own list of sessions. The token a browser
 * holds is a 256-bit random value kept only as SHA-256; a session ends after SESSION_IDLE_MS
 * without activity and SESSION_ABSOLUTE_MS after sign-in. Time comes from the clock.
 */
export class AccountSessions<P extends AccountPerson, S extends FoundSession> {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audience: AccountAudience<P, S>,
    private readonly twoFactor: TwoFactor<P>,
  ) {}

  /**
   * Checks email and password (the same work whether the account exists or not) and opens a
   * session: pending its second factor when the person enrolled one, or always where it is required.
   */
  async signIn(email: string, password: string, userAgent?: string): Promise<SignInResult> {
    const person = await this.audience.findPersonByEmail(this.db, normalEmail(email));
    if (!(await verifyPassword(person?.password_hash ?? undefined, password)) || person === undefined) return { ok: false };
    const now = this.clock.now();
    await this.audience.tables.deleteExpiredSessions(this.db, now);
    const enrolled = person.totp_enabled_at !== null;
    const secondFactor = enrolled || this.audience.twoFactorRequired;
    const secret = randomSecret();
    await this.audience.insertSession(this.db, person, {
      token_hash: sha256(secret),
      second_factor_pending: secondFactor,
      user_agent: userAgent === undefined || userAgent === '' ? null : [...userAgent].slice(0, USER_AGENT_MAX).join(''),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + (secondFactor ? this.audience.secondFactorWindowMs : SESSION_ABSOLUTE_MS)),
    });
    return { ok: true, token: secret, secondFactor, enrolled };
  }

  /**
   * The session a cookie names, while it lives: not past its absolute end, not idle longer
   * than SESSION_IDLE_MS (an ended one is deleted). Activity moves the idle clock.
   */
  async session(secret: string): Promise<S | undefined> {
    if (!SECRET_SHAPE.test(secret)) return undefined;
    const tokenHash = sha256(secret);
    const found = await this.audience.findSession(this.db, tokenHash);
    if (found === undefined) return undefined;
    const now = this.clock.now();
    const state = sessionState(found.session, now, SESSION_IDLE_MS);
    if (state === 'ended') {
      await this.audience.tables.deleteSession(this.db, tokenHash);
      return undefined;
    }
    if (state === 'touch') await this.audience.tables.touchSession(this.db, tokenHash, now);
    return found;
  }

  /**
   * The code (or a recovery code) of a session pending its second factor. Right: the session
   * opens, for the absolute lifetime counted from sign-in.
   */
  async completeSecondFactor(secret: string, found: S, code: string): Promise<boolean> {
    const person = await this.audience.findPerson(this.db, this.audience.personOf(found));
    if (person === undefined || !(await this.twoFactor.matches(person, code))) return false;
    await this.open(secret, found);
    return true;
  }

  /**
   * A second factor another service checks (the console's security keys): `proven` is asked
   * about the session's person, and true opens the session as a right code does.
   */
  async completeSecondFactorWith(secret: string, found: S, proven: (personId: string) => Promise<boolean>): Promise<boolean> {
    if (!(await proven(this.audience.personOf(found)))) return false;
    await this.open(secret, found);
    return true;
  }

  /**
   * The first code of an authenticator enrolled while signing in (where two-factor is required):
   * two-factor is on, other sessions end, this one opens, and the recovery codes are returned.
   */
  async completeEnrolment(secret: string, found: S, code: string): Promise<TotpConfirmResult> {
    const confirmed = await this.twoFactor.confirmWhileSigningIn(this.audience.personOf(found), code, secret);
    if (confirmed.ok) await this.open(secret, found);
    return confirmed;
  }

  async signOut(secret: string): Promise<void> {
    if (SECRET_SHAPE.test(secret)) await this.audience.tables.deleteSession(this.db, sha256(secret));
  }

  /** The person's live sessions (ASVS 3.3.4), newest first; the asking one among them. */
  list(personId: string): Promise<ListedSession[]> {
    const now = this.clock.now();
    return this.audience.tables.listSessions(this.db, personId, now, new Date(now.getTime() - SESSION_IDLE_MS));
  }

  /** Signs out one other session of the person: false when `sessionId` is none of theirs (or the asking one). */
  endOne(personId: string, sessionId: string, current: string): Promise<boolean> {
    return this.audience.tables.deleteOneSession(this.db, personId, sessionId, sha256(current));
  }

  /** Signs out every session of the person but the asking one (none kept when `current` is undefined): how many ended. */
  endOthers(personId: string, current?: string): Promise<number> {
    return this.audience.tables.deleteSessions(this.db, personId, current === undefined ? undefined : sha256(current));
  }

  private async open(secret: string, found: S): Promise<void> {
    await this.audience.tables.completeSecondFactor(this.db, sha256(secret), this.clock.now(), new Date(found.session.created_at.getTime() + SESSION_ABSOLUTE_MS));
  }
}
