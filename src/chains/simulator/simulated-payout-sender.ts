import { createHash } from 'node:crypto';
import { findSimulatedSendTxid, insertSimulatedSend } from '../../db/repositories/simulator-repository.js';
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
    const known = await findSimulatedSendTxid(this.db, request.idempotencyKey);
    if (known !== undefined) return { txid: known };
    await takeFault(this.db, request.kind);
    const txid = createHash('sha256').update(`simulated:${request.idempotencyKey}`).digest('hex');
    await insertSimulatedSend(this.db, {
      idempotency_key: request.idempotencyKey,
      txid,
      address: request.address,
      amount: request.amount.toFixed(),
      created_at: this.now(),
    });
    return { txid };
  }
}
