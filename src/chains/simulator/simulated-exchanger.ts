import type { Db } from '../../db/schema/index.js';
import type { ExchangeRequest, Exchanger } from '../adapters.js';
import { takeFault } from './simulator-faults.js';

/** Fills at exactly the engine's price, unless a fault was injected for the next exchange. */
export class SimulatedExchanger implements Exchanger {
  constructor(private readonly db: Db) {}

  async fill(request: ExchangeRequest) {
    await takeFault(this.db, 'exchange');
    return { amountTo: request.expectedAmountTo };
  }
}
