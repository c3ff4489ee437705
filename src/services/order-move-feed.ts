import type { Db } from '../db/schema/index.js';
import { listenForNotifications, type NotificationListener } from '../db/notifications.js';
import { insertOrderSnapshots, snapshotsAfter, type NewOrderSnapshot } from '../db/repositories/order-snapshots-repository.js';
import { ORDER_STATUSES, type OrderStatus } from '../domain/order-status.js';

/**
 * How a process learns that an order moved (docs/contract.md §10.11), so its open status streams can be
 * told without asking the database per event and stream. OrderLifecycle records each move's
 * snapshot (the Order as GET answered it at that version) in the move's transaction; the feed
 * hands it to every subscriber of every process once committed.
 * - Embedded (PGlite): one process, so the moves are handed over in-process after the commit.
 * - PostgreSQL (DATABASE_URL): the snapshot's statement also NOTIFYs it (delivered at commit, in
 *   commit order); each API process that has a stream LISTENs on a connection of its own. A
 *   notification carries the Order when it fits in NOTIFY's 8000 bytes; one that does not (a
 *   large metadata map) carries the id and version, and the process reads the snapshot once.
 */

/** One move as the streams get it. */
export interface OrderMove {
  orderId: string;
  /** The order's version after the move. */
  version: number;
  /** The stored status after the move. */
  status: OrderStatus;
  /** The Order as GET /partner/orders/{id} answered it at the move. */
  orderJson: string;
  /** Wall-clock ms when the move was recorded (for the move-to-event delay metric). */
  recordedAtMs: number;
}

export interface OrderMoveSubscriber {
  move(move: OrderMove): void;
  /** Moves may have been missed (a LISTEN put in place or back): every stream reads what it lacks. */
  gap(): void;
  /**
   * The LISTEN connection is lost: moves are missed from now until the next `gap`. Only a
   * subscriber that serves copies meanwhile (the order read cache) needs it.
   */
  lost?(): void;
}

export interface OrderMoveFeed {
  /** In the move's transaction: stores the snapshots (and, on PostgreSQL, NOTIFYs them). */
  record(tx: Db, snapshots: readonly NewOrderSnapshot[]): Promise<void>;
  /** After the move's commit: the in-process feed hands the moves over here. */
  committed(snapshots: readonly NewOrderSnapshot[]): void;
  subscribe(subscriber: OrderMoveSubscriber): void;
  /** Resolves once moves reach this process's subscribers (PostgreSQL: the LISTEN is in place), or after `withinMs`. */
  ready(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The embedded default: the moves of this process are all there are. */
export class InProcessOrderMoves implements OrderMoveFeed {
  private readonly subscribers: OrderMoveSubscriber[] = [];

  async record(tx: Db, snapshots: readonly NewOrderSnapshot[]): Promise<void> {
    await insertOrderSnapshots(tx, snapshots);
  }

  committed(snapshots: readonly NewOrderSnapshot[]): void {
    if (this.subscribers.length === 0) return;
    const recordedAtMs = Date.now();
    for (const snapshot of snapshots) {
      const move: OrderMove = { orderId: snapshot.order_id, version: snapshot.version, status: snapshot.status, orderJson: snapshot.order_json, recordedAtMs };
      for (const subscriber of this.subscribers) subscriber.move(move);
    }
  }

  subscribe(subscriber: OrderMoveSubscriber): void {
    this.subscribers.push(subscriber);
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {}
}

/** The channel the moves of one database are told on. */
export const ORDER_MOVES_CHANNEL = 'epa_order_moves';

/** NOTIFY's payload limit is 8000 bytes; this leaves room for the head line. */
const PAYLOAD_LIMIT_BYTES = 7900;

export interface OrderMoveLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * PostgreSQL: NOTIFY in the move's statement, LISTEN (from the first subscriber's `ready` on,
 * so a worker process that streams nothing holds no listening connection).
 * The payload: `{order id} {version} {status} {recorded ms}`, then a newline and the Order when
 * it fits.
 */
export class PostgresOrderMoves implements OrderMoveFeed {
  private readonly subscribers: OrderMoveSubscriber[] = [];
  private listener: NotificationListener | undefined;
  /** Moves waiting for a snapshot read, and those behind them (delivered in arrival order). */
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    private readonly db: Db,
    private readonly url: string,
    private readonly log: OrderMoveLog,
  ) {}

  async record(tx: Db, snapshots: readonly NewOrderSnapshot[]): Promise<void> {
    const recordedAtMs = Date.now();
    const payloads = snapshots.map((snapshot) => {
      const head = `${snapshot.order_id} ${snapshot.version} ${snapshot.status} ${recordedAtMs}`;
      const whole = `${head}\n${snapshot.order_json}`;
      return Buffer.byteLength(whole) <= PAYLOAD_LIMIT_BYTES ? whole : head;
    });
    await insertOrderSnapshots(tx, snapshots, { channel: ORDER_MOVES_CHANNEL, payloads });
  }

  committed(): void {
    // Told by NOTIFY at the commit, to this process as to the others.
  }

  subscribe(subscriber: OrderMoveSubscriber): void {
    this.subscribers.push(subscriber);
  }

  ready(withinMs: number): Promise<void> {
    this.listener ??= listenForNotifications({
      url: this.url,
      channel: ORDER_MOVES_CHANNEL,
      onMessage: (payload) => this.received(payload),
      // In place (again): whatever was told before it is lost, so the streams read what they
      // lack (a first LISTEN matters too when a stream opened while it was still being dialled).
      onListening: () => {
        for (const subscriber of this.subscribers) subscriber.gap();
      },
      onError: (error) => this.log.warn({ err: error.message }, 'order move listener lost its connection; dialling again'),
      onLost: () => {
        for (const subscriber of this.subscribers) subscriber.lost?.();
      },
    });
    return this.listener.listening(withinMs);
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  private received(payload: string): void {
    const move = parsePayload(payload);
    if (move === undefined) {
      this.log.warn({ payload: payload.slice(0, 100) }, 'unreadable order move notification');
      return;
    }
    if (this.queued === 0 && move.orderJson !== undefined) {
      this.deliver(move as OrderMove);
      return;
    }
    this.queued++;
    this.queue = this.queue
      .then(async () => {
        const orderJson = move.orderJson ?? (await this.storedJson(move.orderId, move.version));
        if (orderJson === undefined) {
          // Pruned or never stored: the streams read what they lack from the table.
          for (const subscriber of this.subscribers) subscriber.gap();
          return;
        }
        this.deliver({ ...move, orderJson });
      })
      .catch((error: unknown) => {
        this.log.error({ err: error instanceof Error ? error.message : String(error) }, 'reading an order move failed');
        for (const subscriber of this.subscribers) subscriber.gap();
      })
      .finally(() => {
        this.queued--;
      });
  }

  private async storedJson(orderId: string, version: number): Promise<string | undefined> {
    const rows = await snapshotsAfter(this.db, [{ orderId, after: version - 1 }]);
    return rows.find((row) => row.version === version)?.order_json;
  }

  private deliver(move: OrderMove): void {
    for (const subscriber of this.subscribers) subscriber.move(move);
  }
}

const STATUSES: ReadonlySet<string> = new Set(ORDER_STATUSES);

function parsePayload(payload: string): (Omit<OrderMove, 'orderJson'> & { orderJson: string | undefined }) | undefined {
  const newline = payload.indexOf('\n');
  const head = newline === -1 ? payload : payload.slice(0, newline);
  const [orderId, version, status, recorded, ...rest] = head.split(' ');
  if (orderId === undefined || version === undefined || status === undefined || recorded === undefined || rest.length > 0) return undefined;
  if (!/^[0-9]{1,9}$/.test(version) || !/^[0-9]{1,15}$/.test(recorded) || !STATUSES.has(status)) return undefined;
  return {
    orderId,
    version: Number(version),
    status: status as OrderStatus,
    recordedAtMs: Number(recorded),
    orderJson: newline === -1 ? undefined : payload.slice(newline + 1),
  };
}
