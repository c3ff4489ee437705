/**
 * Webhook events and their delivery schedule (docs/contract.md §8, Standard Webhooks). Pure: the worker
 * asks here what follows an attempt.
 */

export const WEBHOOK_EVENT_TYPES = ['order.created', 'order.status_changed', 'ping'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Event types a partner may subscribe to (ping is sent on request, to one endpoint). */
export const SUBSCRIBABLE_EVENT_TYPES = ['order.created', 'order.status_changed'] as const;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The wait after each failed attempt, ms: attempt 1 is immediate, attempt 2 comes 5 s after a
 * failed first, … attempt 8 ten hours after the seventh; a failed eighth fails the delivery
 * (about 27.6 hours after the event). The Standard Webhooks schedule, without jitter, so tests
 * and partners can count on it.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

/** An endpoint whose deliveries have failed for this long without one success is disabled, ms (5 days). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR;

/** How long a rotated-out secret keeps signing beside the new one, ms (24 h). */
export const PREVIOUS_SECRET_TTL_MS = 24 * HOUR;

/** What follows a failed attempt, the `attemptsMade`-th (counting it). */
export type AfterFailure = { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };

export function afterFailedAttempt(attemptsMade: number, now: Date): AfterFailure {
  const delay = RETRY_DELAYS_MS[attemptsMade - 1];
  return delay === undefined ? { status: 'failed' } : { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay) };
}

/** Whether an endpoint failing since `failingSince` has failed long enough to be disabled. */
export function failingTooLong(failingSince: Date, now: Date): boolean {
  return now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
}
