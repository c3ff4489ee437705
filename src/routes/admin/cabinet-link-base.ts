import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { ApiError } from '../../errors.js';

/**
 * The origin a cabinet link (invitation, password reset) is built on: PUBLIC_URL, or else the
 * asking request's own origin, which is where partners reach the service only when one listener
 * serves both surfaces. With ADMIN_PORT the request came through the operator listener, whose
 * address partners must never be sent to (and often cannot reach): the link is refused until
 * PUBLIC_URL says where partners are (issue 26.11, docs/decisions.md).
 */
export function cabinetLinkBase(config: Config, request: FastifyRequest): string {
  if (config.cabinet.publicUrl !== undefined) return config.cabinet.publicUrl;
  if (config.operator.listener !== undefined) {
    throw new ApiError('conflict', 'set PUBLIC_URL to make cabinet links: with ADMIN_PORT this request came through the operator listener, whose address is not where partners reach the cabinet');
  }
  return `${request.protocol}://${request.host}`;
}
