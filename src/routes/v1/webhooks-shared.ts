import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Mode } from '../../domain/modes.js';
import { partnerAccess } from '../../plugins/partner-auth.js';

/** What the partner's webhook routes share: their security, tag and path parameters. */

export const partnerSecurity: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

export const EndpointParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'the webhook endpoint id' }) });

export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'the delivery id (from the delivery log)' }) });

/**
 * The endpoints the key reaches (partnerAuth.required ran before): its partner's, of its own
 * mode (docs/contract.md §10.2). A new endpoint gets the key's mode.
 */
export function callerScope(request: FastifyRequest): { partnerId: string; mode: Mode } {
  const access = partnerAccess(request);
  return { partnerId: access.partner.id, mode: access.mode };
}
