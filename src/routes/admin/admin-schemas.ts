import { Type } from '@sinclair/typebox';
import type { PartnerRow } from '../../db/schema/partners.js';

export const PartnerStatus = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);
export const MarkupBps = Type.Integer({ minimum: 0, maximum: 1000, description: 'markup in basis points' });
export const RateLimit = Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'requests per minute per key' });

export const Partner = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    status: PartnerStatus,
    markup_bps: Type.Integer(),
    rate_limit_per_minute: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminPartner', additionalProperties: false },
);

export function partnerView(row: PartnerRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    markup_bps: row.markup_bps,
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: row.created_at.toISOString(),
  };
}

export const KeyListing = Type.Object(
  {
    key_id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'AdminKey', additionalProperties: false },
);

/**
 * Free text an operator types: no NUL (PostgreSQL text cannot hold it) and no unpaired UTF-16
 * surrogate (not valid Unicode: jsonb refuses it). Either was a 500 before.
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\p{Cs}]+$';

export const PartnerIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const adminSecurity = [{ adminToken: [] }];
