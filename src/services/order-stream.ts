import { PassThrough } from 'node:stream';
import type { OrderSnapshotRow } from '../db/schema/order-snapshots.js';
import { FINAL_STATUSES, type OrderStatus } from '../domain/order-status.js';
import type { OrderMove } from './order-move-feed.js';

/**
 * One open status stream (docs/contract.md §10.11): Server-Sent Events of a set of orders, written to
 * `body` (the route sends it). It keeps, per order, the last version it wrote, and writes a
 * version only when it is the next one: an older or repeated one is dropped, and a gap (moves
 * missed while a LISTEN connection was down, or a version told before this stream existed) is
 * filled from the stored snapshots before anything later is written. So each version reaches
 * the reader once and in order. It ends itself once every order's last written status is final.
 */

/** Which view the events carry: the partner's Order or the status link's public view. */
export type StreamView = 'partner' | 'public';

/** An event to write: one version of one order. */
export interface StreamEvent {
  orderId: string;
  version: number;
  status: OrderStatus;
  /** The event's data: the Order, or the public view, as JSON text. */
  json: string;
}

/** What a stream needs of its hub (services/order-streams.ts). */
export interface StreamHost {
  /** The snapshots after each order's version, one read for all. */
  snapshotsAfter(wants: readonly { orderId: string; after: number }[]): Promise<OrderSnapshotRow[]>;
  /** The event of a stored or told version in this stream's view. */
  eventOf(view: StreamView, source: Pick<OrderMove, 'orderId' | 'version' | 'status' | 'orderJson'>): StreamEvent;
  /** Bytes a reader may leave waiting before it is cut (STREAM_BUFFER_BYTES). */
  readonly maxBufferBytes: number;
  written(count: number): void;
  cut(stream: OrderStream): void;
  closed(stream: OrderStream): void;
  failed(error: unknown): void;
}

/** The bytes of one event: `id: {order id}:{version}`, `event: order`, the data line. */
export function eventText(event: StreamEvent): string {
  // The JSON writers never write a raw newline (they escape it), so the data is one line.
  return `id: ${event.orderId}:${event.version}\nevent: order\ndata: ${event.json}\n\n`;
}

export const PING_TEXT = ': ping\n\n';

export class OrderStream {
  readonly body = new PassThrough();
  /** Per order of the stream: the last version written (undefined: none yet). */
  private readonly sent = new Map<string, number>();
  /** Orders whose last written status is not final. */
  private readonly open = new Set<string>();
  /** Moves waiting while the stream starts or fills a gap; undefined when none wait. */
  private queue: OrderMove[] | undefined = [];
  private ended = false;
  /** The first events are written: pings and the end-when-final rule apply from here on. */
  private started = false;
  /** A gap was told while the stream was starting or reading: read once more after. */
  private refill = false;
  /** Events written in all (0: the stream had nothing to say). */
  writtenCount = 0;

  constructor(
    readonly view: StreamView,
    private readonly host: StreamHost,
    /** The socket's own unsent bytes (the response's writableLength), beside the body's. */
    private readonly socketBuffered: () => number,
  ) {
    this.body.on('close', () => {
      this.ended = true;
      this.host.closed(this);
    });
    // A reader gone mid-write: nothing more to tell it.
    this.body.on('error', () => undefined);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /**
   * The first events (docs/contract.md §10.11): for each order, its current state unless the reader has
   * seen it (`lastSeen`, from Last-Event-ID); what it missed in between comes from the stored
   * snapshots. Then the moves told meanwhile, in order.
   */
  async start(current: readonly StreamEvent[], lastSeen: ReadonlyMap<string, number>): Promise<void> {
    const wants: { orderId: string; after: number }[] = [];
    /** Orders whose current state the reader needs whatever the snapshots say. */
    const unseen: StreamEvent[] = [];
    for (const event of current) this.open.add(event.orderId);
    for (const event of current) {
      const seen = lastSeen.get(event.orderId);
      if (seen !== undefined && seen >= 0 && seen < event.version) {
        this.sent.set(event.orderId, seen);
        wants.push({ orderId: event.orderId, after: seen });
      } else if (seen === event.version) {
        this.sent.set(event.orderId, seen);
        if (FINAL_STATUSES.has(event.status)) this.open.delete(event.orderId);
      } else {
        // Never seen, or seen at a version it never had (a reader's own id from elsewhere).
        unseen.push(event);
      }
    }
    if (wants.length > 0) {
      for (const row of await this.host.snapshotsAfter(wants)) this.apply(this.host.eventOf(this.view, storedMove(row)), false);
    }
    for (const event of unseen) this.apply(event, true);
    // A resumed order whose snapshots stop short of the state read: the versions in between are
    // no longer stored, so the state read is the next thing the reader gets. Snapshots that went
    // past it (the order moved between the two reads) already told the reader more.
    for (const event of current) {
      const sent = this.sent.get(event.orderId);
      if (sent !== undefined && sent < event.version) this.apply(event, true);
    }
    this.started = true;
    this.flush();
    this.endIfAllFinal();
  }

  /** A move told by the feed. */
  deliver(move: OrderMove): void {
    if (this.ended) return;
    if (this.queue !== undefined) this.queue.push(move);
    else this.applyMove(move, false);
  }

  /** Moves may have been missed: read every open order's later versions. */
  fillGaps(): void {
    if (this.ended) return;
    // Starting, or reading already: read again once that is done (what it read may predate the gap).
    if (this.queue !== undefined) {
      this.refill = true;
      return;
    }
    this.queue = [];
    void this.readMissing();
  }

  ping(): void {
    if (this.ended || !this.started) return;
    this.body.write(PING_TEXT);
    this.checkBuffer();
  }

  /** Ends the stream (a graceful stop: the reader reconnects elsewhere with Last-Event-ID). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.body.end();
  }

  private applyMove(move: OrderMove, acceptGap: boolean): void {
    const sent = this.sent.get(move.orderId);
    if (sent === undefined || move.version <= sent) return;
    if (move.version > sent + 1 && !acceptGap) {
      this.queue = [move];
      void this.readMissing();
      return;
    }
    this.apply(this.host.eventOf(this.view, move), acceptGap);
  }

  /** Writes the event when it is the order's next version (or, `acceptGap`, any later one). */
  private apply(event: StreamEvent, acceptGap: boolean): void {
    if (this.ended) return;
    const sent = this.sent.get(event.orderId);
    if (sent !== undefined && (event.version <= sent || (event.version > sent + 1 && !acceptGap))) return;
    this.sent.set(event.orderId, event.version);
    if (FINAL_STATUSES.has(event.status)) this.open.delete(event.orderId);
    else this.open.add(event.orderId);
    this.body.write(eventText(event));
    this.writtenCount++;
    this.host.written(1);
    this.checkBuffer();
    if (this.started) this.endIfAllFinal();
  }

  private async readMissing(): Promise<void> {
    try {
      const wants = [...this.sent].map(([orderId, after]) => ({ orderId, after }));
      for (const row of await this.host.snapshotsAfter(wants)) this.apply(this.host.eventOf(this.view, storedMove(row)), false);
    } catch (error) {
      this.host.failed(error);
    }
    this.flush();
    this.endIfAllFinal();
  }

  /** The moves that waited, in order; a gap that remains after a read is accepted (the version is no longer stored). */
  private flush(): void {
    const waiting = this.queue ?? [];
    this.queue = undefined;
    for (const move of waiting) this.applyMove(move, true);
    if (this.refill && this.queue === undefined) {
      this.refill = false;
      this.fillGaps();
    }
  }

  private endIfAllFinal(): void {
    if (!this.ended && this.open.size === 0) this.end();
  }

  private checkBuffer(): void {
    if (this.ended) return;
    const buffered = this.body.writableLength + this.body.readableLength + this.socketBuffered();
    if (buffered <= this.host.maxBufferBytes) return;
    this.ended = true;
    this.host.cut(this);
    this.body.destroy();
  }
}

function storedMove(row: OrderSnapshotRow): Pick<OrderMove, 'orderId' | 'version' | 'status' | 'orderJson'> {
  return { orderId: row.order_id, version: row.version, status: row.status, orderJson: row.order_json };
}
