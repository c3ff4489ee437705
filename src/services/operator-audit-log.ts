import { insertAuditEntry, isAuditedObject, listAuditEntries, readAuditTarget, type AuditedObject, type AuditFilter, type NewAuditEntry } from '../db/repositories/operator-audit-repository.js';
import type { Db } from '../db/schema/index.js';
import type { OperatorAuditRow } from '../db/schema/operator-audit.js';
import type { Clock } from '../clock.js';

export type { AuditedObject, AuditFilter };

/**
 * The operator audit log (docs/contract.md §12): entries written as operator actions are answered
 * (routes/admin/operator-audit.ts, the console's actions), the state of what an action acts on
 * read before and after it, and the log read back, newest first.
 */
export class OperatorAuditLog {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Writes one entry, stamped now. */
  record(entry: Omit<NewAuditEntry, 'at'>): Promise<void> {
    return insertAuditEntry(this.db, { at: this.clock.now(), ...entry });
  }

  list(filter: AuditFilter): Promise<OperatorAuditRow[]> {
    return listAuditEntries(this.db, filter);
  }

  /**
   * The audited object a route acts on, by its shape: a partner's person, a webhook delivery, the
   * simulator's order, a chain's address pool, the signer's brakes, a console person's security
   * key (the console's `/console/account/security-keys/:id/…`); else the route's first segment
   * under /admin/v1 (`orders/:id/refund` → orders). Undefined when nothing is read for it.
   */
  objectOf(route: string): AuditedObject | undefined {
    const path = route.split('/').slice(3).join('/');
    const object = /^partners\/:id\/people\/:person_id/.test(path)
      ? 'people'
      : path.startsWith('webhooks/deliveries/')
        ? 'deliveries'
        : path.startsWith('simulator/orders/')
          ? 'orders'
          : path.startsWith('address-pools/')
            ? 'pools'
            : path.startsWith('account/security-keys/')
              ? 'security-keys'
              : (path.split('/')[0] ?? '');
    return isAuditedObject(object) ? object : undefined;
  }

  /** The object as it is now, named by the route's parameters; undefined when there is none. */
  target(object: AuditedObject, params: Readonly<Record<string, string>>): Promise<unknown> {
    return readAuditTarget(this.db, object, params);
  }
}
