/**
 * The two surfaces of the service. The partner surface (the partner API, its docs, health and
 * readiness, coin icons) faces the internet; the operator surface (the operator API under
 * /admin/, the console under /console and the Prometheus /metrics) faces the operator. Each has its own OpenAPI document,
 * and ADMIN_PORT can put the operator surface on a listener of its own (src/operator-listener.ts).
 */

/** The operator API's prefix: every route under it sits behind the admin token. */
export const OPERATOR_PREFIX = '/admin/';

/** The operator console's pages (server-rendered, signed in by the operator's people). */
export const CONSOLE_PREFIX = '/console';

/** True for a route (or request path) of the operator surface. */
export function isOperatorPath(path: string): boolean {
  return (
    path.startsWith(OPERATOR_PREFIX) ||
    path === '/metrics' ||
    path.startsWith('/metrics?') ||
    path === CONSOLE_PREFIX ||
    path.startsWith(`${CONSOLE_PREFIX}/`) ||
    path.startsWith(`${CONSOLE_PREFIX}?`)
  );
}
