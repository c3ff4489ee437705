import { sql } from 'kysely';
import type { Db } from '../schema/index.js';

/**
 * NOTIFY `channel` with `payload` (at most 8000 bytes). Inside a transaction it is delivered
 * at commit, and not at all on rollback. Listeners: db/notifications.ts.
 */
export async function notify(db: Db, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}
