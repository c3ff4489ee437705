import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';

/**
 * Security headers on every response (issue 12), through @fastify/helmet: CSP, HSTS,
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

const OPTIONS = {
  contentSecurityPolicy: { useDefaults: false as const, directives: { ...CONTENT_SECURITY_POLICY } },
  // TLS ends at the proxy in front; a browser ignores HSTS over plain HTTP, so this is harmless
  // on a local start and right behind TLS. No preload: that is the operator's decision.
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  referrerPolicy: { policy: 'no-referrer' as const },
  // Coin icons (icon_url) are meant for partners' pages on other sites: an <img> there needs
  // cross-origin. API answers need a key in a header, which a no-cors load cannot send.
  crossOriginResourcePolicy: { policy: 'cross-origin' as const },
};

/** The same headers applied directly: for answers given before any hook runs (framework errors). */
const applyDirectly = helmet(OPTIONS);

/**
 * The docs page alone also allows one inline style attribute that Swagger UI writes through
 * innerHTML, by its hash ('unsafe-hashes' admits that exact attribute text and nothing else).
 * A Swagger UI upgrade that changes it fails the browser test, whose message names the new hash.
 */
const DOCS_STYLE_HASHES = ["'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"];
const DOCS_OPTIONS = {
  contentSecurityPolicy: {
    useDefaults: false as const,
    directives: { ...CONTENT_SECURITY_POLICY, 'style-src': ["'self'", "'unsafe-hashes'", ...DOCS_STYLE_HASHES] },
  },
};

export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  // Before the helmet plugin, so the docs routes carry their policy when helmet sees them.
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.helmet = DOCS_OPTIONS;
  });
  await app.register(fastifyHelmet, { ...OPTIONS, global: true });
}

/** Sets the security headers on a reply that no onRequest hook saw (see error-handler.ts). */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  applyDirectly(request.raw, reply.raw, () => undefined);
}
