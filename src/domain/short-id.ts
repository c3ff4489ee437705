import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `EX-7K2M9Q`: a prefix, a hyphen, six of A-Z0-9 (36^6 ≈ 2.2e9 values; collisions are retried). */
export function newShortId(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}-${suffix}`;
}

/** Any prefix the operator may have used over time; matched case-insensitively. */
export const SHORT_ID_PATTERN = /^[A-Za-z0-9]{1,8}-[A-Za-z0-9]{6}$/;
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/**
 * A UUID exactly as PostgreSQL writes one (lower case): the cabinet's links carry ids as the
 * service made them, and one in another spelling is not one of them.
 */
export const CANONICAL_UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
