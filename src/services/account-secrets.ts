import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * What the partner cabinet's accounts and the operator console's people share: the secrets a
 * browser or a link carries (256-bit random, kept only as SHA-256), recovery codes, email
 * normalising, and the synchronizer CSRF tokens of their forms.
 */

export const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A 256-bit random secret, base64url (43 characters). */
export const randomSecret = (): string => randomBytes(32).toString('base64url');

/** What a cookie holding randomSecret() looks like: anything else is not even looked up. */
export const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Recovery codes: 10 characters of an alphabet with no look-alikes, shown as xxxxx-xxxxx. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODES = 10;

/** A session's (or token's) last-seen time is written at most this often: activity within it changes nothing stored. */
export const TOUCH_EVERY_MS = 60_000;

/**
 * What a session's times say now, the same rule for the cabinet and the console: `ended` past its
 * absolute end or idle for `idleMs` (the caller deletes it), `touch` live and seen long enough ago
 * to write the new last-seen time, `live` otherwise.
 */
export function sessionState(session: { expires_at: Date; last_seen_at: Date }, now: Date, idleMs: number): 'ended' | 'touch' | 'live' {
  const idle = now.getTime() - session.last_seen_at.getTime();
  if (session.expires_at <= now || idle >= idleMs) return 'ended';
  return idle >= TOUCH_EVERY_MS ? 'touch' : 'live';
}

export function recoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

export const normalRecoveryCode = (code: string): string => code.trim().toLowerCase().replace(/[^a-z0-9]/g, '');

export const normalEmail = (email: string): string => email.trim().toLowerCase();
/** Good enough to send a link to: something@something, no spaces, within RFC 5321's 254. */
export const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/**
 * The CSRF token of the forms a browser is shown: an HMAC of its session token (or of its
 * pre-session cookie before sign-in), so it changes with every session and only this server
 * can make one (synchronizer token, OWASP CSRF cheat sheet). Each surface derives a key of its
 * own from SECRETS_KEY (`purpose`), so a token of one is never good on the other.
 */
export class FormTokens {
  private readonly key: Buffer;

  constructor(secretsKey: Buffer, purpose: string) {
    this.key = createHmac('sha256', secretsKey).update(purpose).digest();
  }

  token(anchor: string): string {
    return createHmac('sha256', this.key).update(anchor).digest('base64url');
  }

  matches(anchor: string, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(this.token(anchor));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
