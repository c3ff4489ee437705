import { sql, type Kysely } from 'kysely';

/**
 * The mail outbox (docs/decisions.md, "Mail outbox"): a message is written here in the
 * transaction of what it tells (a payout address changed, a sign-in from a new place), and the
 * worker delivers it afterwards, so a mail is never sent for a change that rolled back and never
 * lost for one that committed. Delivery is at least once: a message whose outcome was not recorded
 * (a worker killed mid-send) is sent again once its lease (`next_attempt_at`) passes.
 *
 * `status`: `pending` until delivered (`sent`) or given up after its attempts (`failed`, with
 * `last_error`); `next_attempt_at` is when it is due (a claim moves it forward as a lease).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table mail_outbox (
      id uuid primary key default gen_random_uuid(),
      to_address text not null check (char_length(to_address) between 3 and 320),
      subject text not null check (char_length(subject) between 1 and 200),
      body text not null check (char_length(body) <= 100000),
      status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
      attempts integer not null default 0 check (attempts >= 0),
      next_attempt_at timestamptz not null,
      last_error text,
      created_at timestamptz not null,
      sent_at timestamptz,
      check ((status = 'sent') = (sent_at is not null))
    )`.execute(db);
  await sql`create index mail_outbox_due_idx on mail_outbox (next_attempt_at) where status = 'pending'`.execute(db);
  await sql`create index mail_outbox_to_idx on mail_outbox (to_address, created_at desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table mail_outbox`.execute(db);
}
