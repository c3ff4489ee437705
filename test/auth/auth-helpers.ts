import { randomBytes } from 'node:crypto';

/** A well-formed key whose id does not exist. */
export const unknownKey = (): string => `pk_${randomBytes(10).toString('hex')}.${randomBytes(32).toString('base64url')}`;

/** The key with its secret's last two characters changed (still well-formed). */
export const wrongSecret = (apiKey: string): string => `${apiKey.slice(0, -2)}${apiKey.endsWith('xx') ? 'yy' : 'xx'}`;

/** A distinct client address per call, so budgets per address never interfere across tests. */
export function addresses(prefix: string): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}.${Math.floor(next / 250) % 250}.${(next % 250) + 1}`;
  };
}
