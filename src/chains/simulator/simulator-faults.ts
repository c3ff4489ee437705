import { setSimulatorFault, takeSimulatorFault, type SimulatedStep } from '../../db/repositories/simulator-repository.js';
import type { Db } from '../../db/schema/index.js';
import { AdapterError } from '../adapters.js';

export type { SimulatedStep };

/** Makes the next `count` attempts of a step fail (transiently, or for good). */
export async function injectFault(db: Db, step: SimulatedStep, count: number, permanent: boolean): Promise<void> {
  await setSimulatorFault(db, step, count, permanent);
}

/** Consumes one pending fault of the step, if any, by throwing it. */
export async function takeFault(db: Db, step: SimulatedStep): Promise<void> {
  const taken = await takeSimulatorFault(db, step);
  if (taken !== undefined) throw new AdapterError(`simulated ${step} failure`, taken.permanent);
}
