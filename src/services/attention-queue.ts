import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import {
  failingEndpoints,
  heldRefunds,
  payoutsIn,
  refundsWithoutAddress,
  stuckOrders,
  type AttentionEndpoint,
  type AttentionOrder,
  type AttentionPayout,
} from '../db/repositories/attention-repository.js';
import type { Database } from '../db/schema/index.js';

/**
 * An order in exchanging or sending longer than this is stuck: the simulator moves one on in
 * seconds, a real exchange and payout in minutes (docs/decisions.md, "Operator console").
 */
export const STUCK_AFTER_MS = 30 * 60_000;
/** Items per kind on the page: more waiting than this is said, not listed. */
export const ATTENTION_LIMIT = 50;

export interface Attention {
  heldRefunds: AttentionOrder[];
  refundsWithoutAddress: AttentionOrder[];
  stuckOrders: AttentionOrder[];
  failedPayouts: AttentionPayout[];
  payoutsAwaitingApproval: AttentionPayout[];
  failingEndpoints: AttentionEndpoint[];
}

/** What waits for an operator, by kind (the console's first page). */
export class AttentionQueue {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async items(): Promise<Attention> {
    const now = this.clock.now();
    const [held, noAddress, stuck, failed, approval, endpoints] = await Promise.all([
      heldRefunds(this.db, now, ATTENTION_LIMIT),
      refundsWithoutAddress(this.db, now, ATTENTION_LIMIT),
      stuckOrders(this.db, new Date(now.getTime() - STUCK_AFTER_MS), ATTENTION_LIMIT),
      payoutsIn(this.db, 'failed', ATTENTION_LIMIT),
      payoutsIn(this.db, 'awaiting_approval', ATTENTION_LIMIT),
      failingEndpoints(this.db, ATTENTION_LIMIT),
    ]);
    return { heldRefunds: held, refundsWithoutAddress: noAddress, stuckOrders: stuck, failedPayouts: failed, payoutsAwaitingApproval: approval, failingEndpoints: endpoints };
  }
}
