import { deleteRequestLogBefore } from '../db/repositories/api-request-log-repository.js';
import { REQUEST_LOG_KEPT_MS } from '../services/request-log.js';
import { Decimal, floorToPlaces } from '../domain/money.js';
import type { Kysely } from 'kysely';
import { Counter, Gauge } from 'prom-client';
import { AdapterError, type ChainEvent, type ChainWatcher, type Exchanger, type PayoutSender, type WatchedOrder } from '../chains/adapters.js';
import { latestTraceParent } from '../db/repositories/order-events-repository.js';
import { tracingEnabled, withSpan } from '../tracing/tracing.js';
import type { Clock } from '../clock.js';
import {
  claimDueOrders,
  findOrdersPastExpiry,
  findWatchedOrders,
  oldestDueSince,
  scheduleRetry,
  type WatchedOrderRow,
} from '../db/repositories/order-queue-repository.js';
import { releaseEndedPoolAddresses } from '../db/repositories/deposit-addresses-repository.js';
import { findOrder } from '../db/repositories/orders-repository.js';
import { findPartner } from '../db/repositories/partners-repository.js';
import { findPayoutRequest, markPayoutFailed, markPayoutSent, signerPayoutsToFollow } from '../db/repositories/payouts-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Database } from '../db/schema/index.js';
import type { OrderRow } from '../db/schema/orders.js';
import type { PayoutRow } from '../db/schema/payouts.js';
import { floorRatio } from '../domain/pricing/exact-decimal.js';
import { partnerCommission } from '../domain/pricing/partner-commission.js';
import { decideExchange, holdsRefund, type ExchangeDecision, type RefusalReason } from '../domain/exchange-decision.js';
import type { Metrics } from '../metrics.js';
import type { CurrencyCatalog } from '../services/currency-catalog.js';
import type { OrderLifecycle } from '../services/order-lifecycle.js';
import type { QuoteService } from '../services/quote-service.js';
import type { WorkerMode } from '../db/schema/worker-heartbeats.js';
import { retryDelayMs, WorkerHeartbeat } from './heartbeat.js';

export interface WorkerSettings {
  /** A fixed order proceeds when received is within this percent of the expected amount. Default 0.5. */
  fixedTolerancePct: Decimal;
  /** How long a claimed order stays with one worker before another may take it, ms. Default 30000. */
  leaseMs: number;
  /** Failed attempts of the exchange or payout step before giving up on it. Default 5. */
  maxAttempts: number;
  /** First retry delay, doubled per failure up to 10 minutes, ms. Default 2000. */
  baseBackoffMs: number;
  /** Orders claimed per pass. Default 20. */
  batchSize: number;
  /** Pause between passes, ms. Default 1000. */
  intervalMs: number;
  /**
   * REFUND_HOLD_MINUTES: how long a refused exchange that the float rate could still take is held
   * for the partner's choice (continue or refund) before the refund proceeds; 0 disables. Default 30.
   */
  refundHoldMinutes: number;
}

/**
 * What sandbox orders (docs/contract.md §7.6) run on: the simulator's watcher, exchanger and payout sender,
 * whatever the live ones are. Chosen per order, so a sandbox order never reaches a node watcher,
 * an exchange or a payout adapter, even where real ones are configured.
 */
export interface SandboxAdapters {
  watcher: ChainWatcher;
  exchanger: Exchanger;
  payouts: PayoutSender;
}

export interface WorkerDeps {
  db: Kysely<Database>;
  lifecycle: OrderLifecycle;
  catalog: CurrencyCatalog;
  quotes: QuoteService;
  /** USD prices now: what the partner's commission is valued at, at the exchange moment. */
  prices: { getPriceUsd(symbol: string): Decimal | undefined };
  watchers: readonly ChainWatcher[];
  exchanger: Exchanger;
  payouts: PayoutSender;
  /** The simulator's adapters, for sandbox orders only (live orders use the three above). */
  sandbox: SandboxAdapters;
  clock: Clock;
  metrics: Metrics;
  logger: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  settings: WorkerSettings;
}

const MAX_BACKOFF_MS = 10 * 60 * 1000;
/** Expired orders stay watched this long, so a late deposit is still noticed and refunded. */
const LATE_DEPOSIT_WATCH_MS = 24 * 60 * 60 * 1000;
const DUE_STATUSES = ['exchanging', 'sending', 'refunding'] as const;
/** How long an order whose payout is the signer's waits before it is leased again as a safety net, ms. */
const SIGNER_RECHECK_MS = 10 * 60 * 1000;
/** How often a worker returns ended orders' pool addresses to their pools, ms (it need not be prompt). */
const POOL_RELEASE_INTERVAL_MS = 60_000;

/**
 * Moves orders along (see README.md beside this file): sweeps expiries, feeds chain watcher
 * reports into the state machine, and runs the exchange, payout and refund steps of due orders.
 * Every status change goes through OrderLifecycle; every query through db/repositories. Any number of
 * workers may run: due orders are leased with FOR UPDATE SKIP LOCKED, every move is
 * version-checked, and payouts are idempotent per order, so a crashed worker's order is simply
 * picked up again when its lease runs out.
 */
export class LifecycleWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly payoutFailures: Counter<'kind'>;
  private readonly lag: Gauge;
  /** Whether `lag` is in the registry yet: only a process that runs passes exports it. */
  private lagExported = false;
  private heartbeat: WorkerHeartbeat | undefined;
  private readonly poolReleased: Counter<'chain'>;
  /** Clock time of the last pool release pass; the first tick runs one. */
  private lastPoolRelease = Number.NEGATIVE_INFINITY;
  private lastRequestLogPrune = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: WorkerDeps) {
    this.payoutFailures = new Counter({
      name: 'payout_failures_total',
      help: 'Failed payout and refund attempts of live orders, by kind.',
      labelNames: ['kind'],
      registers: [deps.metrics.registry],
    });
    this.poolReleased = new Counter({
      name: 'deposit_address_pool_released_total',
      help: 'Pool addresses returned to their pool after their order ended with no deposit and its late-deposit watch ended, by chain.',
      labelNames: ['chain'],
      registers: [deps.metrics.registry],
    });
    // Registered by the first pass (measureLag), not here: an API process with WORKER=off
    // builds this worker but never runs it, and exported a lag of 0 forever.
    this.lag = new Gauge({
      name: 'worker_lag_seconds',
      help: 'Age of the oldest order step that is due and not yet done (exported by processes that run lifecycle passes).',
      registers: [],
      aggregator: 'max',
    });
  }

  /**
   * Runs passes until stop(). A failed pass (the database gone, a bug) is logged at error level
   * and the next one waits longer (doubling from WORKER_INTERVAL_MS up to 10 s), so an outage
   * gives a few lines, not one per interval; the pool reconnects by itself, and the first pass
   * that succeeds again says so. After each good pass the loop's heartbeat row is moved on
   * (`mode`: how this process runs the worker, shown by GET /admin/v1/health).
   */
  start(mode: WorkerMode = 'in-process'): void {
    if (!this.stopped) return;
    this.stopped = false;
    const heartbeat = new WorkerHeartbeat(this.deps.db, this.deps.clock, 'lifecycle', mode);
    this.heartbeat = heartbeat;
    let failures = 0;
    const loop = (): void => {
      this.running = this.tick()
        .then(() => heartbeat.beat())
        .then(
          () => {
            if (failures > 0) this.deps.logger.info({ failed_passes: failures }, 'lifecycle worker running again after failed passes');
            failures = 0;
          },
          (error: unknown) => {
            failures += 1;
            this.deps.logger.error(
              { err: error, failed_passes: failures, retry_in_ms: retryDelayMs(this.deps.settings.intervalMs, failures) },
              'worker pass failed',
            );
          },
        )
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(loop, retryDelayMs(this.deps.settings.intervalMs, failures)).unref();
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.heartbeat?.stopped();
  }

  /** One full pass; tests call it directly instead of waiting for the timer. */
  async tick(): Promise<void> {
    await this.sweepExpired();
    await this.pollWatchers();
    await this.processDue();
    await this.followSignerPayouts();
    await this.measureLag();
    await this.releasePoolAddresses();
    await this.pruneRequestLog();
  }

  /** The partner request log keeps 7 days (services/request-log.ts): older rows go, at most once a minute. */
  async pruneRequestLog(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    if (now - this.lastRequestLogPrune < POOL_RELEASE_INTERVAL_MS) return 0;
    this.lastRequestLogPrune = now;
    return deleteRequestLogBefore(this.deps.db, new Date(now - REQUEST_LOG_KEPT_MS));
  }

  /**
   * Pool drain: a pool address (SOL) was bound to its order forever, so expired
   * orders used the pool up. Once an order ended with no deposit and its late-deposit watch is
   * over (LATE_DEPOSIT_WATCH_MS after expires_at), nothing will ever be credited to it through
   * that address, so the address goes back to its pool. At most once a minute per worker; the
   * update is idempotent, so several workers doing it is harmless.
   */
  async releasePoolAddresses(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    if (now - this.lastPoolRelease < POOL_RELEASE_INTERVAL_MS) return 0;
    this.lastPoolRelease = now;
    const chains = await releaseEndedPoolAddresses(this.deps.db, new Date(now - LATE_DEPOSIT_WATCH_MS));
    for (const chain of chains) this.poolReleased.inc({ chain });
    return chains.length;
  }

  /**
   * waiting_deposit past expires_at → expired (`time_limit`), through the lifecycle in a batch:
   * each with its audit row, idempotent. Returns how many orders it moved.
   */
  async sweepExpired(): Promise<number> {
    const due = await findOrdersPastExpiry(this.deps.db, this.deps.clock.now());
    return this.deps.lifecycle.applyToMany(due, 'time_limit');
  }

  private async pollWatchers(): Promise<void> {
    const now = this.deps.clock.now();
    const watched = await findWatchedOrders(this.deps.db, new Date(now.getTime() - LATE_DEPOSIT_WATCH_MS));
    const live = watched.filter((row) => !row.sandbox);
    const sandbox = watched.filter((row) => row.sandbox);
    // Live orders go to the watcher of their chain (a node, or the simulator); sandbox orders
    // only ever to the sandbox watcher, whichever chains have a node.
    const rounds: [ChainWatcher, readonly WatchedOrderRow[]][] = [
      ...this.deps.watchers.map((watcher): [ChainWatcher, WatchedOrderRow[]] => [watcher, live.filter((row) => watcher.watches(row.chain))]),
      [this.deps.sandbox.watcher, sandbox],
    ];
    for (const [watcher, rows] of rounds) {
      const orders = rows.map(watchedOrderOf);
      let events: ChainEvent[];
      try {
        events = await watcher.poll(orders);
      } catch (error) {
        this.deps.logger.warn({ err: error, watcher: watcher.name }, 'chain watcher poll failed');
        continue;
      }
      for (const event of events) await this.applyChainEvent(event);
    }
  }

  private async applyChainEvent(event: ChainEvent): Promise<void> {
    const order = await findOrder(this.deps.db, event.orderId);
    if (order === undefined) return;
    if (!tracingEnabled()) return this.applyChainEventTo(order, event);
    // What the chain saw moves the order on in the trace of its last move (its creation, an action).
    const parent = await latestTraceParent(this.deps.db, order.id);
    return withSpan(`order chain ${event.kind}`, parent, { 'order.id': order.id, 'order.status': order.status }, () => this.applyChainEventTo(order, event));
  }

  private async applyChainEventTo(order: OrderRow, event: ChainEvent): Promise<void> {
    const { lifecycle } = this.deps;
    switch (event.kind) {
      case 'deposit_seen': {
        const deposit = {
          deposit_txid: event.txid,
          deposit_confirmations: event.confirmations,
          amount_from_received: event.amount.toFixed(),
        };
        let status = order.status;
        if (status === 'waiting_deposit' && order.expires_at <= this.deps.clock.now()) {
          const expired = await lifecycle.apply(order.id, 'time_limit');
          if (expired.ok) status = expired.order.status;
        }
        if (status === 'expired') {
          await lifecycle.apply(order.id, 'late_deposit', { changes: deposit, reason: 'late_deposit', data: { txid: event.txid } });
          return;
        }
        const seen = await lifecycle.apply(order.id, 'deposit_seen', { changes: deposit, data: { txid: event.txid } });
        if (seen.ok && event.confirmations >= order.deposit_confirmations_required) {
          await lifecycle.apply(order.id, 'confirmed', { changes: { deposit_confirmations: event.confirmations } });
        }
        return;
      }
      case 'confirmations': {
        const reached = event.confirmations >= order.deposit_confirmations_required;
        await lifecycle.apply(order.id, reached ? 'confirmed' : 'confirmations', {
          changes: { deposit_confirmations: event.confirmations },
        });
        return;
      }
      case 'deposit_dropped':
        await lifecycle.apply(order.id, 'deposit_dropped', {
          changes: { deposit_txid: null, deposit_confirmations: null, amount_from_received: null },
          data: { txid: event.txid },
        });
        return;
    }
  }

  /** Leases due orders (SKIP LOCKED: two workers never take the same one) and runs their step. */
  private async processDue(): Promise<void> {
    const now = this.deps.clock.now();
    const { leaseMs, batchSize } = this.deps.settings;
    const claimed = await claimDueOrders(this.deps.db, DUE_STATUSES, now, new Date(now.getTime() + leaseMs), batchSize);
    for (const order of claimed) {
      try {
        await this.step(order);
      } catch (error) {
        this.deps.logger.error({ err: error, orderId: order.id }, 'order step failed unexpectedly');
        await this.retryLater(order);
      }
    }
  }

  /** One order's step; with tracing on, a span continuing the trace of the move that made it due. */
  private async step(order: OrderRow): Promise<void> {
    const run = async () => {
      if (order.status === 'exchanging') await this.exchange(order);
      else if (order.status === 'sending') await this.send(order, 'payout');
      else if (order.status === 'refunding') await this.send(order, 'refund');
    };
    if (!tracingEnabled()) return run();
    const parent = await latestTraceParent(this.deps.db, order.id);
    return withSpan(`order step ${order.status}`, parent, { 'order.id': order.id, 'order.status': order.status }, run);
  }

  private async exchange(order: OrderRow): Promise<void> {
    const { catalog, lifecycle } = this.deps;
    const from = catalog.byId(order.currency_from_id);
    const to = catalog.byId(order.currency_to_id);
    if (from === undefined || to === undefined || order.amount_from_received === null) {
      throw new Error(`order ${order.id} cannot be exchanged: currency or received amount missing`);
    }
    const received = new Decimal(order.amount_from_received);
    const decided = await this.decide(order, from, to, received);
    if (decided.kind === 'refuse') {
      const hold = await this.refundHold(order, from, to, received, decided.reason);
      await lifecycle.apply(order.id, 'cannot_proceed', {
        reason: decided.reason,
        data: { received: received.toFixed(), ...(hold === undefined ? {} : { refund_hold_until: hold.toISOString() }) },
        ...(hold === undefined ? {} : { changes: { refund_hold_until: hold } }),
      });
      return;
    }
    if (decided.kind === 'later') {
      await this.retryLater(order, decided.why);
      return;
    }
    let amountTo: Decimal;
    try {
      ({ amountTo } = await this.adaptersFor(order).exchanger.fill({
        orderId: order.id,
        coinFrom: order.coin_from,
        coinTo: order.coin_to,
        amountFrom: received,
        expectedAmountTo: decided.amountTo,
      }));
    } catch (error) {
      if (!(error instanceof AdapterError)) throw error;
      if (error.permanent || order.attempts + 1 >= this.deps.settings.maxAttempts) {
        await lifecycle.apply(order.id, 'cannot_proceed', { reason: 'exchange_failed', data: { error: error.message } });
      } else {
        await this.retryLater(order, error.message);
      }
      return;
    }
    const amount = floorToPlaces(amountTo, to.decimals);
    await lifecycle.apply(order.id, 'exchange_filled', {
      changes: {
        amount_to_final: amount.toFixed(),
        // docs/contract.md §10.1: for display, rounded down as rate_quoted is.
        rate_final: received.isZero() ? null : floorRatio(amount, received, to.decimals).toFixed(),
        ...(await this.commission(order, from, to, received)),
      },
      data: { amount_to: amount.toFixed() },
      outbox: {
        kind: 'payout',
        currency_id: to.id,
        chain: to.chain,
        address: order.recipient_address,
        tag: order.recipient_address_tag,
        amount: amount.toFixed(),
      },
    });
  }

  /**
   * Gathers what the exchange decision needs (for a float order, the pair priced at the received
   * amount now, with the markup stored on the order: docs/contract.md §10.1) and makes it:
   * domain/exchange-decision.ts.
   */
  private async decide(order: OrderRow, from: CurrencyRow, to: CurrencyRow, received: Decimal): Promise<ExchangeDecision> {
    // A continued order (docs/contract.md §7.5) is re-priced at the float rate, whatever it was created as.
    if (order.rate_type === 'fixed' && order.continued_at === null) {
      return decideExchange({
        rateType: 'fixed',
        received,
        expected: new Decimal(order.amount_from_expected),
        exactRate: new Decimal(order.exact_rate),
        toDecimals: to.decimals,
        tolerancePct: this.deps.settings.fixedTolerancePct,
      });
    }
    return decideExchange({
      rateType: 'float',
      // The markup of its creation, or of its continue, not the partner's now.
      priced: this.deps.quotes.tryPricePair(from, to, { amount: received, rateType: 'float', markupBps: order.markup_bps }),
      attempts: order.attempts,
      maxAttempts: this.deps.settings.maxAttempts,
    });
  }

  /**
   * The partner's markup share of this exchange (docs/contract.md §7.8), recorded with the move into
   * sending: in coin_to and in USD at this moment's prices, with the markup the order was priced
   * with (stored on it, docs/contract.md §10.1: its quote's, its creation's or its continue's), never the
   * partner's markup now. Without a price now (the exchange went ahead on a locked rate) nothing
   * is recorded rather than a wrong figure.
   */
  private async commission(
    order: OrderRow,
    from: CurrencyRow,
    to: CurrencyRow,
    received: Decimal,
  ): Promise<{ partner_fee: string; partner_fee_usd: string; volume_usd: string; exchanged_at: Date } | Record<string, never>> {
    const priceFromUsd = this.deps.prices.getPriceUsd(from.price_symbol);
    const priceToUsd = this.deps.prices.getPriceUsd(to.price_symbol);
    if (priceFromUsd === undefined || priceToUsd === undefined) return {};
    const share = partnerCommission({ received, priceFromUsd, priceToUsd, markupBps: order.markup_bps, toDecimals: to.decimals });
    return {
      partner_fee: share.amount.toFixed(),
      partner_fee_usd: share.usd.toFixed(),
      volume_usd: share.volumeUsd.toFixed(),
      exchanged_at: this.deps.clock.now(),
    };
  }

  /**
   * Until when a refused exchange is held for the partner's choice (domain holdsRefund): only if
   * the received amount is within the pair's limits at the float rate now, with the partner's
   * markup now: the rate `continue` would exchange it at. Undefined: the refund proceeds at once.
   */
  private async refundHold(
    order: OrderRow,
    from: CurrencyRow,
    to: CurrencyRow,
    received: Decimal,
    reason: RefusalReason,
  ): Promise<Date | undefined> {
    const holdMinutes = this.deps.settings.refundHoldMinutes;
    const continued = order.continued_at !== null;
    if (!holdsRefund({ reason, holdMinutes, continued, withinLimits: true })) return undefined;
    const partner = await findPartner(this.deps.db, order.partner_id);
    const priced = this.deps.quotes.tryPricePair(from, to, { amount: received, rateType: 'float', partner });
    if (!holdsRefund({ reason, holdMinutes, continued, withinLimits: priced.ok })) return undefined;
    return new Date(this.deps.clock.now().getTime() + holdMinutes * 60_000);
  }

  private async send(order: OrderRow, kind: 'payout' | 'refund'): Promise<void> {
    if (kind === 'refund' && order.refund_hold_until !== null) {
      // Due because its hold ran out: the refund proceeds (requested by this move, when the order has a refund address).
      await this.deps.lifecycle.apply(order.id, 'hold_expired', { data: { refund_hold_until: order.refund_hold_until.toISOString() } });
      return;
    }
    const request = await findPayoutRequest(this.deps.db, order.id, kind);
    if (request === undefined) throw new Error(`order ${order.id} is ${order.status} without a ${kind} request`);
    if (request.payer === 'signer') {
      await this.followSigner(order, kind, request);
      return;
    }
    let txid: string;
    try {
      ({ txid } = await this.adaptersFor(order).payouts.send({
        idempotencyKey: `${order.id}:${kind}`,
        kind,
        chain: request.chain,
        address: request.address,
        tag: request.tag,
        amount: new Decimal(request.amount),
      }));
    } catch (error) {
      if (!(error instanceof AdapterError)) throw error;
      // A sandbox order's payout is the simulator's: its failures are no live payout failing.
      if (!order.sandbox) this.payoutFailures.inc({ kind });
      const giveUp = kind === 'payout' && (error.permanent || order.attempts + 1 >= this.deps.settings.maxAttempts);
      if (giveUp) {
        await this.deps.lifecycle.apply(order.id, 'payout_failed', {
          reason: 'payout_failed',
          data: { error: error.message },
          inTransaction: (tx) => markPayoutFailed(tx, request.id),
        });
      } else {
        // A refund is never given up by itself: it keeps retrying (at most every 10 minutes) until sent or failed by the operator.
        await this.retryLater(order, error.message);
      }
      return;
    }
    const sentAt = this.deps.clock.now();
    await this.deps.lifecycle.apply(order.id, kind === 'payout' ? 'payout_sent' : 'refund_sent', {
      // What the refund sent, exactly its row's amount (docs/contract.md §10.1); the payout's is amount_to_final already.
      changes: kind === 'payout' ? { payout_txid: txid } : { refund_txid: txid, amount_refunded: request.amount },
      data: { txid },
      inTransaction: (tx) => markPayoutSent(tx, request.id, txid, sentAt),
    });
  }

  /**
   * The signer's payouts whose orders have something to learn, found by one query per pass
   * (signerPayoutsToFollow) rather than by leasing every order that waits on the signer: with
   * more of those than a pass's batch (a paused signer, a hot wallet running dry), leasing them
   * starved the orders behind them that the worker itself had to move.
   */
  private async followSignerPayouts(): Promise<void> {
    for (const { order_id: orderId, kind } of await signerPayoutsToFollow(this.deps.db, this.deps.settings.batchSize)) {
      const [order, request] = [await findOrder(this.deps.db, orderId), await findPayoutRequest(this.deps.db, orderId, kind)];
      if (order === undefined || request === undefined) continue;
      try {
        await this.followSigner(order, kind, request);
      } catch (error) {
        this.deps.logger.error({ err: error, orderId }, 'following a signer payout failed unexpectedly');
      }
    }
  }

  /**
   * A payout the signer makes (docs/contract.md §11.2): the worker never sends it, it follows the row the
   * signer moves. Confirmed: the order completes (or is refunded) with the mined txid. Failed
   * (the signer's policy refused it, say): a payout fails the order; a refund is never given up
   * by itself, the operator decides (it is looked at again every 10 minutes). Anything else is
   * still on its way: followSignerPayouts picks it up when the row changes; the order itself is
   * due again only after SIGNER_RECHECK_MS, as a safety net, no attempt counted.
   */
  private async followSigner(order: OrderRow, kind: 'payout' | 'refund', request: PayoutRow): Promise<void> {
    const waitedForLiquidity = order.status === 'sending' && order.status_reason === 'awaiting_liquidity';
    if (request.status === 'confirmed' && request.txid !== null) {
      const txid = request.txid;
      await this.deps.lifecycle.apply(order.id, kind === 'payout' ? 'payout_sent' : 'refund_sent', {
        changes: kind === 'payout' ? { payout_txid: txid, ...(waitedForLiquidity ? { status_reason: null } : {}) } : { refund_txid: txid, amount_refunded: request.amount },
        data: { txid, fee: request.fee },
      });
      return;
    }
    if (request.status === 'failed') {
      this.payoutFailures.inc({ kind });
      if (kind === 'payout') {
        await this.deps.lifecycle.apply(order.id, 'payout_failed', { reason: 'payout_failed', data: { error: request.failure_reason } });
      } else {
        this.deps.logger.error({ orderId: order.id, reason: request.failure_reason }, 'the signer failed a refund: the operator decides (fail the order or correct and request again)');
        await scheduleRetry(this.deps.db, order, order.attempts, new Date(this.deps.clock.now().getTime() + MAX_BACKOFF_MS));
      }
      return;
    }
    // The Order says when its payout waits for the hot wallet (a refunding order keeps the
    // reason it is refunded for), and stops saying so once the signer takes it.
    const waiting = request.status === 'requested' && request.status_reason === 'awaiting_liquidity';
    if (kind === 'payout' && waiting !== waitedForLiquidity) {
      const moved = await this.deps.lifecycle.apply(order.id, 'payout_waiting', waiting ? { reason: 'awaiting_liquidity' } : { changes: { status_reason: null } });
      // The move changed the version: the retry below must be scheduled on the moved row.
      if (moved.ok) order = moved.order;
    }
    await scheduleRetry(this.deps.db, order, order.attempts, new Date(this.deps.clock.now().getTime() + SIGNER_RECHECK_MS));
  }

  /** The exchanger and payout sender an order's steps go to: the simulator's for a sandbox order. */
  private adaptersFor(order: Pick<OrderRow, 'sandbox'>): { exchanger: Exchanger; payouts: PayoutSender } {
    return order.sandbox ? this.deps.sandbox : this.deps;
  }

  /** Records a failed attempt and when to try again; no status change, no audit row. */
  private async retryLater(order: OrderRow, why?: string): Promise<void> {
    const attempts = order.attempts + 1;
    const delay = Math.min(this.deps.settings.baseBackoffMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
    await scheduleRetry(this.deps.db, order, attempts, new Date(this.deps.clock.now().getTime() + delay));
    if (why !== undefined) this.deps.logger.warn({ orderId: order.id, attempts, why }, 'order step will be retried');
  }

  private async measureLag(): Promise<void> {
    const now = this.deps.clock.now();
    const since = await oldestDueSince(this.deps.db, DUE_STATUSES);
    if (!this.lagExported) {
      this.deps.metrics.registry.registerMetric(this.lag);
      this.lagExported = true;
    }
    this.lag.set(since === null ? 0 : Math.max(0, (now.getTime() - since.getTime()) / 1000));
  }
}

/** A watched order's row as a chain watcher is handed it. */
export function watchedOrderOf(row: Omit<WatchedOrderRow, 'sandbox'>): WatchedOrder {
  return {
    id: row.id,
    chain: row.chain,
    depositAddress: row.deposit_address,
    depositTag: row.deposit_address_tag,
    status: row.status,
    depositTxid: row.deposit_txid,
    confirmations: row.deposit_confirmations,
    createdAt: row.created_at,
  };
}
