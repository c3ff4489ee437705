import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request body bytes, kept for X-Signature verification. Empty when none. */
    rawBody?: Buffer;
  }
}

/** Largest accepted request body; a larger one is answered 413. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * JSON is the only request body the API accepts (others are 415). The parser keeps the raw
 * bytes because X-Signature is an HMAC over exactly what was sent, and parses with Fastify's
 * own prototype-poisoning-safe parser.
 */
export function installJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES },
    (request, body: Buffer, done) => {
      request.rawBody = body;
      void parseJson(request, body.toString('utf8'), done);
    },
  );
}
