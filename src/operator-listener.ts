import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { App } from './app-types.js';
import type { OperatorConfig } from './config.js';
import { isOperatorPath } from './surfaces.js';

/**
 * ADMIN_PORT: the operator surface (operator API, its document, /metrics) on a listener of its
 * own, so a firewall or a private interface can keep it from the internet, and the public port
 * answers 404 for it as for any unknown path.
 *
 * One app serves both: every route carries a `surface` constraint (src/surfaces.ts decides
 * which), and a request's surface is the listener it came through. A request no route of its
 * surface takes is Fastify's plain 404, the same envelope as any unknown path; nothing tells an
 * outsider that the operator API exists. Without ADMIN_PORT nothing here is installed and one
 * listener serves both surfaces, as before.
 */
const OPERATOR_REQUEST = Symbol('arrived on the operator listener');
type Marked = IncomingMessage & { [OPERATOR_REQUEST]?: true };

type Surface = 'partner' | 'operator';

/** Whether a request came through the operator listener (always false without ADMIN_PORT). */
export function arrivedOnOperatorListener(request: IncomingMessage): boolean {
  return (request as Marked)[OPERATOR_REQUEST] === true;
}

/** Call before any route is registered: the routes are tagged with their surface as they are added. */
export function installSurfaceSplit(app: App, operator: OperatorConfig): void {
  if (operator.listener === undefined) return;
  app.addConstraintStrategy({
    name: 'surface',
    // Two values, so a plain map is the whole store.
    storage() {
      const handlers = new Map<Surface, unknown>();
      return {
        get: (value: Surface) => (handlers.get(value) ?? null) as never,
        set: (value: Surface, handler: unknown) => void handlers.set(value, handler),
      };
    },
    deriveConstraint: (request: Marked): Surface => (request[OPERATOR_REQUEST] === true ? 'operator' : 'partner'),
    mustMatchWhenDerived: true,
  });
  app.addHook('onRoute', (route) => {
    const surface: Surface = isOperatorPath(route.url) ? 'operator' : 'partner';
    route.constraints = { ...route.constraints, surface };
  });
}

/** The request handler of the operator listener: the app's own router, the request marked. */
export function operatorHandler(app: App): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    (request as Marked)[OPERATOR_REQUEST] = true;
    app.routing(request, response);
  };
}

/** Listens for the operator surface; the caller closes the server before the app. */
export async function listenOperator(app: App, listener: NonNullable<OperatorConfig['listener']>): Promise<{ server: Server; url: URL }> {
  const server = createServer(operatorHandler(app));
  // The public server's timeouts (Fastify's defaults or options) hold here too.
  server.keepAliveTimeout = app.server.keepAliveTimeout;
  server.requestTimeout = app.server.requestTimeout;
  server.headersTimeout = app.server.headersTimeout;
  server.listen(listener.port, listener.host);
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the operator listener has no TCP address');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: new URL(`http://${host}:${address.port}`) };
}

/** Stops taking connections and ends the idle ones (in-flight requests finish). */
export async function closeOperator(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
}
