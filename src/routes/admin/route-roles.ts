import type { FastifyRequest } from 'fastify';
import type { App } from '../../app-types.js';
import { ApiError, errorBodySchema } from '../../errors.js';
import { roleAtLeast, type OperatorRole } from '../../domain/operator-roles.js';

/**
 * The least role each operator route needs (docs/decisions.md, "Operator console"). Every read
 * (GET) is `viewer`'s; every change is listed here by method and route, and a change missing
 * from the table stops the app at start (onRoute throws), so no new route is open to every
 * role by omission. The bootstrap ADMIN_TOKEN acts as `admin`.
 */
export const CHANGE_ROLES: Readonly<Record<string, OperatorRole>> = {
  // Orders: support.
  'POST /admin/v1/orders/:id/cancel': 'support',
  'POST /admin/v1/orders/:id/continue': 'support',
  'POST /admin/v1/orders/:id/refund': 'support',
  'PUT /admin/v1/orders/:id/refund-address': 'support',
  'POST /admin/v1/orders/:id/fail': 'support',
  'POST /admin/v1/orders/:id/resume': 'support',
  // Webhook endpoints and deliveries: what support does when a partner's endpoint fails.
  'POST /admin/v1/webhooks/:id/disable': 'support',
  'POST /admin/v1/webhooks/:id/enable': 'support',
  'POST /admin/v1/webhooks/deliveries/:id/retry': 'support',
  // Money out: finance.
  'POST /admin/v1/commissions/payouts': 'finance',
  'POST /admin/v1/payouts/:id/approve': 'finance',
  'POST /admin/v1/ledger/transfers': 'finance',
  'POST /admin/v1/signer/pause': 'finance',
  'POST /admin/v1/signer/resume': 'finance',
  // Partners, their keys and people: admin.
  'POST /admin/v1/partners': 'admin',
  'PATCH /admin/v1/partners/:id': 'admin',
  'POST /admin/v1/partners/:id/invitations': 'admin',
  'POST /admin/v1/partners/:id/password-resets': 'admin',
  'POST /admin/v1/partners/:id/people/:person_id/clear-2fa': 'admin',
  'POST /admin/v1/partners/:id/people/:person_id/end-sessions': 'admin',
  'DELETE /admin/v1/partners/:id/people/:person_id': 'admin',
  'POST /admin/v1/partners/:id/keys': 'admin',
  'DELETE /admin/v1/keys/:key_id': 'admin',
  // Catalog, prices, deposit addresses: admin.
  'POST /admin/v1/currencies': 'admin',
  'PATCH /admin/v1/currencies/:id': 'admin',
  'PUT /admin/v1/prices/:coin': 'admin',
  'POST /admin/v1/address-pools/:chain': 'admin',
  'PUT /admin/v1/address-pools/:chain/alert': 'admin',
  'POST /admin/v1/addresses/resync': 'admin',
  // A backup of the embedded store: every partner's data leaves the process.
  'POST /admin/v1/backup': 'admin',
  // The operator's people.
  'POST /admin/v1/operators': 'admin',
  // The simulator (development and tests).
  'POST /admin/v1/simulator/orders/:id/deposit': 'admin',
  'POST /admin/v1/simulator/orders/:id/confirmations': 'admin',
  'POST /admin/v1/simulator/orders/:id/drop-deposit': 'admin',
  'POST /admin/v1/simulator/faults': 'admin',
};

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The least role of a route: viewer for a read; the table's entry for a change; undefined when the table has none. */
export function routeRole(method: string, url: string): OperatorRole | undefined {
  if (READS.has(method)) return 'viewer';
  return CHANGE_ROLES[`${method} ${url}`];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The role the operator guard let the request in with (plugins/admin-auth.ts). */
    operatorRole?: OperatorRole;
  }
}

/**
 * Installs the role check on the operator context: every change route must be in the table
 * (else the app does not start) and documents its 403; a request whose role is below the
 * route's is answered 403 `forbidden` with what it needs. Runs after the guard (onRequest,
 * registered after it).
 */
export function installRouteRoles(admin: App): void {
  admin.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const role = routeRole(method, route.url);
      if (role === undefined) throw new Error(`operator route ${method} ${route.url} has no role in routes/admin/route-roles.ts`);
      if (role === 'viewer') continue;
      const response = route.schema?.response as Record<string, unknown> | undefined;
      if (response === undefined || response['403'] !== undefined) continue;
      route.schema = { ...route.schema, response: { ...response, 403: { $ref: `${errorBodySchema.$id}#` } } };
    }
  });
  admin.addHook('onRequest', async (request: FastifyRequest) => {
    const url = request.routeOptions.url;
    if (url === undefined) return;
    const needed = routeRole(request.method, url) ?? 'admin';
    const role = request.operatorRole;
    if (role === undefined || !roleAtLeast(role, needed)) {
      throw new ApiError('forbidden', `this needs the ${needed} role; this ${request.operatorActor === undefined ? 'caller' : 'token'} acts as ${role ?? 'nobody'}`);
    }
  });
}
