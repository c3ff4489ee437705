import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse } from 'lossless-json';
import { ApiError } from '../errors.js';

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

const exactBodies = new WeakMap<FastifyRequest, Readonly<Record<string, unknown>>>();

/**
 * The body with its number literals as written (lossless-json's LosslessNumber): JSON.parse has
 * already made each a binary float, so an amount sent as a number is read again from the raw
 * bytes. Parsed at most once per request, and only for the routes that read amounts
 * (routes/amount-input.ts), so no other request pays for it.
 */
export function exactBody(request: FastifyRequest): Readonly<Record<string, unknown>> {
  let body = exactBodies.get(request);
  if (body === undefined) {
    try {
      const parsed: unknown = parse(request.rawBody?.toString('utf8') ?? '');
      body = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch (error) {
      // JSON.parse accepted the body, so this is a field sent twice with different values
      // (JSON.parse keeps the last, lossless-json refuses): ambiguous, so refused.
      throw new ApiError('bad_request', `request body is ambiguous: ${error instanceof Error ? error.message : 'unreadable'}`);
    }
    exactBodies.set(request, body);
  }
  return body;
}
