import { sql } from 'kysely';
import type { Db } from '../../db/schema/index.js';
import { AdapterError } from '../adapters.js';

export type SimulatedStep = 'exchange' | 'payout' | 'refund';

/** Makes the next `count` attempts of a step fail (transiently, or for good). */
export async function injectFault(db: Db, step: SimulatedStep, count: number, permanent: boolean): Promise<void> {
  await db
    .insertInto('simulator_faults')
    .values({ step, remaining: count, permanent })
    .onConflict((conflict) => conflict.column('step').doUpdateSet({ remaining: count, permanent }))
    .execute();
}

/** Consumes one pending fault of the step, if any, by throwing it. */
export async function takeFault(db: Db, step: SimulatedStep): Promise<void> {
  const taken = await db
    .updateTable('simulator_faults')
    .set({ remaining: sql<number>`remaining - 1` })
    .where('step', '=', step)
    .where('remaining', '>', 0)
    .returning('permanent')
    .executeTakeFirst();
  if (taken !== undefined) throw new AdapterError(`simulated ${step} failure`, taken.permanent);
}
