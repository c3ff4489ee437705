import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from './currencies.js';

/** One mail to deliver (migration 0063): written in the transaction of what it tells. */
export interface MailOutboxTable {
  id: Generated<string>;
  /** One recipient's address. */
  to_address: string;
  subject: string;
  /** Plain text. */
  body: string;
  status: Generated<'pending' | 'sent' | 'failed'>;
  /** Delivery attempts made (failed ones, and the one that succeeded). */
  attempts: Generated<number>;
  /** When it is due next; a claim moves it forward as the sender's lease. */
  next_attempt_at: Timestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
}

export type MailOutboxRow = Selectable<MailOutboxTable>;
