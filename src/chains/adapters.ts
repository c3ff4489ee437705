import type { Decimal } from '../domain/money.js';
import type { OrderStatus } from '../domain/order-status.js';

/** An order whose deposit address a watcher looks at. */
export interface WatchedOrder {
  id: string;
  chain: string;
  depositAddress: string;
  depositTag: string | null;
  status: OrderStatus;
  depositTxid: string | null;
  confirmations: number | null;
  createdAt: Date;
}

/** What a chain watcher reports about a watched order's deposit. */
export type ChainEvent =
  | { kind: 'deposit_seen'; orderId: string; txid: string; amount: Decimal; confirmations: number }
  | { kind: 'confirmations'; orderId: string; txid: string; confirmations: number }
  | { kind: 'deposit_dropped'; orderId: string; txid: string };

/** Sees deposits on one or more chains (simulator, or a node adapter). */
export interface ChainWatcher {
  readonly name: string;
  watches(chain: string): boolean;
  poll(orders: readonly WatchedOrder[]): Promise<ChainEvent[]>;
}

export interface ExchangeRequest {
  orderId: string;
  coinFrom: string;
  coinTo: string;
  amountFrom: Decimal;
  /** What the pricing engine says the fill should give, in coin_to. */
  expectedAmountTo: Decimal;
}

/** Sells the received coin for the destination coin. */
export interface Exchanger {
  fill(request: ExchangeRequest): Promise<{ amountTo: Decimal }>;
}

export interface PayoutRequest {
  /** `<order id>:payout` or `<order id>:refund`: a retry with the same key never pays twice. */
  idempotencyKey: string;
  kind: 'payout' | 'refund';
  chain: string;
  address: string;
  tag: string | null;
  amount: Decimal;
}

/** Sends coins out. Must be idempotent on `idempotencyKey` (return the first send's txid). */
export interface PayoutSender {
  send(request: PayoutRequest): Promise<{ txid: string }>;
}

/** An adapter failure; `permanent` means retrying cannot help. */
export class AdapterError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'AdapterError';
  }
}
