import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Security headers on every response, as helmet writes them: CSP, HSTS,
 * X-Content-Type-Options nosniff, Referrer-Policy no-referrer, frame refusal, the
 * Cross-Origin-* isolation headers. The CSP is the strict one the docs page (/docs, Swagger UI)
 * works under: everything from this origin, images also as data: URIs (Swagger UI's icons),
 * no inline script, no framing, no plugins, forms only to this origin. Checked in a real
 * browser with no CSP error in its console (test/ops/security-headers-browser.test.ts).
 */
export const CONTENT_SECURITY_POLICY: Readonly<Record<string, string[]>> = Object.freeze({
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  // Swagger UI's stylesheets are files of this origin; React sets styles through the DOM, which
  // a CSP does not govern, so no 'unsafe-inline' is needed.
  'style-src': ["'self'"],
});

const OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false as const, directives: { ...CONTENT_SECURITY_POLICY } },
  // TLS ends at the proxy in front; a browser ignores HSTS over plain HTTP, so this is harmless
  // on a local start and right behind TLS. No preload: that is the operator's decision.
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  referrerPolicy: { policy: 'no-referrer' as const },
  // Coin icons (icon_url) are meant for partners' pages on other sites: an <img> there needs
  // cross-origin. API answers need a key in a header, which a no-cors load cannot send.
  crossOriginResourcePolicy: { policy: 'cross-origin' as const },
};

/**
 * The docs page alone also allows one inline style attribute that Swagger UI writes through
 * innerHTML, by its hash ('unsafe-hashes' admits that exact attribute text and nothing else).
 * A Swagger UI upgrade that changes it fails the browser test, whose message names the new hash.
 */
const DOCS_STYLE_HASHES = ["'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"];
const DOCS_OPTIONS: HelmetOptions = {
  ...OPTIONS,
  contentSecurityPolicy: {
    useDefaults: false as const,
    directives: { ...CONTENT_SECURITY_POLICY, 'style-src': ["'self'", "'unsafe-hashes'", ...DOCS_STYLE_HASHES] },
  },
};

/** Header name (lower case) and value, in the order helmet sets them. */
type HeaderList = readonly (readonly [string, string])[];

/**
 * The headers helmet's middleware sets for `options`, recorded once. Every value is a constant
 * of the options (no nonce, nothing from the request), so one recording serves every response;
 * @fastify/helmet instead built a helmet middleware from the options on every request, in two
 * hooks, one of them async (bench/README.md).
 */
function recordHeaders(options: HelmetOptions): HeaderList {
  const recorded = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      recorded.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader(name: string) {
      recorded.delete(name.toLowerCase());
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return Object.freeze([...recorded].map(([name, value]) => Object.freeze([name, value] as const)));
}

const HEADERS = recordHeaders(OPTIONS);
const DOCS_CSP = recordHeaders(DOCS_OPTIONS).find(([name]) => name === 'content-security-policy')?.[1];

function setAll(reply: FastifyReply, headers: HeaderList): void {
  for (const [name, value] of headers) reply.header(name, value);
}

/**
 * One onRequest hook for every response's fixed headers: the request id (X-Request-Id) and the
 * security headers. The docs pages' own CSP is a hook of those routes alone, so the shared hook
 * never has to look up which route it serves.
 */
export function installResponseHeaders(app: FastifyInstance): void {
  if (DOCS_CSP === undefined) throw new Error('helmet set no Content-Security-Policy for the docs pages');
  const docsPolicy: onRequestHookHandler = (_request, reply, done) => {
    reply.header('content-security-policy', DOCS_CSP);
    done();
  };
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) {
      route.onRequest = [...(route.onRequest === undefined ? [] : [route.onRequest].flat()), docsPolicy];
    }
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    setAll(reply, HEADERS);
    done();
  });
}

/** Sets the security headers on a reply that no onRequest hook saw (see error-handler.ts). */
export function applySecurityHeaders(reply: FastifyReply): void {
  setAll(reply, HEADERS);
}
