import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  findKeyWithPartner,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  type KeyListing,
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

export class ApiKeyService {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly clock: Clock,
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

  revoke(keyId: string): Promise<KeyListing | undefined> {
    return revokeApiKey(this.db, keyId, this.clock.now());
  }

  /**
   * Checks a presented key: unknown, revoked and wrong-secret keys fail alike, in the same
   * time. Returns what a later signature check needs, so the row is read once per request.
   */
  async authenticate(presented: string): Promise<Authentication> {
    const parsed = parseApiKey(presented);
    if (!parsed.ok) return { ok: false, failure: 'malformed', detail: parsed.reason };
    const { keyId, secret } = parsed.key;
    const found = await findKeyWithPartner(this.db, keyId);
    const hashMatches = timingSafeEqual(sha256(secret), found?.key.secret_hash ?? DUMMY_HASH);
    if (found === undefined || !hashMatches || found.key.revoked_at !== null) {
      return { ok: false, failure: 'invalid', detail: 'invalid API key' };
    }
    if (found.partner.status !== 'active') {
      return { ok: false, failure: 'inactive', detail: 'partner account is not active' };
    }
    return { ok: true, partner: found.partner, keyId, sealedSecret: found.key.secret_ciphertext };
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
