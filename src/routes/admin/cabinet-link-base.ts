import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { ApiError } from '../../errors.js';

/** A host name or an IP literal, and an optional port: what a Host header may be, nothing more. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::\d{1,5})?$/;

/**
 * The origin a cabinet link (invitation, password reset) is built on: PUBLIC_URL, or else the
 * asking request's own origin, which is where partners reach the service only when one listener
 * serves both surfaces. With ADMIN_PORT the request came through the operator listener, whose
 * address partners must never be sent to (and often cannot reach): the link is refused until
 * PUBLIC_URL says where partners are (docs/adr/0021-partner-cabinet.md).
 */
export function cabinetLinkBase(config: Config, request: FastifyRequest): string {
  if (config.cabinet.publicUrl !== undefined) return config.cabinet.publicUrl;
  if (config.operator.listener !== undefined) {
    throw new ApiError('conflict', 'set PUBLIC_URL to make cabinet links: with ADMIN_PORT this request came through the operator listener, whose address is not where partners reach the cabinet');
  }
  return requestOrigin(request);
}

/**
 * The asking request's own origin, when its Host header is a host (and port) and nothing else.
 * The Host header is the client's to write: an empty or malformed one made `http:///cabinet/…`
 * (the 10,000-case fuzz); one with a path or credentials would point people elsewhere.
 */
export function requestOrigin(request: FastifyRequest): string {
  const host = request.host;
  let origin: URL | undefined;
  if (HOST.test(host)) {
    try {
      origin = new URL(`${request.protocol}://${host}`);
    } catch {
      origin = undefined;
    }
  }
  if (origin === undefined) {
    throw new ApiError('bad_request', "the request's Host header is not an origin a link can be built on: send the service's host, or set PUBLIC_URL");
  }
  return origin.origin;
}
