import { UUID_PATTERN } from '../domain/short-id.js';
import { approvePayout, findPayout, listPayouts, listSignerPauses, pauseSigner, resumeSigner, type SignerPause } from '../db/repositories/payout-operations-repository.js';
import type { Db } from '../db/schema/index.js';
import type { PayoutRow, PayoutStatus } from '../db/schema/payouts.js';
import { ApiError } from '../errors.js';
import type { Clock } from '../clock.js';

/**
 * What the operator does to the signer's work (docs/contract.md §11.3, §11.7): finds payouts,
 * approves one waiting above its approval threshold, and puts the brakes on or off. Each act is
 * recorded with who did it and when; the signer reads the result from the same tables.
 */
export class PayoutOperations {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Payouts and refunds, newest first. */
  list(filter: { status?: PayoutStatus | undefined; chain?: string | undefined; limit: number }): Promise<PayoutRow[]> {
    return listPayouts(this.db, { limit: filter.limit, ...(filter.status === undefined ? {} : { status: filter.status }), ...(filter.chain === undefined ? {} : { chain: filter.chain }) });
  }

  /** Approves a payout awaiting approval; 404 when there is none, 409 when it is in any other status. */
  async approve(id: string, by: string): Promise<PayoutRow> {
    // The console's form posts whatever id its URL held: one that is no UUID names no payout.
    const payoutId = UUID_PATTERN.test(id) ? id.toLowerCase() : undefined;
    const approved = payoutId === undefined ? undefined : await approvePayout(this.db, payoutId, by, this.clock.now());
    if (approved !== undefined) return approved;
    const payout = payoutId === undefined ? undefined : await findPayout(this.db, payoutId);
    if (payout === undefined) throw new ApiError('not_found', 'payout not found');
    throw new ApiError('conflict', `the payout is ${payout.status}: only one awaiting_approval can be approved`);
  }

  /** The signer brakes that are on. */
  brakes(): Promise<SignerPause[]> {
    return listSignerPauses(this.db);
  }

  /** Pauses (or lifts the pause of) one chain, or `*` for every chain; answers the brakes then on. */
  async brake(action: 'pause' | 'resume', chain: string, by: string, reason: string | null): Promise<SignerPause[]> {
    if (action === 'pause') await pauseSigner(this.db, chain, by, reason, this.clock.now());
    else await resumeSigner(this.db, chain, by, reason, this.clock.now());
    return this.brakes();
  }
}
