import { insertAuditEntry, listAuditEntries, type AuditFilter } from '../db/repositories/operator-audit-repository.js';
import type { Db } from '../db/schema/index.js';
import type { OperatorAuditRow } from '../db/schema/operator-audit.js';

export type { AuditFilter } from '../db/repositories/operator-audit-repository.js';

/** The operator audit log (append-only): what the console writes and reads of it. */
export class OperatorAuditLog {
  constructor(private readonly db: Db) {}

  record(entry: Parameters<typeof insertAuditEntry>[1]): Promise<void> {
    return insertAuditEntry(this.db, entry);
  }

  /** Newest first, filtered. */
  list(filter: AuditFilter): Promise<OperatorAuditRow[]> {
    return listAuditEntries(this.db, filter);
  }
}
