import pg from 'pg';

/**
 * PostgreSQL LISTEN on a connection of its own (a pooled connection cannot hold a LISTEN: it
 * goes back to the pool). Sending is `notify` in repositories/notifications-repository.ts.
 */
export interface NotificationListenerOptions {
  url: string;
  /** A plain identifier (LISTEN takes no parameter): lower-case letters and underscores. */
  channel: string;
  onMessage(payload: string): void;
  /**
   * The LISTEN is in place: at start, and again after a lost connection came back. Whatever
   * was sent in between is lost, so a listener that keeps copies starts them over here.
   */
  onListening(reconnected: boolean): void;
  onError(error: Error): void;
  /**
   * The connection is gone (cut, failed or ended), before it is dialled again: notifications
   * sent from now until the next onListening are lost. For a listener whose copies must not be
   * served meanwhile (the order read cache).
   */
  onLost?(): void;
  /** Pause before dialling again after a lost or failed connection, ms. Default 500. */
  retryMs?: number;
}

export interface NotificationListener {
  /** Resolves once the first LISTEN is in place, or after `withinMs` (it keeps trying). */
  listening(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

export function listenForNotifications(options: NotificationListenerOptions): NotificationListener {
  if (!/^[a-z_]{1,63}$/.test(options.channel)) throw new Error(`channel name ${options.channel} is not a plain identifier`);
  const retryMs = options.retryMs ?? 500;
  let client: pg.Client | undefined;
  let closed = false;
  let everListened = false;
  let retry: NodeJS.Timeout | undefined;
  const waiters = new Set<() => void>();

  const dial = async (): Promise<void> => {
    retry = undefined;
    if (closed) return;
    const current = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: 2000, keepAlive: true });
    client = current;
    let failed = false;
    const lost = (error?: Error): void => {
      if (failed) return;
      failed = true;
      if (error !== undefined) options.onError(error);
      options.onLost?.();
      current.removeAllListeners('notification');
      void current.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void dial(), retryMs).unref();
    };
    current.on('error', lost);
    current.on('end', () => lost());
    current.on('notification', (message) => {
      if (message.channel === options.channel && message.payload !== undefined) options.onMessage(message.payload);
    });
    try {
      await current.connect();
      await current.query(`LISTEN ${options.channel}`);
    } catch (error) {
      lost(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (closed) {
      await current.end().catch(() => undefined);
      return;
    }
    options.onListening(everListened);
    everListened = true;
    for (const wake of waiters) wake();
    waiters.clear();
  };
  void dial();

  return {
    listening(withinMs) {
      if (everListened) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(done);
          resolve();
        }, withinMs);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        waiters.add(done);
      });
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      for (const wake of waiters) wake();
      waiters.clear();
      await client?.end().catch(() => undefined);
    },
  };
}
