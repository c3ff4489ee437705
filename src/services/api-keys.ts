import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
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

// One-shot hash: no Hash object per call (it runs on every keyed request).
const sha256 = (text: string): Buffer => hash('sha256', text, 'buffer');
/** Compared against when a key id is unknown, so unknown and wrong keys take the same time. */
const DUMMY_HASH = sha256('no such key');
/** Keys whose rows are kept at most; past it, the cache starts over (a few partners is the norm). */
const CACHE_MAX_KEYS = 10_000;

interface CacheEntry {
  found: KeyWithPartner;
  /** Epoch ms after which the row is read again. */
  until: number;
  /** The secret once it has matched secret_hash; dropped with the entry. */
  verifiedSecret?: Buffer;
}

export class ApiKeyService {
  /** Rows of existing keys by key id, each reused until `until` (ms); unknown ids are never cached. */
  private readonly cache = new Map<string, CacheEntry>();

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
  authenticate(presented: string): Authentication | Promise<Authentication> {
    const parsed = parseApiKey(presented);
    if (!parsed.ok) return { ok: false, failure: 'malformed', detail: parsed.reason };
    const { keyId, secret } = parsed.key;
    // A cached row answers without a promise: this runs on every keyed request.
    const cached = this.cachedKey(keyId);
    if (cached !== undefined) return this.check(cached, keyId, secret);
    return this.loadKey(keyId).then((entry) => this.check(entry, keyId, secret));
  }

  private check(entry: CacheEntry | undefined, keyId: string, secret: string): Authentication {
    const found = entry?.found;
    if (!this.secretMatches(entry, secret) || found === undefined || found.key.revoked_at !== null) {
      return { ok: false, failure: 'invalid', detail: 'invalid API key' };
    }
    if (found.partner.status !== 'active') {
      return { ok: false, failure: 'inactive', detail: 'partner account is not active' };
    }
    return { ok: true, partner: found.partner, keyId, sealedSecret: found.key.secret_ciphertext };
  }

  /**
   * The presented secret against the stored SHA-256, compared in constant time. A secret that
   * matched once is kept with the cached row and compared directly next time: under load the
   * hash was ~10 µs of every keyed request (bench/README.md). Keeping it adds no exposure: this
   * process holds the sealing key and can open every secret for X-Signature anyway.
   */
  private secretMatches(entry: CacheEntry | undefined, secret: string): boolean {
    const presented = Buffer.from(secret, 'utf8');
    const verified = entry?.verifiedSecret;
    if (verified !== undefined && verified.length === presented.length && timingSafeEqual(verified, presented)) return true;
    const matches = timingSafeEqual(sha256(secret), entry?.found.key.secret_hash ?? DUMMY_HASH);
    if (matches && entry !== undefined) entry.verifiedSecret = presented;
    return matches;
  }

  /** The key's row while its cache entry is fresh. */
  private cachedKey(keyId: string): CacheEntry | undefined {
    const cached = this.cache.get(keyId);
    return cached !== undefined && cached.until > this.clock.now().getTime() ? cached : undefined;
  }

  /** Reads the key's row and caches it; unknown ids are never cached. */
  private async loadKey(keyId: string): Promise<CacheEntry | undefined> {
    const found = await findKeyWithPartner(this.db, keyId);
    if (found === undefined) {
      this.cache.delete(keyId);
      return undefined;
    }
    const entry: CacheEntry = { found, until: this.clock.now().getTime() + this.cacheMs };
    if (this.cacheMs > 0) {
      if (this.cache.size >= CACHE_MAX_KEYS) this.cache.clear();
      this.cache.set(keyId, entry);
    }
    return entry;
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
