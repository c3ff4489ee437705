import type { Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp } from './currencies.js';

/** One answered request made with an API key (migration 0065): never a header or a body. */
export interface ApiRequestLogTable {
  id: Generated<string>;
  partner_id: string;
  key_id: string;
  sandbox: boolean;
  method: string;
  /** The path as requested, without the query string. */
  path: string;
  status: number;
  duration_ms: number;
  /** The error body's `code` when the answer was an error. */
  error_code: string | null;
  at: Timestamp;
}

export type ApiRequestLogRow = Selectable<ApiRequestLogTable>;
export type NewApiRequestLogRow = Insertable<ApiRequestLogTable>;
