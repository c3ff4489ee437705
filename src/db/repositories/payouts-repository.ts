import { sql, type Insertable } from 'kysely';
import type { Db } from '../schema/index.js';
import type { PayoutRow, PayoutTable } from '../schema/payouts.js';

/** The outbox of payouts and refunds: at most one of each kind per order. */

/** Records a payout or refund request; a second request of the same kind for the order is ignored. */
export async function insertPayoutRequest(db: Db, request: Insertable<PayoutTable>): Promise<void> {
  await db
    .insertInto('payouts')
    .values(request)
    .onConflict((conflict) => conflict.columns(['order_id', 'kind']).doNothing())
    .execute();
}

export async function findPayoutRequest(db: Db, orderId: string, kind: PayoutRow['kind']): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('order_id', '=', orderId).where('kind', '=', kind).executeTakeFirst();
}

/** The fee a transaction of the signer spent, once mined (reverted or not); undefined while it is not. */
export async function minedTransactionFee(db: Db, transactionId: string): Promise<string | undefined> {
  const row = await db.selectFrom('payout_transactions').select('fee').where('id', '=', transactionId).where('state', '=', 'mined').executeTakeFirst();
  return row?.fee;
}

/** The simulator's payouts only: a signer's row moves through its own states (signer-repository). */
export async function markPayoutSent(db: Db, id: string, txid: string, sentAt: Date): Promise<void> {
  await db.updateTable('payouts').set({ status: 'sent', txid, sent_at: sentAt }).where('id', '=', id).where('payer', '=', 'simulator').execute();
}

export async function markPayoutFailed(db: Db, id: string): Promise<void> {
  await db.updateTable('payouts').set({ status: 'failed' }).where('id', '=', id).where('payer', '=', 'simulator').execute();
}

/** An order's payout and refund as the operator sees them: who pays each and, for the signer's, where it stands and why. */
export type OrderPayoutListing = Pick<
  PayoutRow,
  'id' | 'kind' | 'payer' | 'address' | 'tag' | 'amount' | 'status' | 'status_reason' | 'failure_reason' | 'txid' | 'fee' | 'approved_by' | 'created_at' | 'sent_at'
>;

export async function listOrderPayouts(db: Db, orderId: string): Promise<OrderPayoutListing[]> {
  return db
    .selectFrom('payouts')
    .select(['id', 'kind', 'payer', 'address', 'tag', 'amount', 'status', 'status_reason', 'failure_reason', 'txid', 'fee', 'approved_by', 'created_at', 'sent_at'])
    .where('order_id', '=', orderId)
    .execute();
}

/** Where the signer's unfinished payouts stand: `requested` split by why it waits. */
export type SignerPayoutState = 'requested' | 'awaiting_liquidity' | 'paused' | 'awaiting_approval' | 'signed' | 'broadcast';
export const SIGNER_PAYOUT_STATES: readonly SignerPayoutState[] = ['requested', 'awaiting_liquidity', 'paused', 'awaiting_approval', 'signed', 'broadcast'];

/** Counts of the signer's unfinished payouts per chain and state (GET /admin/v1/health, the payout gauge). */
export async function countSignerPayouts(db: Db): Promise<Map<string, Map<SignerPayoutState, number>>> {
  const rows = await db
    .selectFrom('payouts')
    .select(['chain', 'status', 'status_reason', (eb) => eb.fn.countAll<string>().as('count')])
    .where('payer', '=', 'signer')
    .where('status', 'in', ['requested', 'awaiting_approval', 'signed', 'broadcast'])
    .groupBy(['chain', 'status', 'status_reason'])
    .execute();
  const counts = new Map<string, Map<SignerPayoutState, number>>();
  for (const row of rows) {
    const state = (row.status === 'requested' && (row.status_reason === 'awaiting_liquidity' || row.status_reason === 'paused') ? row.status_reason : row.status) as SignerPayoutState;
    const chain = counts.get(row.chain) ?? new Map<SignerPayoutState, number>();
    chain.set(state, (chain.get(state) ?? 0) + Number(row.count));
    counts.set(row.chain, chain);
  }
  return counts;
}

/**
 * The signer's payouts whose order has something to learn: the payout confirmed or
 * failed while the order is still sending or refunding, or a payout's liquidity wait begun or
 * ended that its sending order does not show yet. One query per worker pass, whatever the
 * number of payouts waiting on the signer; oldest first.
 */
export async function signerPayoutsToFollow(db: Db, limit: number): Promise<{ order_id: string; kind: 'payout' | 'refund' }[]> {
  return db
    .selectFrom('payouts as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select(['p.order_id', 'p.kind'])
    // An order's payouts only (the inner join keeps no commission payout): said to the types.
    .$narrowType<{ order_id: string; kind: 'payout' | 'refund' }>()
    .where('p.payer', '=', 'signer')
    .where((eb) =>
      eb.or([
        eb.and([eb('p.kind', '=', 'payout'), eb('o.status', '=', 'sending')]),
        eb.and([eb('p.kind', '=', 'refund'), eb('o.status', '=', 'refunding')]),
      ]),
    )
    .where((eb) =>
      eb.or([
        eb('p.status', 'in', ['confirmed', 'failed']),
        eb.and([
          eb('p.kind', '=', 'payout'),
          eb(
            sql<boolean>`(p.status = 'requested' and p.status_reason is not distinct from 'awaiting_liquidity')`,
            '!=',
            sql<boolean>`(o.status_reason is not distinct from 'awaiting_liquidity')`,
          ),
        ]),
      ]),
    )
    .orderBy('p.created_at')
    .limit(limit)
    .execute();
}
