import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { PartnerRow } from '../../db/schema/partners.js';

/** What the partner's webhook routes share: their security, tag and path parameters. */

export const partnerSecurity: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

export const EndpointParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'the webhook endpoint id' }) });

export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'the delivery id (from the delivery log)' }) });

/** The partner the key belongs to (partnerAuth.required ran before). */
export function callerOf(request: FastifyRequest): PartnerRow {
  const partner = request.partner;
  if (partner === undefined) throw new Error('partner auth hook did not run');
  return partner;
}
