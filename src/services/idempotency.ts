import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  claimIdempotencyKey,
  findIdempotencyKey,
  purgeIdempotencyKeysBefore,
  releaseIdempotencyKey,
  retakeIdempotencyKey,
} from '../db/repositories/idempotency-repository.js';
import type { Db } from '../db/schema/index.js';
import { ApiError } from '../errors.js';

/** Keys are kept this long per partner (docs/contract.md §3). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A first request still unfinished after this long is taken to have died (a process killed
 * mid-request) and its key may be retried: shorter than a client's request timeout (the SDK's is
 * 30 s), so a client retrying after its own timeout finds the claim released rather than a 409.
 * A first request that is only slow and completes after a retry took its claim over makes no
 * second order: the database refuses to point a completed key at another order (migration
 * 0043), and the later of the two answers the earlier one's order as a replay (OrderService).
 */
export const IDEMPOTENCY_CLAIM_LEASE_MS = 15 * 1000;

export type IdempotencyClaim = { kind: 'new' } | { kind: 'replay'; orderId: string };

/**
 * `Idempotency-Key` on POST /partner/orders: same key and same body bytes replay the original
 * order; same key with another body is 422; the same key still in flight is 409.
 */
export class IdempotencyKeys {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async claim(partnerId: string, key: string, body: Buffer): Promise<IdempotencyClaim> {
    const now = this.clock.now();
    const record = { partner_id: partnerId, key, request_hash: hashBody(body), order_id: null, created_at: now };
    if (await claimIdempotencyKey(this.db, record)) return { kind: 'new' };

    const existing = await findIdempotencyKey(this.db, partnerId, key);
    const staleBefore = new Date(now.getTime() - IDEMPOTENCY_CLAIM_LEASE_MS);
    const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
    if (existing === undefined || existing.created_at < expiredBefore) {
      // Expired (or purged between the two statements): start afresh.
      if (existing === undefined ? await claimIdempotencyKey(this.db, record) : await retakeIdempotencyKey(this.db, record, staleBefore, expiredBefore)) {
        return { kind: 'new' };
      }
      throw inProgress(IDEMPOTENCY_CLAIM_LEASE_MS);
    }
    if (!existing.request_hash.equals(record.request_hash)) {
      throw new ApiError('unprocessable', 'this Idempotency-Key was used with a different request body');
    }
    if (existing.order_id !== null) return { kind: 'replay', orderId: existing.order_id };
    if (existing.created_at < staleBefore && (await retakeIdempotencyKey(this.db, record, staleBefore, expiredBefore))) {
      return { kind: 'new' };
    }
    throw inProgress(existing.created_at.getTime() + IDEMPOTENCY_CLAIM_LEASE_MS - now.getTime());
  }

  release(partnerId: string, key: string): Promise<void> {
    return releaseIdempotencyKey(this.db, partnerId, key);
  }

  purgeExpired(): Promise<number> {
    return purgeIdempotencyKeysBefore(this.db, new Date(this.clock.now().getTime() - IDEMPOTENCY_TTL_MS));
  }
}

/** 409 with Retry-After: the whole seconds until the claim's lease ends (at least 1). */
function inProgress(leftMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(leftMs / 1000));
  return new ApiError(
    'conflict',
    `a request with this Idempotency-Key is in progress; retry in ${seconds} s`,
    undefined,
    { 'retry-after': String(seconds) },
  );
}

function hashBody(body: Buffer): Buffer {
  return createHash('sha256').update(body).digest();
}
