import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { findUnstorableText } from '../../domain/storable-text.js';
import { WorkGateFull } from '../../services/work-gate.js';
import { Flash } from '../cabinet/flash.js';
import { registerConsoleAccount } from './account.js';
import { registerConsoleAttention } from './attention.js';
import { registerConsoleAudit } from './audit.js';
import { registerConsoleCatalog } from './catalog.js';
import { loadTarget, loggedValue } from '../admin/operator-audit.js';
import { consoleErrorPage } from './layout.js';
import { registerConsoleLogin } from './login.js';
import { registerConsoleOperations } from './operations.js';
import { registerConsoleOrders } from './orders.js';
import { registerConsolePartners } from './partners.js';
import { registerConsolePeople } from './people.js';
import { registerConsoleSecurityKeys, SECURITY_KEYS_SCRIPT } from './security-keys.js';
import { ConsoleSessions } from './session.js';

const FORM_BODY_LIMIT = 8 * 1024;
const HTML = 'text/html; charset=utf-8';

/**
 * The cabinet's stylesheet, script and icon, served again on the console's own paths (the
 * operator listener has no /cabinet); and the script of the security key ceremonies.
 */
const ASSETS = {
  'console.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('../cabinet/assets/cabinet.css', import.meta.url)) },
  'console.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('../cabinet/assets/cabinet.js', import.meta.url)) },
  [SECURITY_KEYS_SCRIPT]: { type: 'text/javascript; charset=utf-8', body: securityKeysScript() },
  'favicon.svg': { type: 'image/svg+xml', body: readFileSync(new URL('../cabinet/assets/favicon.svg', import.meta.url)) },
} as const;

/**
 * @simplewebauthn/browser's own browser bundle (the package ships it built: it defines the global
 * `SimpleWebAuthnBrowser`), then the console's script that uses it: one file of this origin, so
 * the CSP's `script-src 'self'` holds, nothing is fetched from elsewhere, and no build step is
 * needed (the server runs from src/ in the tests and from dist/ in production alike).
 */
function securityKeysScript(): Buffer {
  const packageMain = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  const bundle = readFileSync(path.join(path.dirname(packageMain), '..', 'dist', 'bundle', 'index.umd.min.js'));
  const own = readFileSync(new URL('./assets/security-keys.js', import.meta.url));
  return Buffer.concat([bundle, Buffer.from('\n'), own]);
}

/** Form fields never written to the audit log: secrets, and a security key ceremony's answer (public, but kilobytes that say nothing a reader needs). */
const UNLOGGED_FIELD = /^_csrf$|secret|password|token|code|^credential$/i;

/**
 * The /admin/v1 route a console action is the twin of, for the audit log's before and after:
 * `/console/catalog/:id` → `/admin/v1/currencies/:id`, `/console/pools/:chain` →
 * `/admin/v1/address-pools/:chain`, any other `/console/x` → `/admin/v1/x`.
 */
function adminTwin(route: string): string {
  return route.replace(/^\/console\/catalog\b/, '/admin/v1/currencies').replace(/^\/console\/pools\b/, '/admin/v1/address-pools').replace(/^\/console\//, '/admin/v1/');
}

/** `/console/orders/:id/refund` with {id} → `orders/<id>` (the route up to its last parameter); null without parameters. */
function auditTarget(route: string, params: Record<string, string>): string | null {
  const segments = route.split('/').slice(2);
  const last = segments.findLastIndex((segment) => segment.startsWith(':'));
  if (last === -1) return null;
  return segments
    .slice(0, last + 1)
    .map((segment) => (segment.startsWith(':') ? (params[segment.slice(1)] ?? segment) : segment))
    .join('/');
}

/** The page of an unknown path under /console (the app's not-found handler asks), else undefined. */
export function consoleNotFound(request: FastifyRequest): string | undefined {
  const path = request.url.split('?')[0] ?? '';
  return path === '/console' || path.startsWith('/console/') ? consoleErrorPage('Page not found', 'There is no page at this address in the console.') : undefined;
}

/**
 * The operator console under /console (docs/decisions.md, "Operator console"): server-rendered
 * pages for the operator's people, built as the cabinet is (routes/cabinet/README.md), on the
 * operator surface (src/surfaces.ts: the operator listener when ADMIN_PORT is set). Every
 * action a signed-in person posts writes the operator audit log with `person:<email>`.
 */
export async function registerConsole(app: App, services: Services): Promise<void> {
  await app.register(async (console: App) => {
    await console.register(fastifyCookie);
    await console.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
    console.addHook('onSend', (request, reply, payload, done) => {
      if (!request.url.startsWith('/console/assets/')) reply.header('cache-control', 'no-store');
      done(null, payload);
    });
    console.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof WorkGateFull) {
        return reply.code(429).header('retry-after', String(error.retryAfterSeconds)).type(HTML).send(consoleErrorPage('Busy', 'Too many passwords are being checked right now. Wait a second, then try again.'));
      }
      if (isDatabaseUnavailable(error)) return reply.code(503).type(HTML).send(consoleErrorPage('Unavailable', 'The console cannot reach its database just now. Try again in a minute.'));
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) return reply.code(status).type(HTML).send(consoleErrorPage('Request not accepted', 'The console could not read this request. Go back, reload the page and try again.'));
      request.log.error({ err: error }, 'unhandled error');
      return reply.code(500).type(HTML).send(consoleErrorPage('Something went wrong', 'The console could not finish this. Reload the page to check what changed, and try again.'));
    });
    console.addHook('preValidation', async (request, reply) => {
      const at = findUnstorableText(request.query) ?? findUnstorableText(request.body);
      if (at === undefined) return;
      return reply.code(400).type(HTML).send(consoleErrorPage('Form not accepted', 'A field holds a character that cannot be stored (a control character such as NUL). Go back, remove it and try again.'));
    });
    // What an action changes, as it was before: read as the operator API's audit reads it (the route's /admin/v1 twin).
    console.addHook('preHandler', async (request) => {
      if (request.method !== 'POST') return;
      request.auditBefore = await loadTarget(request, services.operatorAudit, adminTwin(request.routeOptions.url ?? ''));
    });
    // Every action of a signed-in person is an entry of the operator audit log, whatever its outcome.
    console.addHook('onSend', async (request, reply, payload) => {
      const session = request.consoleSession;
      if (request.method !== 'POST' || session === undefined) return payload;
      const route = request.routeOptions.url ?? '';
      const params = (request.params ?? {}) as Record<string, string>;
      const body = (request.body ?? {}) as Record<string, unknown>;
      const fields = Object.fromEntries(Object.entries(body).filter(([key]) => !UNLOGGED_FIELD.test(key) && key !== 'back'));
      const problem = /[?&]problem=/.test(String(reply.getHeader('location') ?? ''));
      const after = await loadTarget(request, services.operatorAudit, adminTwin(route));
      await services.operatorAudit.record({
        actor: session.actor,
        action: `POST ${route}`,
        target: auditTarget(route, params),
        before: loggedValue(request.auditBefore),
        // The object as it is now where one is read, with what the form asked; else what the form asked.
        after: loggedValue({ ...(after === undefined || after === null ? {} : { now: after }), asked: fields, ...(problem ? { refused: true } : {}) }),
        status: reply.statusCode,
        ip: request.ip,
      }).catch((error: unknown) => {
        const { message, code } = error as { message?: string; code?: string };
        request.log.error({ err: { message, code } }, 'operator audit entry not written');
      });
      return payload;
    });
    for (const [name, asset] of Object.entries(ASSETS)) {
      console.get(`/console/assets/${name}`, { schema: { hide: true } }, (_request, reply) => reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body));
    }
    const sessions = new ConsoleSessions(services.operators, services.config.cabinet.publicUrl);
    const flash = new Flash(services.operators.forms);
    registerConsoleLogin(console, services, sessions);
    registerConsoleAttention(console, services, sessions, flash);
    registerConsoleOrders(console, services, sessions, flash);
    registerConsoleAudit(console, services, sessions);
    registerConsolePartners(console, services, sessions, flash);
    registerConsoleCatalog(console, services, sessions, flash);
    registerConsoleOperations(console, services, sessions, flash);
    registerConsolePeople(console, services, sessions, flash);
    registerConsoleAccount(console, services, sessions, flash);
    registerConsoleSecurityKeys(console, services, sessions, flash);
  });
}
