import { Decimal } from '../../domain/money.js';
import { findSimulatedDeposits, growSimulatedConfirmations } from '../../db/repositories/simulator-repository.js';
import type { Db } from '../../db/schema/index.js';
import type { ChainEvent, ChainWatcher, WatchedOrder } from '../adapters.js';

export interface SimulatedChainOptions {
  /** Confirmations grow by one on their own every this many ms (SIMULATOR_AUTO); 0 = only by hand. */
  autoConfirmEveryMs: number;
  now: () => Date;
}

/**
 * A chain whose deposits are put there by the operator API (simulator endpoints). It reports
 * them through the same ChainWatcher interface a node adapter uses, so the worker cannot tell.
 */
export class SimulatedChainWatcher implements ChainWatcher {
  readonly name = 'simulator';

  constructor(
    private readonly db: Db,
    private readonly options: SimulatedChainOptions,
  ) {}

  watches(): boolean {
    return true;
  }

  async poll(orders: readonly WatchedOrder[]): Promise<ChainEvent[]> {
    if (orders.length === 0) return [];
    if (this.options.autoConfirmEveryMs > 0) await this.growConfirmations();
    const deposits = await findSimulatedDeposits(
      this.db,
      orders.map((order) => order.id),
    );
    const byOrder = new Map(deposits.map((deposit) => [deposit.order_id, deposit]));
    const events: ChainEvent[] = [];
    for (const order of orders) {
      const deposit = byOrder.get(order.id);
      if (deposit === undefined) continue;
      if (order.depositTxid === null) {
        if (!deposit.dropped) {
          events.push({
            kind: 'deposit_seen',
            orderId: order.id,
            txid: deposit.txid,
            amount: new Decimal(deposit.amount),
            confirmations: deposit.confirmations,
          });
        }
      } else if (order.depositTxid === deposit.txid) {
        if (deposit.dropped) events.push({ kind: 'deposit_dropped', orderId: order.id, txid: deposit.txid });
        else if (deposit.confirmations !== order.confirmations) {
          events.push({ kind: 'confirmations', orderId: order.id, txid: deposit.txid, confirmations: deposit.confirmations });
        }
      }
    }
    return events;
  }

  /** One more confirmation for every live simulated deposit whose last one is old enough. */
  private async growConfirmations(): Promise<void> {
    const now = this.options.now();
    const before = new Date(now.getTime() - this.options.autoConfirmEveryMs);
    await growSimulatedConfirmations(this.db, before, now);
  }
}
