import { sql, type Selectable } from 'kysely';
import type { Db } from '../schema/index.js';
import type { SimulatedDepositTable, SimulatedSendTable, SimulatorFaultTable } from '../schema/payouts.js';

/** The simulator's state (chains/simulator): deposits the operator put on the simulated chain, injected faults, sends. */

export type SimulatedDepositRow = Selectable<SimulatedDepositTable>;
export type SimulatedStep = SimulatorFaultTable['step'];

export async function findSimulatedDeposit(db: Db, orderId: string): Promise<SimulatedDepositRow | undefined> {
  return db.selectFrom('simulated_deposits').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

export async function findSimulatedDeposits(db: Db, orderIds: readonly string[]): Promise<SimulatedDepositRow[]> {
  if (orderIds.length === 0) return [];
  return db.selectFrom('simulated_deposits').selectAll().where('order_id', 'in', [...orderIds]).execute();
}

/** False when the order already has a simulated deposit (there is at most one). */
export async function insertSimulatedDeposit(db: Db, deposit: SimulatedDepositRow): Promise<boolean> {
  const inserted = await db
    .insertInto('simulated_deposits')
    .values(deposit)
    .onConflict((conflict) => conflict.column('order_id').doNothing())
    .returning('order_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function setSimulatedConfirmations(db: Db, orderId: string, confirmations: number, now: Date): Promise<void> {
  await db.updateTable('simulated_deposits').set({ confirmations, updated_at: now }).where('order_id', '=', orderId).execute();
}

/** A reorg: the deposit is no longer on the simulated chain. */
export async function dropSimulatedDeposit(db: Db, orderId: string, now: Date): Promise<void> {
  await db.updateTable('simulated_deposits').set({ dropped: true, updated_at: now }).where('order_id', '=', orderId).execute();
}

/** One more confirmation for every live simulated deposit last changed at or before `before`. */
export async function growSimulatedConfirmations(db: Db, before: Date, now: Date): Promise<void> {
  await db
    .updateTable('simulated_deposits')
    .set({ confirmations: sql<number>`confirmations + 1`, updated_at: now })
    .where('dropped', '=', false)
    .where('updated_at', '<=', before)
    .execute();
}

/** The next `count` attempts of the step will fail; replaces what was pending for it. */
export async function setSimulatorFault(db: Db, step: SimulatedStep, count: number, permanent: boolean): Promise<void> {
  await db
    .insertInto('simulator_faults')
    .values({ step, remaining: count, permanent })
    .onConflict((conflict) => conflict.column('step').doUpdateSet({ remaining: count, permanent }))
    .execute();
}

/** Consumes one pending fault of the step; undefined when none is pending. */
export async function takeSimulatorFault(db: Db, step: SimulatedStep): Promise<{ permanent: boolean } | undefined> {
  return db
    .updateTable('simulator_faults')
    .set({ remaining: sql<number>`remaining - 1` })
    .where('step', '=', step)
    .where('remaining', '>', 0)
    .returning('permanent')
    .executeTakeFirst();
}

/** The txid of an earlier send with this idempotency key. */
export async function findSimulatedSendTxid(db: Db, idempotencyKey: string): Promise<string | undefined> {
  const row = await db.selectFrom('simulated_sends').select('txid').where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
  return row?.txid;
}

/** Records a send once per idempotency key (a repeat is ignored). */
export async function insertSimulatedSend(db: Db, send: Selectable<SimulatedSendTable>): Promise<void> {
  await db
    .insertInto('simulated_sends')
    .values(send)
    .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
    .execute();
}
