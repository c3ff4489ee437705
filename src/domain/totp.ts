import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32nopad } from '@scure/base';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226): HMAC-SHA1, 6 digits, 30-second
 * steps, what every authenticator app reads from an otpauth:// URI. Pure: the caller passes
 * the time and keeps the last step used, so a code is accepted once.
 */

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now a code may come from: a phone's clock a little off still works. */
const ALLOWED_DRIFT_STEPS = 1;
/** 160 bits, RFC 4226's recommended secret length. */
const SECRET_BYTES = 20;

export function newTotpSecret(): string {
  return base32nopad.encode(randomBytes(SECRET_BYTES));
}

/** The time step of `at`: Unix seconds / 30, rounded down. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);
}

/** The code of one time step (RFC 4226 dynamic truncation). */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', Buffer.from(base32nopad.decode(secret))).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** TOTP_DIGITS;
  return String(value).padStart(TOTP_DIGITS, '0');
}

/**
 * The step `code` belongs to, if it is the code of a step within the allowed drift of `at` and
 * after `lastStep` (a code already used, or an older one, is refused); else undefined.
 */
export function matchTotp(secret: string, code: string, at: Date, lastStep: number | null): number | undefined {
  const given = code.replace(/\s/g, '');
  if (!/^[0-9]{6}$/.test(given)) return undefined;
  const now = totpStep(at);
  let matched: number | undefined;
  // Every candidate is compared (constant work whatever matches).
  for (let step = now - ALLOWED_DRIFT_STEPS; step <= now + ALLOWED_DRIFT_STEPS; step++) {
    const same = timingSafeEqual(Buffer.from(totpCode(secret, step)), Buffer.from(given));
    if (same && (lastStep === null || step > lastStep)) matched ??= step;
  }
  return matched;
}

/** The otpauth:// URI an authenticator app enrols from (Key Uri Format). */
export function totpUri(secret: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${query.toString()}`;
}
