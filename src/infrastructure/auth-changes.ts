import type { Db } from '../db/schema/index.js';
import { listenForNotifications, type NotificationListener } from '../db/notifications.js';
import { notify } from '../db/repositories/notifications-repository.js';

/** What changed about who may call: the copies of it that processes keep must go. */
export type AuthChange =
  /** A key was revoked or issued. */
  | { kind: 'key'; keyId: string }
  /** A partner's status, markup or limit changed. */
  | { kind: 'partner'; partnerId: string }
  /** Changes may have been missed (a lost listening connection): drop every copy. */
  | { kind: 'everything' };

/**
 * Tells every API process about authentication changes, so a revocation or a suspension takes
 * effect everywhere at once instead of when each process's cached row expires
 * (CACHE_REFRESH_MS). Handlers also run for this process's own changes.
 */
export interface AuthChangeFeed {
  /** Never rejects: a change that cannot be sent is logged and expires with the caches. */
  publish(change: AuthChange): Promise<void>;
  subscribe(handler: (change: AuthChange) => void): void;
  close(): Promise<void>;
}

/** The embedded default: one process, so telling it is calling its handlers. */
export class InProcessAuthChanges implements AuthChangeFeed {
  private readonly handlers: ((change: AuthChange) => void)[] = [];

  publish(change: AuthChange): Promise<void> {
    for (const handler of this.handlers) handler(change);
    return Promise.resolve();
  }

  subscribe(handler: (change: AuthChange) => void): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {}
}

/** The channel every API process of one database listens on. */
export const AUTH_CHANGES_CHANNEL = 'epa_auth_changes';

export interface AuthChangeLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * PostgreSQL (DATABASE_URL): NOTIFY through the pool, LISTEN on a connection of its own.
 * Delivery takes milliseconds; a lost listening connection is dialled again and, once back,
 * every copy is dropped (changes sent meanwhile were lost). A process's own change is applied
 * at once as well, so it never depends on the round trip.
 */
export class PostgresAuthChanges implements AuthChangeFeed {
  private readonly handlers: ((change: AuthChange) => void)[] = [];
  private readonly listener: NotificationListener;

  constructor(
    private readonly db: Db,
    url: string,
    private readonly log: AuthChangeLog,
  ) {
    this.listener = listenForNotifications({
      url,
      channel: AUTH_CHANGES_CHANNEL,
      onMessage: (payload) => {
        const change = parseChange(payload);
        if (change === undefined) this.log.warn({ payload: payload.slice(0, 100) }, 'unreadable authentication change notification');
        else this.deliver(change);
      },
      onListening: (reconnected) => {
        if (reconnected) this.deliver({ kind: 'everything' });
      },
      onError: (error) => this.log.warn({ err: error.message }, 'authentication change listener lost its connection; dialling again'),
    });
  }

  /** Waits (at most `withinMs`) for the LISTEN to be in place. */
  listening(withinMs: number): Promise<void> {
    return this.listener.listening(withinMs);
  }

  async publish(change: AuthChange): Promise<void> {
    this.deliver(change);
    try {
      await notify(this.db, AUTH_CHANGES_CHANNEL, JSON.stringify(change));
    } catch (error) {
      this.log.error({ err: error instanceof Error ? error.message : String(error), change }, 'authentication change not sent: other processes see it when their caches expire');
    }
  }

  subscribe(handler: (change: AuthChange) => void): void {
    this.handlers.push(handler);
  }

  close(): Promise<void> {
    return this.listener.close();
  }

  private deliver(change: AuthChange): void {
    for (const handler of this.handlers) handler(change);
  }
}

function parseChange(payload: string): AuthChange | undefined {
  try {
    const value = JSON.parse(payload) as Partial<{ kind: string; keyId: unknown; partnerId: unknown }>;
    if (value.kind === 'key' && typeof value.keyId === 'string') return { kind: 'key', keyId: value.keyId };
    if (value.kind === 'partner' && typeof value.partnerId === 'string') return { kind: 'partner', partnerId: value.partnerId };
    if (value.kind === 'everything') return { kind: 'everything' };
  } catch {
    // not JSON: reported by the caller
  }
  return undefined;
}
