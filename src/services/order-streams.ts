import { Counter, Gauge, Histogram } from 'prom-client';
import type { Clock } from '../clock.js';
import type { StreamConfig } from '../config.js';
import { partnerOrdersWire, publicOrderForStream } from '../db/repositories/order-status-repository.js';
import { snapshotsAfter } from '../db/repositories/order-snapshots-repository.js';
import type { Db } from '../db/schema/index.js';
import type { OrderSnapshotRow } from '../db/schema/order-snapshots.js';
import { partnerOrderWireJson, type LinkBase } from '../views/partner-order-view.js';
import { publicJsonFromOrderJson, publicOrderJson } from '../views/public-order-view.js';
import { ApiError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { OrderMove, OrderMoveFeed } from './order-move-feed.js';
import { OrderStream, type StreamEvent, type StreamHost, type StreamView } from './order-stream.js';
import { sandboxScope, type KeyAccess } from './partner-access.js';
import { STATUS_TOKEN_PATTERN } from './order-service.js';
import { UUID_PATTERN } from '../domain/short-id.js';

/**
 * The status streams of one process (docs/contract.md §10.11): it opens them, hands every move the feed
 * tells (services/order-move-feed.ts) to the streams of that order, pings them all on one timer,
 * and counts them: per key, per client address (streams without a full key: the public one and
 * client keys shipped in apps) and per process, each capped (StreamConfig; 429 past a cap).
 * Fan-out costs no database query: the move carries the Order; a stream reads the snapshots
 * only to fill a gap (a resume, a lost LISTEN connection).
 */

/** How long opening a stream waits for the feed's LISTEN (PostgreSQL) to be in place. */
const LISTEN_WAIT_MS = 2000;

/** Who opens a stream, for the caps. */
export interface StreamOpener {
  /** The client address (request.ip). */
  address: string;
  /** The socket's unsent bytes (reply.raw.writableLength), for the slow-reader bound. */
  socketBuffered: () => number;
  /** The Last-Event-ID header as sent, if any. */
  lastEventId: string | undefined;
}

export interface OrderStreamsDeps {
  db: Db;
  feed: OrderMoveFeed;
  metrics: Metrics;
  settings: StreamConfig;
  clock: Clock;
  linkBase: LinkBase;
  onError: (error: unknown) => void;
}

export class OrderStreams implements StreamHost {
  readonly maxBufferBytes: number;
  private readonly byOrder = new Map<string, Set<OrderStream>>();
  /** Per stream: the orders it is registered under and the counters it holds. */
  private readonly held = new Map<OrderStream, { orderIds: readonly string[]; counters: readonly string[] }>();
  private readonly counts = new Map<string, number>();
  private pingTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly openGauge: Gauge<'view'>;
  private readonly refused: Counter<'reason'>;
  private readonly events: Counter;
  private readonly cuts: Counter;
  private readonly delay: Histogram;
  /** The last public view made from an Order's text: a move goes to many streams of one order. */
  private publicMemo: { source: string; json: string } | undefined;

  constructor(private readonly deps: OrderStreamsDeps) {
    this.maxBufferBytes = deps.settings.maxBufferBytes;
    const registers = [deps.metrics.registry];
    this.openGauge = new Gauge({ name: 'order_streams_open', help: 'Status streams open on this process, by view (partner, public).', labelNames: ['view'], registers });
    this.openGauge.set({ view: 'partner' }, 0);
    this.openGauge.set({ view: 'public' }, 0);
    this.refused = new Counter({
      name: 'order_streams_refused_total',
      help: 'Status streams refused with 429, by the cap reached (key, address, process).',
      labelNames: ['reason'],
      registers,
    });
    this.events = new Counter({ name: 'order_stream_events_total', help: 'order events written to status streams.', registers });
    this.cuts = new Counter({
      name: 'order_streams_cut_total',
      help: 'Status streams cut because their reader left more than STREAM_BUFFER_BYTES unread.',
      registers,
    });
    this.delay = new Histogram({
      name: 'order_stream_move_delay_seconds',
      help: 'From a move being recorded to this process handing it to its streams (one observation per move and process).',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    deps.feed.subscribe({ move: (move) => this.move(move), gap: () => this.gap() });
  }

  /** Streams open now. */
  get size(): number {
    return this.held.size;
  }

  /**
   * GET /partner/orders/stream: the key's orders among `ids` (UUIDs; a client key's own only);
   * 404 when none is, 429 past a cap.
   */
  async openPartner(access: KeyAccess, ids: readonly string[], opener: StreamOpener): Promise<OrderStream> {
    const counters = [`key:${access.actor.keyId}`];
    if (access.onlyCreatedBy !== undefined) counters.push(`address:${opener.address}`);
    const stream = this.reserve('partner', counters, opener);
    try {
      await this.deps.feed.ready(LISTEN_WAIT_MS);
      this.register(stream, ids);
      const owner = { partnerId: access.partner.id, sandbox: sandboxScope(access), createdBy: access.onlyCreatedBy };
      const rows = await partnerOrdersWire(this.deps.db, owner, ids);
      if (rows.length === 0) throw new ApiError('not_found', 'none of these ids is an order of this key: nothing to stream');
      this.register(stream, rows.map((row) => row.id));
      const now = this.deps.clock.now();
      const current = rows.map((row) => ({ orderId: row.id, version: row.version, status: row.status, json: partnerOrderWireJson(row, now, this.deps.linkBase) }));
      await stream.start(current, parseLastEventId(opener.lastEventId));
      return stream;
    } catch (error) {
      this.release(stream);
      throw error;
    }
  }

  /** GET /public/orders/{token}/stream: the order behind the status link; 404 for any other token, 429 past a cap. */
  async openPublic(token: string, opener: StreamOpener): Promise<OrderStream> {
    const stream = this.reserve('public', [`address:${opener.address}`], opener);
    try {
      await this.deps.feed.ready(LISTEN_WAIT_MS);
      // The id is not known before the read: the stream is registered under it right after, and
      // a version told in between is a gap the stream fills from the snapshots.
      const row = STATUS_TOKEN_PATTERN.test(token) ? await publicOrderForStream(this.deps.db, token) : undefined;
      if (row === undefined) throw new ApiError('not_found', 'no order has this status link');
      this.register(stream, [row.id]);
      const again = await publicOrderForStream(this.deps.db, token);
      const latest = again ?? row;
      const current: StreamEvent = { orderId: latest.id, version: latest.version, status: latest.status, json: publicOrderJson(latest, this.deps.clock.now()) };
      await stream.start([current], parseLastEventId(opener.lastEventId));
      return stream;
    } catch (error) {
      this.release(stream);
      throw error;
    }
  }

  /** A graceful stop: every stream ends, so its reader reconnects (to another process) with Last-Event-ID. */
  endAll(): void {
    this.closing = true;
    for (const stream of [...this.held.keys()]) stream.end();
  }

  async close(): Promise<void> {
    this.endAll();
    clearInterval(this.pingTimer);
    await this.deps.feed.close();
  }

  // StreamHost

  snapshotsAfter(wants: readonly { orderId: string; after: number }[]): Promise<OrderSnapshotRow[]> {
    return snapshotsAfter(this.deps.db, wants);
  }

  eventOf(view: StreamView, source: Pick<OrderMove, 'orderId' | 'version' | 'status' | 'orderJson'>): StreamEvent {
    const base = { orderId: source.orderId, version: source.version, status: source.status };
    if (view === 'partner') return { ...base, json: source.orderJson };
    if (this.publicMemo?.source !== source.orderJson) this.publicMemo = { source: source.orderJson, json: publicJsonFromOrderJson(source.orderJson) };
    return { ...base, json: this.publicMemo.json };
  }

  written(count: number): void {
    this.events.inc(count);
  }

  cut(stream: OrderStream): void {
    this.cuts.inc();
    this.release(stream);
  }

  closed(stream: OrderStream): void {
    this.release(stream);
  }

  failed(error: unknown): void {
    this.deps.onError(error);
  }

  /** Counts a new stream against its caps, or refuses it (429). */
  private reserve(view: StreamView, counters: readonly string[], opener: StreamOpener): OrderStream {
    if (this.closing) throw new ApiError('unavailable', 'this server is stopping: connect again');
    const { maxPerProcess, maxPerKey, maxPerAddress } = this.deps.settings;
    if (this.held.size >= maxPerProcess) this.refuse('process', `this server holds ${maxPerProcess} status streams, its limit (STREAM_MAX_PER_PROCESS): try again later, or poll POST /api/v1/partner/orders/status`);
    for (const counter of counters) {
      const count = this.counts.get(counter) ?? 0;
      if (counter.startsWith('key:') && count >= maxPerKey) {
        this.refuse('key', `this key holds ${maxPerKey} open status streams on this server, its limit (STREAM_MAX_PER_KEY): close one, put up to 50 orders in one stream, or poll POST /api/v1/partner/orders/status`);
      }
      if (counter.startsWith('address:') && count >= maxPerAddress) {
        this.refuse('address', `this address holds ${maxPerAddress} open status streams on this server, its limit (STREAM_MAX_PER_ADDRESS): close one first`);
      }
    }
    const stream = new OrderStream(view, this, opener.socketBuffered);
    for (const counter of counters) this.counts.set(counter, (this.counts.get(counter) ?? 0) + 1);
    this.held.set(stream, { orderIds: [], counters });
    this.openGauge.inc({ view });
    this.pingTimer ??= setInterval(() => this.pingAll(), this.deps.settings.pingMs).unref();
    return stream;
  }

  private refuse(reason: 'process' | 'key' | 'address', detail: string): never {
    this.refused.inc({ reason });
    throw new ApiError('rate_limited', detail);
  }

  /** Registers the stream under exactly these orders (moves of others no longer reach it). */
  private register(stream: OrderStream, orderIds: readonly string[]): void {
    const held = this.held.get(stream);
    if (held === undefined) return;
    for (const id of held.orderIds) this.byOrder.get(id)?.delete(stream);
    for (const id of orderIds) {
      let streams = this.byOrder.get(id);
      if (streams === undefined) this.byOrder.set(id, (streams = new Set()));
      streams.add(stream);
    }
    for (const id of held.orderIds) if (this.byOrder.get(id)?.size === 0) this.byOrder.delete(id);
    this.held.set(stream, { ...held, orderIds });
  }

  /** Forgets the stream and gives back what it counted (once, whichever way it ended). */
  private release(stream: OrderStream): void {
    const held = this.held.get(stream);
    if (held === undefined) return;
    this.held.delete(stream);
    stream.end();
    for (const id of held.orderIds) {
      const streams = this.byOrder.get(id);
      streams?.delete(stream);
      if (streams?.size === 0) this.byOrder.delete(id);
    }
    for (const counter of held.counters) {
      const left = (this.counts.get(counter) ?? 1) - 1;
      if (left === 0) this.counts.delete(counter);
      else this.counts.set(counter, left);
    }
    this.openGauge.dec({ view: stream.view });
  }

  private move(move: OrderMove): void {
    const streams = this.byOrder.get(move.orderId);
    if (streams === undefined) return;
    this.delay.observe(Math.max(0, Date.now() - move.recordedAtMs) / 1000);
    for (const stream of streams) stream.deliver(move);
  }

  private gap(): void {
    for (const stream of this.held.keys()) stream.fillGaps();
  }

  private pingAll(): void {
    for (const stream of this.held.keys()) stream.ping();
  }
}

/**
 * Last-Event-ID: `{order id}:{version}`, the id of the last event the reader got (what a
 * browser's EventSource sends). A client that follows several orders may send one such pair per
 * order, comma-separated (the SDK's watchOrder does), so none is sent again. Anything else in it
 * is ignored: that order's current state is sent.
 */
export function parseLastEventId(header: string | undefined): Map<string, number> {
  const seen = new Map<string, number>();
  if (header === undefined) return seen;
  for (const part of header.split(',')) {
    const [id, version, ...rest] = part.trim().split(':');
    if (id === undefined || version === undefined || rest.length > 0 || !UUID_PATTERN.test(id) || !/^[0-9]{1,9}$/.test(version)) continue;
    seen.set(id.toLowerCase(), Number(version));
  }
  return seen;
}
