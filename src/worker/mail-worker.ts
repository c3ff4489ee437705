import type { Kysely } from 'kysely';
import { Counter } from 'prom-client';
import type { Clock } from '../clock.js';
import { claimDueMail, markMailAttemptFailed, markMailSent } from '../db/repositories/mail-outbox-repository.js';
import type { Database } from '../db/schema/index.js';
import type { Metrics } from '../metrics.js';
import type { MailTransport } from '../services/mailer.js';

export interface MailWorkerSettings {
  /** Pause between passes, ms. Default 2000. */
  pollMs: number;
  /** Mails claimed per pass. Default 20. */
  batchSize: number;
  /** Attempts before a mail is given up (`failed`). Default 8: about 2 hours of retries. */
  maxAttempts: number;
  /** First retry delay, doubled per failed attempt, at most 1 hour, ms. Default 60000. */
  baseBackoffMs: number;
  /** How long a claimed mail is this worker's before another may send it, ms. Default 120000. */
  leaseMs: number;
}

export const MAIL_WORKER_DEFAULTS: MailWorkerSettings = { pollMs: 2000, batchSize: 20, maxAttempts: 8, baseBackoffMs: 60_000, leaseMs: 120_000 };

const MAX_BACKOFF_MS = 3_600_000;

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The delay before attempt `failed + 1`, after `failed` failed attempts: base, doubled each time, at most an hour. */
export function mailRetryDelayMs(baseMs: number, failed: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, Math.min(failed - 1, 20)), MAX_BACKOFF_MS);
}

/**
 * Delivers the mail outbox (docs/decisions.md, "Mail outbox"): claims due mail (SKIP LOCKED,
 * leased, so any number of workers share it), sends each through the transport, and records
 * the outcome: sent, or due again after a backoff, or failed after `maxAttempts`. Runs wherever
 * the lifecycle worker runs; `tick()` is one pass (tests call it).
 */
export class MailWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly outcomes: Counter<'outcome'>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly transport: MailTransport,
    private readonly clock: Clock,
    metrics: Metrics,
    private readonly logger: Logger,
    private readonly settings: MailWorkerSettings = MAIL_WORKER_DEFAULTS,
  ) {
    this.outcomes = new Counter({
      name: 'mail_deliveries_total',
      help: 'Mail outbox delivery attempts by outcome: sent, retry (failed, due again), failed (given up).',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.logger.info({ transport: this.transport.describe }, 'mail outbox delivery running');
    const loop = (): void => {
      this.running = this.tick()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error({ err: error }, 'mail outbox pass failed'))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(loop, this.settings.pollMs).unref();
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.transport.close();
  }

  /** One pass: every due mail (up to a batch), one after the other. Returns how many were sent. */
  async tick(): Promise<number> {
    const now = this.clock.now();
    const claimed = await claimDueMail(this.db, now, new Date(now.getTime() + this.settings.leaseMs), this.settings.batchSize);
    let sent = 0;
    for (const mail of claimed) {
      try {
        await this.transport.send({ id: mail.id, to: mail.to_address, subject: mail.subject, text: mail.body, createdAt: mail.created_at });
      } catch (error) {
        const failed = mail.attempts + 1;
        const reason = error instanceof Error ? error.message : String(error);
        const retryAt = failed >= this.settings.maxAttempts ? null : new Date(this.clock.now().getTime() + mailRetryDelayMs(this.settings.baseBackoffMs, failed));
        await markMailAttemptFailed(this.db, mail.id, reason, retryAt);
        this.outcomes.inc({ outcome: retryAt === null ? 'failed' : 'retry' });
        // The address is the person's: logged by the mail's id only.
        const fields = { mail_id: mail.id, attempts: failed, err: reason, retry_at: retryAt };
        if (retryAt === null) this.logger.error(fields, 'mail given up after its attempts');
        else this.logger.warn(fields, 'mail delivery failed: retried later');
        continue;
      }
      await markMailSent(this.db, mail.id, this.clock.now());
      this.outcomes.inc({ outcome: 'sent' });
      sent++;
    }
    return sent;
  }
}
