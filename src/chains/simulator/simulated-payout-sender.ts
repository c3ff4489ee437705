import { createHash } from 'node:crypto';
import type { Db } from '../../db/schema/index.js';
import type { PayoutRequest, PayoutSender } from '../adapters.js';
import { takeFault } from './simulator-faults.js';

/**
 * Records each send once per idempotency key and answers a repeat with the first txid, the
 * contract every real payout adapter must keep.
 */
export class SimulatedPayoutSender implements PayoutSender {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  async send(request: PayoutRequest) {
    const known = await this.db
      .selectFrom('simulated_sends')
      .select('txid')
      .where('idempotency_key', '=', request.idempotencyKey)
      .executeTakeFirst();
    if (known !== undefined) return { txid: known.txid };
    await takeFault(this.db, request.kind);
    const txid = createHash('sha256').update(`simulated:${request.idempotencyKey}`).digest('hex');
    await this.db
      .insertInto('simulated_sends')
      .values({
        idempotency_key: request.idempotencyKey,
        txid,
        address: request.address,
        amount: request.amount.toFixed(),
        created_at: this.now(),
      })
      .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
      .execute();
    return { txid };
  }
}
