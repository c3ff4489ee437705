import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  findKeyWithPartner,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  type KeyListing,
  type KeyWithPartner,
} from '../db/repositories/api-keys-repository.js';
import type { Db } from '../db/schema/index.js';
import type { PartnerRow } from '../db/schema/partners.js';
import { parseApiKey } from '../domain/api-key-format.js';
import type { SecretBox } from './secret-box.js';

/** A key's full text, returned once at creation and never stored. */
export interface IssuedKey {
  key_id: string;
  api_key: string;
  created_at: Date;
}

export type Authentication =
  | { ok: true; partner: PartnerRow; keyId: string; sealedSecret: Buffer }
  | { ok: false; failure: 'malformed' | 'invalid' | 'inactive'; detail: string };

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
/** Compared against when a key id is unknown, so unknown and wrong keys take the same time. */
const DUMMY_HASH = sha256('no such key');
/** Keys whose rows are kept at most; past it, the cache starts over (a few partners is the norm). */
const CACHE_MAX_KEYS = 10_000;

export class ApiKeyService {
  /** Rows of existing keys by key id, each reused until `until` (ms); unknown ids are never cached. */
  private readonly cache = new Map<string, { found: KeyWithPartner; until: number }>();

  /**
   * `cacheMs` (config.cacheRefreshMs; 0 = off): how long a key's row (key and partner) is
   * reused instead of read again per request. Changes made through this process (revocation,
   * partner status, markup or limit) apply at once; made through another process, within cacheMs.
   */
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly cacheMs = 0,
  ) {}

  async issue(partnerId: string): Promise<IssuedKey> {
    const keyId = `pk_${randomBytes(10).toString('hex')}`;
    const secret = randomBytes(32).toString('base64url');
    const row = await insertApiKey(this.db, {
      key_id: keyId,
      partner_id: partnerId,
      secret_hash: sha256(secret),
      secret_ciphertext: this.box.seal(secret, keyId),
      revoked_at: null,
    });
    return { key_id: keyId, api_key: `${keyId}.${secret}`, created_at: row.created_at };
  }

  list(partnerId: string): Promise<KeyListing[]> {
    return listApiKeys(this.db, partnerId);
  }

  async revoke(keyId: string): Promise<KeyListing | undefined> {
    const revoked = await revokeApiKey(this.db, keyId, this.clock.now());
    this.cache.delete(keyId);
    return revoked;
  }

  /** The partner's row changed (status, markup, limit): its keys are read again. */
  forgetPartner(partnerId: string): void {
    for (const [keyId, entry] of this.cache) if (entry.found.partner.id === partnerId) this.cache.delete(keyId);
  }

  /**
   * Checks a presented key: unknown, revoked and wrong-secret keys fail alike, in the same
   * time. Returns what a later signature check needs, so the row is read once per request.
   */
  async authenticate(presented: string): Promise<Authentication> {
    const parsed = parseApiKey(presented);
    if (!parsed.ok) return { ok: false, failure: 'malformed', detail: parsed.reason };
    const { keyId, secret } = parsed.key;
    const found = await this.findKey(keyId);
    const hashMatches = timingSafeEqual(sha256(secret), found?.key.secret_hash ?? DUMMY_HASH);
    if (found === undefined || !hashMatches || found.key.revoked_at !== null) {
      return { ok: false, failure: 'invalid', detail: 'invalid API key' };
    }
    if (found.partner.status !== 'active') {
      return { ok: false, failure: 'inactive', detail: 'partner account is not active' };
    }
    return { ok: true, partner: found.partner, keyId, sealedSecret: found.key.secret_ciphertext };
  }

  private async findKey(keyId: string): Promise<KeyWithPartner | undefined> {
    if (this.cacheMs <= 0) return findKeyWithPartner(this.db, keyId);
    const now = this.clock.now().getTime();
    const cached = this.cache.get(keyId);
    if (cached !== undefined && cached.until > now) return cached.found;
    const found = await findKeyWithPartner(this.db, keyId);
    if (found === undefined) {
      this.cache.delete(keyId);
    } else {
      if (this.cache.size >= CACHE_MAX_KEYS) this.cache.clear();
      this.cache.set(keyId, { found, until: now + this.cacheMs });
    }
    return found;
  }

  /** X-Signature: lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the secret. */
  verifySignature(keyId: string, sealedSecret: Buffer, signature: string, body: Buffer): boolean {
    return this.signatureMatches(sealedSecret, keyId, signature, body);
  }

  private signatureMatches(sealed: Buffer, keyId: string, signature: string, body: Buffer): boolean {
    if (!/^[0-9a-fA-F]{64}$/.test(signature)) return false;
    const secret = this.box.open(sealed, keyId);
    const expected = createHmac('sha256', secret).update(body).digest();
    return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
  }
}
