import { listenForNotifications, type NotificationListener } from '../db/notifications.js';
import { notify } from '../db/repositories/notifications-repository.js';
import type { Db } from '../db/schema/index.js';

/** The channel every process of one database listens on for catalog changes. */
export const CATALOG_CHANGES_CHANNEL = 'epa_catalog_changes';

interface Log {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Tells every process that the catalog changed (docs/contract.md §12: a coin added or edited at run time
 * is quoted everywhere at once), so each reloads it now instead of on its next
 * CACHE_REFRESH_MS tick. Embedded (one process) it reloads this one; under DATABASE_URL it
 * NOTIFYs, and a LISTEN on a connection of its own reloads on every message and after a lost
 * connection came back (a change may have been missed meanwhile).
 */
export class CatalogChanges {
  private readonly listener: NotificationListener | undefined;

  constructor(
    private readonly db: Db,
    url: string | undefined,
    private readonly reload: () => Promise<void>,
    private readonly log: Log,
  ) {
    if (url === undefined) return;
    this.listener = listenForNotifications({
      url,
      channel: CATALOG_CHANGES_CHANNEL,
      onMessage: () => this.reloadLogged(),
      onListening: (reconnected) => {
        if (reconnected) this.reloadLogged();
      },
      onError: (error) => this.log.warn({ err: error.message }, 'catalog change listener lost its connection; dialling again'),
    });
  }

  /** Waits (at most `withinMs`) for the LISTEN to be in place; at once when there is none. */
  listening(withinMs: number): Promise<void> {
    return this.listener?.listening(withinMs) ?? Promise.resolve();
  }

  /** Reloads this process, then tells the others. Never rejects: a change not sent reaches them on their refresh tick. */
  async publish(): Promise<void> {
    await this.reload();
    if (this.listener === undefined) return;
    try {
      await notify(this.db, CATALOG_CHANGES_CHANNEL, 'changed');
    } catch (error) {
      this.log.error({ err: error instanceof Error ? error.message : String(error) }, 'catalog change not sent: other processes see it on their next refresh');
    }
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  private reloadLogged(): void {
    this.reload().catch((error: unknown) => this.log.error({ err: error }, 'catalog reload after a change notice failed'));
  }
}
