import { Counter, Gauge } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics.js';
import { findPartnerOrderWire } from '../db/repositories/orders-repository.js';
import type { Db } from '../db/schema/index.js';
import { partnerOrderWireJson, type LinkBase } from '../views/partner-order-view.js';
import { publicOrderJson } from '../views/public-order-view.js';
import { ApiError } from '../errors.js';
import type { OrderMoveFeed } from './order-move-feed.js';
import { orderEtag, OrderReadCache, type OrderReading, type PublicOrderReading } from './order-read-cache.js';
import { partnerOrderKey, type OrderService } from './order-service.js';
import type { PartnerAccess } from './partner-access.js';

/** How long a read waits for the move feed's LISTEN before it goes to the database anyway (it does not wait at all). */
const NO_WAIT_MS = 0;

/**
 * GET /partner/orders/{id} and GET /public/orders/{token}: an order's bytes and ETag, from this
 * process's order read cache when it holds them (docs/adr/0057-order-read-cache.md), else from
 * the database (and kept). The cache and the database answer the same bytes: both are the Order
 * the partner's view writes at the clock's now.
 */
export class OrderReads {
  private readonly cache: OrderReadCache;
  private feedStarted = false;
  /** The lookups' children, bound once (prom-client hashes a label set per call otherwise). */
  private readonly hits: { inc(): void };
  private readonly misses: { inc(): void };

  constructor(
    private readonly db: Db,
    private readonly orders: Pick<OrderService, 'findByStatusToken'>,
    private readonly feed: OrderMoveFeed,
    private readonly clock: Clock,
    private readonly linkBase: LinkBase,
    /** Orders kept at most (ORDER_CACHE_SIZE); 0 keeps none. */
    limit: number,
    /** Whether the feed tells moves in-process (PGlite): then it is listening from the start. */
    inProcess: boolean,
    metrics: Metrics,
  ) {
    this.cache = new OrderReadCache(limit, inProcess, () => this.clock.now().toISOString());
    feed.subscribe(this.cache);
    const lookups = new Counter<'result'>({
      name: 'order_read_cache_lookups_total',
      help: 'Order reads (GET /partner/orders/{id}, the public status read) by whether this process\'s order read cache held the order: hit or miss (read from the database).',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
    // Both series from the start (a rate over a series that appears later misses its first step).
    lookups.inc({ result: 'hit' }, 0);
    lookups.inc({ result: 'miss' }, 0);
    this.hits = lookups.labels('hit');
    this.misses = lookups.labels('miss');
    const cache = this.cache;
    new Gauge({
      name: 'order_read_cache_orders',
      help: 'Orders this process\'s order read cache holds now (at most ORDER_CACHE_SIZE).',
      registers: [metrics.registry],
      collect() {
        this.set(cache.size);
      },
    });
  }

  /** Orders kept now (tests, metrics). */
  get kept(): number {
    return this.cache.size;
  }

  /** The partner's order by UUID or short id (a client key: by UUID only); 404 for any other. */
  async read(access: PartnerAccess, orderId: string): Promise<OrderReading> {
    const { owner, by } = partnerOrderKey(access, orderId);
    this.startFeed();
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const kept = this.cache.get(owner, by, nowIso);
    if (kept !== undefined) {
      this.hits.inc();
      return kept;
    }
    this.misses.inc();
    const started = this.cache.begin();
    const row = await findPartnerOrderWire(this.db, owner, by);
    if (row === undefined) throw new ApiError('not_found', 'order not found');
    return this.cache.fill(started, owner.partnerId, row, partnerOrderWireJson(row, now, this.linkBase), nowIso);
  }

  /** The public view behind a status link (docs/contract.md §10.10); 404 for any other token. */
  async readPublic(token: string): Promise<PublicOrderReading> {
    this.startFeed();
    const now = this.clock.now();
    const kept = this.cache.getPublic(token, now.toISOString());
    if (kept !== undefined) {
      this.hits.inc();
      return kept;
    }
    this.misses.inc();
    // Not kept: read as before (the public read alone does not fill the cache: its row is not the
    // partner's Order the cache keeps).
    const json = publicOrderJson(await this.orders.findByStatusToken(token), now);
    return { json, etag: orderEtag(json) };
  }

  /** The feed's LISTEN (PostgreSQL), from the first read on: a worker that serves none holds no connection for it. */
  private startFeed(): void {
    if (this.feedStarted) return;
    this.feedStarted = true;
    void this.feed.ready(NO_WAIT_MS);
  }
}
