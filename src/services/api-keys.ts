import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  findKeyWithPartner,
  insertApiKeyCapped,
  listApiKeys,
  listPartnerKeysForCabinet,
  recordKeyUses,
  revokeApiKey,
  revokePartnerApiKey,
  type CabinetKeyListing,
  type KeyListing,
  type KeyWithPartner,
} from '../db/repositories/api-keys-repository.js';
import type { Db } from '../db/schema/index.js';
import type { PartnerRow } from '../db/schema/partners.js';
import { keyIdPrefix, parseApiKey } from '../domain/api-key-format.js';
import type { KeyScope } from '../db/schema/api-keys.js';
import { InProcessAuthChanges, type AuthChange, type AuthChangeFeed } from '../infrastructure/auth-changes.js';
import type { SecretBox } from '../infrastructure/secret-box.js';
import { ApiError } from '../errors.js';

/** A key's full text, returned once at creation and never stored. */
export interface IssuedKey {
  key_id: string;
  api_key: string;
  /** A sandbox key (`pk_test_…`): its orders run on the simulator only (docs/contract.md §7.6). */
  sandbox: boolean;
  /** `client` (`pk_client_…`, docs/contract.md §10.9): safe to ship inside an app; else `full`. */
  scope: KeyScope;
  created_at: Date;
}

export type Authentication =
  | { ok: true; partner: PartnerRow; keyId: string; sealedSecret: Buffer; sandbox: boolean; scope: KeyScope }
  | { ok: false; failure: 'malformed' | 'invalid' | 'inactive'; detail: string };

// One-shot hash: no Hash object per call (it runs on every keyed request).
const sha256 = (text: string): Buffer => hash('sha256', text, 'buffer');
/** Compared against when a key id is unknown, so unknown and wrong keys take the same time. */
const DUMMY_HASH = sha256('no such key');
/** Keys whose rows are kept at most; past it, the cache starts over (a few partners is the norm). */
const CACHE_MAX_KEYS = 10_000;
/**
 * Unknown key ids remembered at most. Kept apart from the rows, so a flood of made-up ids
 * (each one read once, at the rate its address is allowed) starts this map over, never the
 * cache of real keys.
 */
const UNKNOWN_MAX_IDS = 10_000;

interface CacheEntry {
  found: KeyWithPartner;
  /** Epoch ms after which the row is read again. */
  until: number;
  /** The secret once it has matched secret_hash; dropped with the entry. */
  verifiedSecret?: Buffer;
}

export class ApiKeyService {
  /** Rows of existing keys (revoked ones too) by key id, each reused until `until` (ms). */
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * Key ids the database does not have, each until its epoch ms: a repeated unknown id costs
   * no read and takes the same path (a hash against DUMMY_HASH) as a wrong secret of a cached key.
   */
  private readonly unknown = new Map<string, number>();
  /**
   * Bumped by every change applied: a row read while a change arrived may predate it, so a
   * read that started in an older generation answers its request but is not cached.
   */
  private generation = 0;
  /**
   * Keys that authenticated since the last flushUses(): the cabinet's "last used", written to
   * the database once a minute in one statement, so a keyed request pays a Set.add, no write.
   */
  private readonly used = new Set<string>();

  /**
   * `cacheMs` (config.cacheRefreshMs; 0 = off): how long a key's row (key and partner) is
   * reused instead of read again per request. Changes (revocation, partner status, markup or
   * limit) go through `changes`: applied here at once, and in every other process as soon as
   * the feed delivers them (PostgreSQL NOTIFY, milliseconds); cacheMs only bounds a lost one.
   * `keysPerKind` (config.limits.apiKeysPerPartner): unrevoked keys a partner may have of each
   * kind, live and sandbox counted apart.
   */
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly cacheMs = 0,
    private readonly changes: AuthChangeFeed = new InProcessAuthChanges(),
    private readonly keysPerKind = 20,
  ) {
    changes.subscribe((change) => this.apply(change));
  }

  /**
   * A new key; `sandbox` makes a `pk_test_` key whose orders never run live (docs/contract.md §7.6);
   * `label` is the partner's name for it (the cabinet); `scope` `client` makes a `pk_client_`
   * key (docs/contract.md §10.9). 409 `conflict` when the partner already has `keysPerKind` unrevoked keys
   * of that kind (live and sandbox, full and client counted apart): a key costs
   * nothing to ask for, and each one is a row, a cache entry and a budget's worth of requests to
   * watch.
   */
  async issue(partnerId: string, options: { sandbox?: boolean; label?: string; scope?: KeyScope } = {}): Promise<IssuedKey> {
    const sandbox = options.sandbox === true;
    const scope = options.scope ?? 'full';
    const keyId = `${keyIdPrefix(scope, sandbox)}${randomBytes(10).toString('hex')}`;
    const secret = randomBytes(32).toString('base64url');
    const result = await insertApiKeyCapped(this.db, {
      key_id: keyId,
      partner_id: partnerId,
      secret_hash: sha256(secret),
      secret_ciphertext: this.box.seal(secret, keyId),
      revoked_at: null,
      sandbox,
      scope,
      ...(options.label === undefined ? {} : { label: options.label }),
    }, this.keysPerKind);
    if ('refused' in result) {
      const kind = `${sandbox ? 'sandbox' : 'live'}${scope === 'client' ? ' client' : ''}`;
      throw new ApiError('conflict', `the partner already has ${result.refused} active ${kind} keys, the most it may have (${this.keysPerKind}): revoke one it no longer uses, then create the new one`);
    }
    const row = result.inserted;
    // Random ids are not guessed in advance, but a process that saw this one as unknown forgets it.
    await this.changes.publish({ kind: 'key', keyId });
    return { key_id: keyId, api_key: `${keyId}.${secret}`, sandbox: row.sandbox, scope: row.scope, created_at: row.created_at };
  }

  list(partnerId: string): Promise<KeyListing[]> {
    return listApiKeys(this.db, partnerId);
  }

  /** The partner's keys of one mode as the cabinet lists them: label, scope and last use. */
  async listForCabinet(partnerId: string, sandbox: boolean): Promise<CabinetKeyListing[]> {
    return (await listPartnerKeysForCabinet(this.db, partnerId)).filter((key) => key.sandbox === sandbox);
  }

  async revoke(keyId: string): Promise<KeyListing | undefined> {
    const revoked = await revokeApiKey(this.db, keyId, this.clock.now());
    if (revoked !== undefined) await this.changes.publish({ kind: 'key', keyId });
    return revoked;
  }

  /**
   * Revokes `keyId` only when it is `partnerId`'s (the cabinet): false when the partner has no
   * such key, so another partner's key id is a 404, never a revocation.
   */
  async revokeOwn(partnerId: string, keyId: string): Promise<boolean> {
    const owned = await revokePartnerApiKey(this.db, partnerId, keyId, this.clock.now());
    if (owned) await this.changes.publish({ kind: 'key', keyId });
    return owned;
  }

  /**
   * The full text of `partnerId`'s unrevoked key `keyId`, opened from its sealed secret; undefined
   * for another partner's key, a revoked or an unknown one. Only the cabinet's one-use reveal
   * asks (the page a new key's form redirects to, once: migration 0032).
   */
  async openOwn(partnerId: string, keyId: string): Promise<string | undefined> {
    const found = await findKeyWithPartner(this.db, keyId);
    if (found === undefined || found.partner.id !== partnerId || found.key.revoked_at !== null) return undefined;
    return `${keyId}.${this.box.open(found.key.secret_ciphertext, keyId)}`;
  }

  /** Whether the key authenticated since the last flush (it was used within about a minute). */
  usedSinceFlush(keyId: string): boolean {
    return this.used.has(keyId);
  }

  /** Writes the keys used since the last call as used now (runtime.ts calls it every minute and at close). */
  async flushUses(): Promise<void> {
    if (this.used.size === 0) return;
    const keyIds = [...this.used];
    this.used.clear();
    await recordKeyUses(this.db, keyIds, this.clock.now());
  }

  /** The partner's row changed (status, markup, limit): its keys are read again, in every process. */
  forgetPartner(partnerId: string): Promise<void> {
    return this.changes.publish({ kind: 'partner', partnerId });
  }

  /** Drops what a change makes stale; called for this process's changes and other processes'. */
  private apply(change: AuthChange): void {
    this.generation += 1;
    if (change.kind === 'everything') {
      this.cache.clear();
      this.unknown.clear();
    } else if (change.kind === 'key') {
      this.cache.delete(change.keyId);
      this.unknown.delete(change.keyId);
    } else {
      for (const [keyId, entry] of this.cache) if (entry.found.partner.id === change.partnerId) this.cache.delete(keyId);
    }
  }

  /**
   * Checks a presented key: unknown, revoked and wrong-secret keys fail alike, in the same
   * time. Returns what a later signature check needs, so the row is read once per request.
   */
  authenticate(presented: string): Authentication | Promise<Authentication> {
    // A cached row (or a remembered unknown id) answers without a promise: this runs on every
    // keyed request.
    const known = this.authenticateFromMemory(presented);
    if (known !== undefined) return known;
    // Not in memory, so well-formed: parsed again only on the way to the database.
    const parsed = parseApiKey(presented);
    if (!parsed.ok) return { ok: false, failure: 'malformed', detail: parsed.reason };
    const { keyId, secret } = parsed.key;
    return this.loadKey(keyId).then((entry) => this.check(entry, keyId, secret));
  }

  /**
   * `authenticate(presented)`'s answer when it comes from memory (a malformed key, a cached row
   * or a remembered unknown id), else undefined: the key must be read. The caller identification
   * asks this on every keyed request, so the key is parsed and its cache entry found once (it
   * asked `answersFromMemory` and then `authenticate`, which parsed it twice).
   */
  authenticateFromMemory(presented: string): Authentication | undefined {
    const parsed = parseApiKey(presented);
    if (!parsed.ok) return { ok: false, failure: 'malformed', detail: parsed.reason };
    const { keyId, secret } = parsed.key;
    const cached = this.cachedKey(keyId);
    if (cached !== undefined) return this.check(cached, keyId, secret);
    if (this.knownUnknown(keyId)) return this.check(undefined, keyId, secret);
    return undefined;
  }

  private check(entry: CacheEntry | undefined, keyId: string, secret: string): Authentication {
    const found = entry?.found;
    if (!this.secretMatches(entry, secret) || found === undefined || found.key.revoked_at !== null) {
      return { ok: false, failure: 'invalid', detail: 'invalid API key' };
    }
    if (found.partner.status !== 'active') {
      return { ok: false, failure: 'inactive', detail: 'partner account is not active' };
    }
    this.used.add(keyId);
    return { ok: true, partner: found.partner, keyId, sealedSecret: found.key.secret_ciphertext, sandbox: found.key.sandbox, scope: found.key.scope };
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

  private knownUnknown(keyId: string): boolean {
    const until = this.unknown.get(keyId);
    return until !== undefined && until > this.clock.now().getTime();
  }

  /** Reads the key's row and caches it, or remembers that the id is unknown. */
  private async loadKey(keyId: string): Promise<CacheEntry | undefined> {
    const generation = this.generation;
    const found = await findKeyWithPartner(this.db, keyId);
    const current = generation === this.generation;
    if (found === undefined) {
      this.cache.delete(keyId);
      if (this.cacheMs > 0 && current) {
        if (this.unknown.size >= UNKNOWN_MAX_IDS) this.unknown.clear();
        this.unknown.set(keyId, this.clock.now().getTime() + this.cacheMs);
      }
      return undefined;
    }
    const entry: CacheEntry = { found, until: this.clock.now().getTime() + this.cacheMs };
    if (this.cacheMs > 0 && current) {
      if (this.cache.size >= CACHE_MAX_KEYS) this.cache.clear();
      this.cache.set(keyId, entry);
    }
    return entry;
  }

  /**
   * X-Signature: lowercase hex HMAC-SHA256, keyed with the secret, of the exact body bytes
   * (v1), or of `prefix` then the body bytes (replay-proof signing, docs/contract.md §7.7:
   * `{X-Timestamp}.{METHOD}.{request target}.`).
   */
  verifySignature(keyId: string, sealedSecret: Buffer, signature: string, body: Buffer, prefix?: string): boolean {
    if (!/^[0-9a-fA-F]{64}$/.test(signature)) return false;
    const secret = this.box.open(sealedSecret, keyId);
    const hmac = createHmac('sha256', secret);
    if (prefix !== undefined) hmac.update(prefix, 'utf8');
    const expected = hmac.update(body).digest();
    return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
  }
}
