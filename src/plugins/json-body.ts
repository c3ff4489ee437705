import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
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
 * Deepest nesting of arrays and objects a body may have; deeper is malformed JSON (400). No
 * body the API reads nests past 3; 64 KiB of `[` parse fine, but every writer that walks a
 * value recursively (the JSON writer, the audit log's view of what was asked) then overflows
 * its stack: the fuzz found the audit list answering 500 after such a body was recorded.
 */
export const BODY_MAX_DEPTH = 32;

/** Whether `text` nests arrays and objects deeper than `max` (strings skipped, escapes too). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

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
      const text = body.toString('utf8');
      if (nestsDeeperThan(text, BODY_MAX_DEPTH)) {
        // Fastify's own parse failure: answered as every malformed body is (400 invalid_json,
        // or 404 where no route is: plugins/error-handler.ts).
        done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
        return;
      }
      void parseJson(request, text, done);
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
