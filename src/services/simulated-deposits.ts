import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { findOrder } from '../db/repositories/orders-repository.js';
import {
  dropSimulatedDeposit,
  findSimulatedDeposit,
  insertSimulatedDeposit,
  setSimulatedConfirmations,
  type SimulatedDepositRow,
} from '../db/repositories/simulator-repository.js';
import type { Database } from '../db/schema/index.js';
import { Decimal } from '../domain/money.js';

/** What a simulated deposit is sent with; what is left out comes from the order. */
export interface SimulatedDepositInput {
  /** In coin_from; default the order's amount_from_expected. */
  amount?: Decimal | undefined;
  /** Default: 32 random bytes as hex. */
  txid?: string | undefined;
  /** Confirmations it arrives with; default 0 (the simulated chain adds them). */
  confirmations?: number;
}

/**
 * Deposits on the simulated chain: the operator's simulator routes and a partner's sandbox
 * deposit (docs/contract.md §7.6) send them through here, one way. The simulated chain watcher
 * reports them on the worker's next pass, as a node would.
 */
export class SimulatedDeposits {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The deposit sent, or why not: no such order, or the order already has one (one per order). */
  async send(orderId: string, input: SimulatedDepositInput): Promise<SimulatedDepositRow | 'no_order' | 'exists'> {
    const order = await findOrder(this.db, orderId);
    if (order === undefined) return 'no_order';
    const now = this.clock.now();
    const deposit: SimulatedDepositRow = {
      order_id: order.id,
      txid: input.txid ?? randomBytes(32).toString('hex'),
      amount: (input.amount ?? new Decimal(order.amount_from_expected)).toFixed(),
      confirmations: input.confirmations ?? 0,
      dropped: false,
      created_at: now,
      updated_at: now,
    };
    return (await insertSimulatedDeposit(this.db, deposit)) ? deposit : 'exists';
  }

  /** Sets the deposit's confirmations; the deposit as it is now (undefined: none). */
  async setConfirmations(orderId: string, count: number): Promise<SimulatedDepositRow | undefined> {
    await setSimulatedConfirmations(this.db, orderId, count, this.clock.now());
    return this.find(orderId);
  }

  /** The deposit leaves the chain, as in a reorg; the deposit as it is now (undefined: none). */
  async drop(orderId: string): Promise<SimulatedDepositRow | undefined> {
    await dropSimulatedDeposit(this.db, orderId, this.clock.now());
    return this.find(orderId);
  }

  find(orderId: string): Promise<SimulatedDepositRow | undefined> {
    return findSimulatedDeposit(this.db, orderId);
  }
}
