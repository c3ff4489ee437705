import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, Histogram } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../clock.js';
import { withSpan } from '../tracing/tracing.js';
import {
  claimDueDeliveries,
  recordDeliveryAttempt,
  type AttemptRecord,
  webhookQueueStats,
  type ClaimedDelivery,
  type WebhookQueueStats,
} from '../db/repositories/webhook-deliveries-repository.js';
import {
  clearWebhookEndpointFailing,
  disableFailingWebhookEndpoint,
  markWebhookEndpointFailing,
} from '../db/repositories/webhook-endpoints-repository.js';
import type { Db } from '../db/schema/index.js';
import { afterFailedAttempt, failingTooLong } from '../domain/webhook-events.js';
import type { Metrics } from '../metrics.js';
import type { SecretBox } from '../infrastructure/secret-box.js';
import type { SendOutcome } from '../infrastructure/webhook-sender.js';
import type { WorkerMode } from '../db/schema/worker-heartbeats.js';
import { retryDelayMs, WorkerHeartbeat } from './heartbeat.js';

export interface WebhookWorkerSettings {
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Leases one endpoint may hold at once, across every worker: a slow receiver holds only these. */
  perEndpoint: number;
  /** One attempt's bound, ms (10 s): a lease outlives it by LEASE_MARGIN_MS. */
  timeoutMs: number;
  /** Pause between claims when nothing was due, ms: the most a new event waits to be picked up. */
  pollMs: number;
}

/** How long a lease outlives the attempt's own deadline: a worker killed mid-attempt delays its deliveries by about this. */
const LEASE_MARGIN_MS = 2000;
/** How often the queue gauges are refreshed, ms. */
const QUEUE_STATS_MS = 5000;

/** Sends one signed request; WebhookSender in production, and in tests too (against a local receiver). */
export interface WebhookTransport {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendOutcome>;
  close(): void;
}

export interface WebhookWorkerDeps {
  db: Db;
  clock: Clock;
  transport: WebhookTransport;
  secrets: SecretBox;
  metrics: Metrics;
  logger: FastifyBaseLogger;
  settings: WebhookWorkerSettings;
}

/**
 * Delivers the webhook outbox (docs/contract.md §8): claims due deliveries (SKIP LOCKED, so any number of
 * workers share the queue), signs each per Standard Webhooks with the endpoint's secret (and the
 * previous one while it is still valid), sends it, and records the outcome: delivered, or failed
 * and retried on the §8 schedule; an endpoint failing for 5 days is disabled. Attempts run side
 * by side up to `concurrency`, at most `perEndpoint` per endpoint, so a receiver that hangs
 * holds only its own slots. At least once: an attempt whose outcome was not recorded (a worker
 * killed mid-attempt) is made again once its lease runs out, with the same webhook-id.
 */
export class WebhookWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = true;
  private loopDone: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /**
   * An attempt ended since the last claim began. Set by the attempt itself, so an end that
   * comes while the loop is claiming (not waiting, `wake` unset) is not lost: the loop claims
   * again instead of sleeping out its poll with free slots.
   */
  private slotFreed = false;
  private statsTimer: NodeJS.Timeout | undefined;
  private heartbeat: WorkerHeartbeat | undefined;
  private stats: WebhookQueueStats = { due: 0, oldestDueAt: null, retrying: 0 };
  readonly results: Counter<'result'>;
  private readonly duration: Histogram;

  constructor(private readonly deps: WebhookWorkerDeps) {
    const registers = [deps.metrics.registry];
    this.results = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by result: delivered, retrying (failed, another attempt scheduled), failed (no attempt left).',
      labelNames: ['result'],
      registers,
    });
    this.duration = new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Time of one webhook attempt, request to answer read.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const current = (): WebhookQueueStats => this.stats;
    const clock = deps.clock;
    new Gauge({
      name: 'webhook_queue_depth',
      help: `Webhook deliveries due now and not yet delivered, of enabled endpoints (refreshed every ${QUEUE_STATS_MS / 1000} s).`,
      registers,
      // The same queue seen from every process: across a cluster its depth, not a sum.
      aggregator: 'max',
      collect() {
        this.set(current().due);
      },
    });
    new Gauge({
      name: 'webhook_queue_oldest_pending_seconds',
      help: 'How long the most overdue webhook delivery of an enabled endpoint has been due (0 when none is).',
      registers,
      // The same queue seen from every process: across a cluster its depth, not a sum.
      aggregator: 'max',
      collect() {
        const oldest = current().oldestDueAt;
        this.set(oldest === null ? 0 : Math.max(0, (clock.now().getTime() - oldest.getTime()) / 1000));
      },
    });
    new Gauge({
      name: 'webhook_deliveries_retrying',
      help: 'Webhook deliveries waiting for their next scheduled attempt.',
      registers,
      // The same queue seen from every process: across a cluster its depth, not a sum.
      aggregator: 'max',
      collect() {
        this.set(current().retrying);
      },
    });
  }

  /**
   * Another worker on the same queue, database and secrets, with its own transport, settings and
   * metrics registry (a second worker process in miniature: tests of SSRF rules and slow receivers).
   */
  fork(overrides: Pick<WebhookWorkerDeps, 'transport' | 'settings' | 'metrics'>): WebhookWorker {
    return new WebhookWorker({ ...this.deps, ...overrides });
  }

  /** Claims what this process has room for and starts those attempts; returns how many it started. */
  async tick(): Promise<number> {
    const room = this.deps.settings.concurrency - this.inFlight.size;
    if (room <= 0) return 0;
    const now = this.deps.clock.now();
    const leaseUntil = new Date(now.getTime() + this.deps.settings.timeoutMs + LEASE_MARGIN_MS);
    const claimed = await claimDueDeliveries(this.deps.db, now, leaseUntil, { limit: room, perEndpoint: this.deps.settings.perEndpoint });
    for (const delivery of claimed) {
      const attempt = withSpan(`webhook delivery ${delivery.type}`, delivery.trace_parent, { 'webhook.delivery_id': delivery.id, 'webhook.attempt': delivery.attempts + 1 }, () =>
        this.attempt(delivery),
      )
        .catch((error: unknown) => this.deps.logger.error({ err: error, delivery: delivery.id }, 'webhook attempt not recorded'))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.slotFreed = true;
          this.wake?.();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** Resolves when every attempt started so far has been recorded. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Claims and delivers until nothing is due (tests: one pass of the queue at the clock's time). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.tick();
      total += started;
      if (started === 0 && this.inFlight.size === 0) return total;
      await Promise.race(this.inFlight);
    }
  }

  /** Recounts the queue for the gauges (the timer's step). */
  async refreshQueueStats(): Promise<WebhookQueueStats> {
    this.stats = await webhookQueueStats(this.deps.db, this.deps.clock.now());
    return this.stats;
  }

  /** `mode`: how this process runs the worker, for its heartbeat row (GET /admin/v1/health). */
  start(mode: WorkerMode = 'in-process'): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.heartbeat = new WorkerHeartbeat(this.deps.db, this.deps.clock, 'webhook', mode);
    this.loopDone = this.loop(this.heartbeat);
    const refresh = () => void this.refreshQueueStats().catch((error: unknown) => this.deps.logger.error({ err: error }, 'webhook queue count failed'));
    refresh();
    this.statsTimer = setInterval(refresh, QUEUE_STATS_MS).unref();
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by timeoutMs). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.statsTimer);
    this.wake?.();
    await this.loopDone;
    await this.settled();
    await this.heartbeat?.stopped();
    this.deps.transport.close();
  }

  /**
   * Claims until stopped. A failed claim (the database gone) is logged at error level and the
   * next waits longer, doubling from the poll up to 10 s, so an outage gives a few lines; the
   * first claim that succeeds again says so. Good claims move the heartbeat row on.
   */
  private async loop(heartbeat: WorkerHeartbeat): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let started = 0;
      this.slotFreed = false;
      try {
        started = await this.tick();
        await heartbeat.beat();
        if (failures > 0) this.deps.logger.info({ failed_claims: failures }, 'webhook worker claiming again after failed claims');
        failures = 0;
      } catch (error) {
        failures += 1;
        this.deps.logger.error(
          { err: error, failed_claims: failures, retry_in_ms: retryDelayMs(this.deps.settings.pollMs, failures) },
          'webhook claim failed',
        );
      }
      if (this.stopped) break;
      // Claim again at once while there was work and room, or when a slot was freed during the
      // claim; else wait for a free slot or the poll. Without the second case a claim that took
      // as long as the attempts left every slot idle until the poll (bench/README.md, webhooks).
      const full = this.inFlight.size >= this.deps.settings.concurrency;
      if ((started > 0 && !full) || this.slotFreed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryDelayMs(this.deps.settings.pollMs, failures));
        timer.unref();
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { clock, transport } = this.deps;
    const start = clock.now();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'exchange-partner-api-webhooks/1',
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(Math.floor(start.getTime() / 1000)),
      'webhook-signature': this.signatures(delivery, start),
    };
    const outcome = await transport.send(delivery.url, headers, delivery.payload);
    this.duration.observe(outcome.durationMs / 1000);
    const at = clock.now();
    const attempt = delivery.attempts + 1;
    const answer = {
      attempt,
      startedAt: start,
      at,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      responseHeaders: outcome.responseHeaders ?? null,
      responseBody: outcome.responseBody ?? null,
    };
    if (outcome.delivered) {
      if (!(await this.record(delivery, { ...answer, outcome: 'delivered', nextAttemptAt: null }))) return;
      if (delivery.failing_since !== null) await clearWebhookEndpointFailing(this.deps.db, delivery.endpoint_id);
      this.results.inc({ result: 'delivered' });
      return;
    }
    const next = afterFailedAttempt(attempt, at);
    const recorded = await this.record(delivery, {
      ...answer,
      outcome: next.status,
      nextAttemptAt: next.status === 'pending' ? next.nextAttemptAt : null,
    });
    if (!recorded) return;
    this.results.inc({ result: next.status === 'pending' ? 'retrying' : 'failed' });
    const failingSince = await markWebhookEndpointFailing(this.deps.db, delivery.endpoint_id, at);
    if (failingSince !== null && failingTooLong(failingSince, at) && (await disableFailingWebhookEndpoint(this.deps.db, delivery.endpoint_id, at))) {
      this.deps.logger.warn({ endpoint: delivery.endpoint_id, failingSince }, 'webhook endpoint disabled: its deliveries have failed for 5 days');
    }
  }

  /** Records the attempt if this claim still holds its lease; a lost lease is logged, not recorded. */
  private async record(delivery: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
    if (await recordDeliveryAttempt(this.deps.db, delivery.id, delivery.lease_until, record)) return true;
    this.deps.logger.warn(
      { delivery: delivery.id, attempt: record.attempt, leaseUntil: delivery.lease_until },
      'webhook attempt outlived its lease: another claim made the delivery again and its outcome stands',
    );
    return false;
  }

  /** `v1,<sig>` with the current secret, and with the previous one while it still signs (space-separated). */
  private signatures(delivery: ClaimedDelivery, at: Date): string {
    const secrets = [this.deps.secrets.open(delivery.secret, delivery.endpoint_id)];
    if (delivery.previous_secret !== null && delivery.previous_secret_expires_at !== null && delivery.previous_secret_expires_at > at) {
      secrets.push(this.deps.secrets.open(delivery.previous_secret, delivery.endpoint_id));
    }
    return secrets.map((secret) => new Webhook(secret).sign(delivery.event_id, at, delivery.payload)).join(' ');
  }
}
