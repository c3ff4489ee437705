import type { Db } from '../schema/index.js';
import type { PayoutRow, PayoutStatus, SignerPauseTable } from '../schema/payouts.js';
import type { Selectable } from 'kysely';

/**
 * The operator's side of the signer (docs/contract.md §11.3, §11.7): payouts listed and approved, the
 * signer paused and resumed. Runs with the API's database user, never the signer's role: the
 * signer may not approve its own payouts nor lift its own brakes.
 */

export async function listPayouts(db: Db, filter: { status?: PayoutStatus; chain?: string; limit: number }): Promise<PayoutRow[]> {
  let query = db.selectFrom('payouts').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(filter.limit);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.chain !== undefined) query = query.where('chain', '=', filter.chain);
  return query.execute();
}

export async function findPayout(db: Db, id: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** awaiting_approval → requested, with who and when; undefined when it was not waiting. */
export async function approvePayout(db: Db, id: string, by: string, now: Date): Promise<PayoutRow | undefined> {
  return db
    .updateTable('payouts')
    .set({ status: 'requested', status_reason: null, approved_by: by, approved_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'awaiting_approval')
    .returningAll()
    .executeTakeFirst();
}

export type SignerPause = Selectable<SignerPauseTable>;

export async function listSignerPauses(db: Db): Promise<SignerPause[]> {
  return db.selectFrom('signer_pauses').selectAll().orderBy('chain').execute();
}

/** Pauses `chain` (`*`: every chain), recorded with who and why; a pause already on is kept as it was. */
export async function pauseSigner(db: Db, chain: string, by: string, reason: string | null, now: Date): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('signer_pauses').values({ chain, paused_by: by, reason, paused_at: now }).onConflict((conflict) => conflict.column('chain').doNothing()).execute();
    await tx.insertInto('signer_pause_events').values({ chain, action: 'pause', actor: by, reason, created_at: now }).execute();
  });
}

/** Lifts the pause of `chain` (`*`: the pause of every chain, not the per-chain ones); false when there was none. */
export async function resumeSigner(db: Db, chain: string, by: string, reason: string | null, now: Date): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const removed = await tx.deleteFrom('signer_pauses').where('chain', '=', chain).executeTakeFirst();
    if (removed.numDeletedRows === 0n) return false;
    await tx.insertInto('signer_pause_events').values({ chain, action: 'resume', actor: by, reason, created_at: now }).execute();
    return true;
  });
}
