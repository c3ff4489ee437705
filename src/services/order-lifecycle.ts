import type { Kysely, Transaction, Updateable } from 'kysely';
import { Counter } from 'prom-client';
import type { Clock } from '../clock.js';
import { insertOrderEvents } from '../db/repositories/order-events-repository.js';
import { MOVE_BATCH_LIMIT, moveOrder, moveOrders, type ExpectedVersion } from '../db/repositories/order-moves-repository.js';
import type { MovableOrder } from '../db/repositories/order-queue-repository.js';
import { actorColumns, findOrder, type MoveActor } from '../db/repositories/orders-repository.js';
import { findPayoutRequest, insertPayoutRequest, minedTransactionFee } from '../db/repositories/payouts-repository.js';
import { postLedger } from '../db/repositories/ledger-repository.js';
import type { Database } from '../db/schema/index.js';
import type { OrderRow, OrderTable } from '../db/schema/orders.js';
import { orderContext, refundRequested, transition, type LifecycleEvent, type StatusReason } from '../domain/order-lifecycle.js';
import type { OrderStatus } from '../domain/order-status.js';
import { movePosts, postingsForMove, type LedgerAssets, type SettledPayout } from '../domain/ledger.js';
import type { Metrics } from '../metrics.js';
import { recordOrderEvents } from './webhook-outbox.js';
import { partnerOrderJson, type LinkBase } from '../views/partner-order-view.js';
import type { NewOrderSnapshot } from '../db/repositories/order-snapshots-repository.js';
import { InProcessOrderMoves, type OrderMoveFeed } from './order-move-feed.js';

/** A payout or refund to record in the same transaction as the move that requires it. */
export interface OutboxRequest {
  kind: 'payout' | 'refund';
  /** The currency sent: the signer pays a token by its contract (docs/contract.md §11). */
  currency_id: string;
  chain: string;
  address: string;
  tag: string | null;
  /** Decimal string in the coin being sent. */
  amount: string;
}

export interface ApplyOptions {
  /** Field changes that go with the move (txids, amounts, confirmations); the status is the table's. */
  changes?: Omit<Updateable<OrderTable>, 'status' | 'version'>;
  /** Why (stored as status_reason when the move ends in refunding, failed, or expired by a cancel). */
  reason?: StatusReason;
  /** Who makes the move (order_events.actor, with the key or the cabinet person). Default system. */
  actor?: MoveActor;
  data?: Record<string, unknown>;
  outbox?: OutboxRequest;
  /** More writes that must commit or roll back with the move (e.g. the payout row's status). */
  inTransaction?: (tx: Transaction<Database>) => Promise<unknown>;
}

export type ApplyResult = { ok: true; order: OrderRow } | { ok: false; reason: string };

const MAX_VERSION_RETRIES = 3;

/**
 * The only writer of an order's status. Applies one state-machine move to one order: a single
 * transaction that updates the order under an optimistic version check, appends the order_events
 * row and the webhook outbox's `order.status_changed` event (every move, the status kept or not)
 * and, when the move requires it, records the payout or refund request and posts the move's
 * ledger transactions (domain/ledger.ts; the database refuses to commit one that does not
 * balance, and the move with it). A move the table refuses changes nothing. applyToMany does the same for many orders at once (the expiry sweep).
 */
export class OrderLifecycle {
  /** Moves of live orders. */
  readonly transitions: Counter<'from' | 'to'>;
  /** Moves of sandbox orders (docs/contract.md §7.6): partners' tests, kept out of the live figures. */
  readonly sandboxTransitions: Counter<'from' | 'to'>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    metrics: Metrics,
    /** Chain of a currency row id (the catalog knows). */
    private readonly chainOf: (currencyId: string) => string,
    /** Asset names of currencies and chains' fee coins, for the ledger postings of the moves. */
    private readonly assets: LedgerAssets,
    /** Where the Order's links begin in webhook bodies (status_url, docs/contract.md §10.10). */
    private readonly linkBase: LinkBase = '',
    /** PAYOUT_SIGNER_CHAINS: live payouts on these chains are the signer's, the rest the simulator's. */
    private readonly signerChains: ReadonlySet<string> = new Set(),
    /** Where each move's snapshot goes, for the status streams (docs/contract.md §10.11). */
    private readonly moves: OrderMoveFeed = new InProcessOrderMoves(),
  ) {
    this.transitions = new Counter({
      name: 'order_transitions_total',
      help: 'Order status transitions applied, by from and to status.',
      labelNames: ['from', 'to'],
      registers: [metrics.registry],
    });
    // A counter of its own rather than a `sandbox` label on the one above: a dashboard or alert
    // written against order_transitions_total keeps counting live orders only, as it did.
    this.sandboxTransitions = new Counter({
      name: 'sandbox_order_transitions_total',
      help: 'Sandbox (test) order status transitions applied, by from and to status; live ones are order_transitions_total.',
      labelNames: ['from', 'to'],
      registers: [metrics.registry],
    });
  }

  /** The Order as GET answers it at the move (`now`), stored and told to the status streams. */
  private snapshot(row: OrderRow, now: Date): NewOrderSnapshot {
    return { order_id: row.id, version: row.version, status: row.status, order_json: partnerOrderJson(row, now, this.linkBase), created_at: now };
  }

  /** Counts `count` moves from → to of live or sandbox orders, each in its own counter. */
  private countMoves(from: OrderStatus, to: OrderStatus, sandbox: boolean, count = 1): void {
    (sandbox ? this.sandboxTransitions : this.transitions).inc({ from, to }, count);
  }

  async apply(orderId: string, event: LifecycleEvent, options: ApplyOptions = {}): Promise<ApplyResult> {
    for (let attempt = 0; attempt < MAX_VERSION_RETRIES; attempt++) {
      const order = await findOrder(this.db, orderId);
      if (order === undefined) return { ok: false, reason: 'order not found' };
      const now = this.clock.now();
      const move = transition(order.status, event, orderContext(order, now));
      if (!move.ok) return move;
      let snapshot: NewOrderSnapshot | undefined;
      const updated = await this.db.transaction().execute(async (tx) => {
        snapshot = undefined;
        const row = await moveOrder(tx, order, {
          ...options.changes,
          status: move.to,
          ...(options.reason !== undefined && (REASONED.has(move.to) || event === 'payout_waiting') ? { status_reason: options.reason } : {}),
          ...newStep(order.status, move.to),
          ...actionFields(order, event, move.to, options.changes, now),
          updated_at: now,
        });
        if (row === undefined) return undefined;
        await insertOrderEvents(tx, [{
          order_id: order.id,
          from_status: order.status,
          to_status: move.to,
          reason: options.reason ?? event,
          order_version: order.version + 1,
          data: options.data ?? null,
          ...actorColumns(options.actor ?? 'system'),
          created_at: now,
        }]);
        const outbox = outboxFor(move.to, options.outbox) ?? refundRequest(order, row, now, this.chainOf);
        if (outbox !== undefined) {
          // Who pays is decided once, here: the signer claims only its own rows, so a payout is
          // never both signed and simulated, whatever either side's configuration says later.
          const payer = !row.sandbox && this.signerChains.has(outbox.chain) ? 'signer' : 'simulator';
          await insertPayoutRequest(tx, { order_id: order.id, ...outbox, payer, created_at: now });
        }
        // The webhook outbox: the partner hears of every move, committed with it (docs/contract.md §7.5, §8).
        // A move that keeps the status still changed the Order (actions, refund address, reason,
        // confirmations), so it is an order.status_changed with previous_status equal to status.
        await recordOrderEvents(tx, [{ order: row, previousStatus: order.status }], now, this.linkBase);
        // The status streams' copy of this version (docs/contract.md §10.11), committed with the move.
        snapshot = this.snapshot(row, now);
        await this.moves.record(tx, [snapshot]);
        await options.inTransaction?.(tx);
        await this.post(tx, event, row, now);
        return row;
      });
      if (updated !== undefined) {
        if (snapshot !== undefined) this.moves.committed([snapshot]);
        if (order.status !== updated.status) this.countMoves(order.status, updated.status, updated.sandbox);
        return { ok: true, order: updated };
      }
      // Someone else moved the order first: re-read and decide again.
    }
    return { ok: false, reason: 'the order kept changing; try again' };
  }

  /**
   * Applies one event to many orders, as `apply` would one by one, in a few statements: each
   * order's move is decided by the same table from the row given, and the orders that move the
   * same way are written together (version-checked, with their order_events rows and the same
   * metrics), up to MOVE_BATCH_LIMIT per transaction. A move that records a refund request goes
   * through `apply`. An order that changed since it was read is left for the next pass, and so
   * is one another transaction holds. Returns how many orders moved.
   */
  async applyToMany(orders: readonly MovableOrder[], event: LifecycleEvent): Promise<number> {
    const now = this.clock.now();
    const groups = new Map<string, { from: OrderStatus; to: OrderStatus; orders: ExpectedVersion[] }>();
    let moved = 0;
    for (const order of orders) {
      const move = transition(order.status, event, orderContext(order, now));
      if (!move.ok) continue;
      // A move that records a request or posts to the ledger is written one by one.
      if (move.to === 'refunding' || movePosts(event, move.to)) {
        if ((await this.apply(order.id, event)).ok) moved++;
        continue;
      }
      const key = `${order.status}→${move.to}`;
      const group = groups.get(key) ?? { from: order.status, to: move.to, orders: [] };
      group.orders.push({ id: order.id, version: order.version });
      groups.set(key, group);
    }
    for (const { from, to, orders: group } of groups.values()) {
      for (let start = 0; start < group.length; start += MOVE_BATCH_LIMIT) {
        const chunk = group.slice(start, start + MOVE_BATCH_LIMIT);
        const written = await this.db.transaction().execute(async (tx) => {
          const done = await moveOrders(tx, chunk, { status: to, ...newStep(from, to), updated_at: now });
          await insertOrderEvents(
            tx,
            done.map((row) => ({
              order_id: row.id,
              from_status: from,
              to_status: to,
              reason: event,
              order_version: row.version,
              data: null,
              created_at: now,
            })),
          );
          await recordOrderEvents(tx, done.map((row) => ({ order: row, previousStatus: from })), now, this.linkBase);
          const snapshots = done.map((row) => this.snapshot(row, now));
          await this.moves.record(tx, snapshots);
          return { done, snapshots };
        });
        this.moves.committed(written.snapshots);
        const rows = written.done;
        if (from !== to) {
          const sandbox = rows.filter((row) => row.sandbox).length;
          if (sandbox > 0) this.countMoves(from, to, true, sandbox);
          if (rows.length > sandbox) this.countMoves(from, to, false, rows.length - sandbox);
        }
        moved += rows.length;
      }
    }
    return moved;
  }

  /**
   * Posts the ledger transactions of the applied move `event` that left the order as `row`, in
   * the move's transaction. A settled payout or refund posts what its payouts row paid.
   */
  private async post(tx: Transaction<Database>, event: LifecycleEvent, row: OrderRow, now: Date): Promise<void> {
    if (!movePosts(event, row.status)) return;
    let settled: SettledPayout | undefined;
    let spentFee: { fee: string; feeAsset: string } | undefined;
    if (event === 'payout_sent' || event === 'refund_sent') {
      const request = await findPayoutRequest(tx, row.id, event === 'payout_sent' ? 'payout' : 'refund');
      // Every move into sending or a requested refund records its row; without one (a row lost by
      // hand), what the order says was sent, with no fee known, rather than a move that never commits.
      const stated = event === 'payout_sent' ? row.amount_to_final : row.amount_refunded;
      if (request !== undefined) settled = { amount: request.amount, fee: request.fee, feeAsset: this.assets.feeAssetOf(request.chain) };
      else if (stated !== null) settled = { amount: stated, fee: null, feeAsset: this.assets.feeAssetOf(this.chainOf(row.currency_to_id)) };
    }
    if (event === 'payout_failed') {
      // A payout whose transaction was mined and reverted (EVM): its fee left the hot wallet.
      const request = await findPayoutRequest(tx, row.id, 'payout');
      const fee = request?.status === 'failed' && request.transaction_id !== null ? await minedTransactionFee(tx, request.transaction_id) : undefined;
      if (request !== undefined && fee !== undefined) spentFee = { fee, feeAsset: this.assets.feeAssetOf(request.chain) };
    }
    const postings = postingsForMove({
      to: row.status,
      event,
      order: row,
      assetFrom: this.assets.assetOf(row.currency_from_id),
      assetTo: this.assets.assetOf(row.currency_to_id),
      ...(settled === undefined ? {} : { settled }),
      ...(spentFee === undefined ? {} : { spentFee }),
    });
    await postLedger(tx, postings, now);
  }
}

/** The statuses a move stores its reason in (a cancel's `cancelled` goes with expired). */
const REASONED: ReadonlySet<OrderStatus> = new Set(['refunding', 'failed', 'expired']);

/**
 * What the moves of docs/contract.md §7.5 write besides the status, decided here from the event so no
 * caller can forget it:
 * - a refund hold lives only in refunding (the schema checks it): leaving refunding, asking for
 *   the refund (`refund`) or the hold running out (`hold_expired`) ends it;
 * - while held, the order's step is due when the hold runs out (the worker then lets the
 *   refund proceed); a move within refunding that leaves no hold makes the refund step due at once;
 * - `continue` records when, so the exchange is priced at the float rate, and clears the reason.
 */
function actionFields(
  order: Pick<OrderRow, 'status' | 'refund_hold_until'>,
  event: LifecycleEvent,
  to: OrderStatus,
  changes: ApplyOptions['changes'],
  now: Date,
): Omit<Updateable<OrderTable>, 'status' | 'version'> {
  if (to !== 'refunding') {
    const ended = order.refund_hold_until === null ? {} : { refund_hold_until: null };
    return event === 'continue' ? { ...ended, continued_at: now, status_reason: null } : ended;
  }
  const hold = event === 'refund' || event === 'hold_expired' ? null : (changes?.refund_hold_until ?? order.refund_hold_until);
  if (hold instanceof Date) return { refund_hold_until: hold, next_attempt_at: hold };
  return order.status === 'refunding' ? { refund_hold_until: null, next_attempt_at: null, locked_until: null } : { refund_hold_until: null };
}

/** A new step starts with a clean retry budget and no lease. */
function newStep(from: OrderStatus, to: OrderStatus): { attempts?: number; next_attempt_at?: null; locked_until?: null } {
  return to !== from ? { attempts: 0, next_attempt_at: null, locked_until: null } : {};
}

/** A payout request is recorded only by the move into sending. */
function outboxFor(to: OrderRow['status'], request: OutboxRequest | undefined): OutboxRequest | undefined {
  return request?.kind === 'payout' && to === 'sending' ? request : undefined;
}

/**
 * The move whose result is a requested refund (domain refundRequested: refunding, not held, with
 * where to send it) records the refund of what was received, to the refund address and tag; a
 * move that started there already had it. So the request is made once, by whichever move gets
 * there first: entering refunding, the refund address set, the hold ended.
 */
function refundRequest(
  before: OrderRow,
  after: OrderRow,
  now: Date,
  chainOf: (currencyId: string) => string,
): OutboxRequest | undefined {
  if (refundRequested(before.status, orderContext(before, now)) || !refundRequested(after.status, orderContext(after, now))) return undefined;
  if (after.refund_address === null || after.amount_from_received === null) return undefined;
  return {
    kind: 'refund',
    currency_id: after.currency_from_id,
    chain: chainOf(after.currency_from_id),
    address: after.refund_address,
    tag: after.refund_address_tag,
    amount: after.amount_from_received,
  };
}
