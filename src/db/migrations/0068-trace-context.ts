import { sql, type Kysely } from 'kysely';

/**
 * Where a trace continues after the request that started it has answered: the W3C traceparent
 * of the span that wrote an order event (the worker's next step on the order continues it) and
 * a webhook event (its deliveries continue it). Null when tracing is off, which is the default.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table order_events add column trace_parent text`.execute(db);
  await sql`alter table webhook_events add column trace_parent text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_events drop column trace_parent`.execute(db);
  await sql`alter table order_events drop column trace_parent`.execute(db);
}
