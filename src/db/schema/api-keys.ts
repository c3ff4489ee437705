import type { Generated, Insertable, Selectable } from 'kysely';
import type { GeneratedTimestamp, Timestamp } from './currencies.js';

/** What a key may reach (migration 0049). */
export type KeyScope = 'full' | 'client';

/** A partner API key `<key_id>.<secret>`; the secret itself is never stored in clear. */
export interface ApiKeyTable {
  /** Public part of the key, the lookup index. */
  key_id: string;
  partner_id: string;
  /** SHA-256 of the secret, compared in constant time. */
  secret_hash: Buffer;
  /** AES-256-GCM(iv ‖ ciphertext ‖ tag) of the secret under SECRETS_KEY, key_id as associated data. */
  secret_ciphertext: Buffer;
  /** A sandbox key (`pk_test_…`, docs/contract.md §7.6): its orders run on the simulator only. Default false. */
  sandbox: Generated<boolean>;
  /**
   * `full`, or `client` (`pk_client_…`, docs/contract.md §10.9): a key safe to ship inside an app, which
   * reaches the public routes, order creation and the orders it created only. Default full.
   */
  scope: Generated<KeyScope>;
  created_at: GeneratedTimestamp;
  revoked_at: Timestamp | null;
  /** The partner's name for the key, given in the cabinet (1..64 characters); null when none. */
  label: Generated<string | null>;
}

/** When a key last authenticated a request, to the minute (ApiKeyService.flushUses); no row: never. */
export interface ApiKeyUseTable {
  key_id: string;
  last_used_at: Date;
}

export type ApiKeyRow = Selectable<ApiKeyTable>;
export type NewApiKey = Insertable<ApiKeyTable>;
