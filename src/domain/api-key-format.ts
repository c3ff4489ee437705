/** An API key as presented: `<key_id>.<secret>`. */
export interface PresentedKey {
  keyId: string;
  secret: string;
}

/**
 * `pk_` then 20 of a-z0-9; a sandbox key (docs/contract.md §7.6) is `pk_test_` then the same; a client key
 * (docs/contract.md §10.9) `pk_client_` or, in sandbox, `pk_client_test_`.
 */
const KEY_ID = /^pk_(?:client_)?(?:test_)?[a-z0-9]{20}$/;

/** The id prefix of a key of this scope and mode (migrations 0014 and 0049 check it against the row). */
export function keyIdPrefix(scope: 'full' | 'client', sandbox: boolean): string {
  return `pk_${scope === 'client' ? 'client_' : ''}${sandbox ? 'test_' : ''}`;
}
/** 32 random bytes in base64url without padding. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export type KeyParse = { ok: true; key: PresentedKey } | { ok: false; reason: string };

/** Pure shape check; older plaintext keys (no dot) are refused here, before any lookup. */
export function parseApiKey(raw: string): KeyParse {
  const dot = raw.indexOf('.');
  if (dot < 0) return { ok: false, reason: 'API key must have the form <key_id>.<secret>' };
  const keyId = raw.slice(0, dot);
  const secret = raw.slice(dot + 1);
  if (!KEY_ID.test(keyId) || !SECRET.test(secret)) return { ok: false, reason: 'invalid API key' };
  return { ok: true, key: { keyId, secret } };
}

export function isKeyId(value: string): boolean {
  return KEY_ID.test(value);
}
