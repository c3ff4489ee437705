import type { Db } from '../schema/index.js';
import type { MailOutboxRow } from '../schema/mail-outbox.js';

/**
 * The mail outbox (migration 0063). Mail is written by the caller's transaction (so it goes out
 * only when what it tells committed) and claimed by any number of workers (SKIP LOCKED).
 */

export interface NewMail {
  to: string;
  subject: string;
  text: string;
}

/** Queues mail, due at once. Returns the ids, in order. */
export async function insertMail(db: Db, mails: readonly NewMail[], now: Date): Promise<string[]> {
  if (mails.length === 0) return [];
  const rows = await db
    .insertInto('mail_outbox')
    .values(mails.map((mail) => ({ to_address: mail.to, subject: mail.subject, body: mail.text, next_attempt_at: now, created_at: now })))
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Up to `limit` pending mails due at `now`, oldest first, leased until `leaseUntil` (their
 * `next_attempt_at` moved there): another worker takes one only once the lease passed without
 * an outcome recorded (a worker killed mid-send).
 */
export async function claimDueMail(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<MailOutboxRow[]> {
  return db
    .updateTable('mail_outbox')
    .set({ next_attempt_at: leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('mail_outbox')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}

export async function markMailSent(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({ status: 'sent', sent_at: now, attempts: eb('attempts', '+', 1), last_error: null }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** A failed attempt: due again at `retryAt`, or `failed` for good when `retryAt` is null. */
export async function markMailAttemptFailed(db: Db, id: string, error: string, retryAt: Date | null): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      last_error: error.slice(0, 1000),
      ...(retryAt === null ? { status: 'failed' as const } : { next_attempt_at: retryAt }),
    }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Mail queued for an address, newest first (tests and the operator's look at what was told). */
export async function mailTo(db: Db, to: string, limit = 50): Promise<MailOutboxRow[]> {
  return db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
}
