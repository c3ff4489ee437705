import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ERROR_STATUS, type ErrorBody, type ErrorCode } from '../errors.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { toJson } from '../json.js';
import { applySecurityHeaders } from './security-headers.js';

/** Fastify's codes for a JSON body that cannot be parsed (empty, or not JSON). */
const JSON_BODY_ERRORS: ReadonlySet<string> = new Set(['FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY']);

/** Framework errors mapped to the closed code set; their messages are written for clients. */
const FRAMEWORK_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  503: 'unavailable',
};

export function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extra?: Readonly<Record<string, unknown>>,
): FastifyReply {
  const body: ErrorBody = { detail, code, ...extra };
  // toJson: extra fields may hold exact decimals (the pair limits on an amount error).
  return reply.code(ERROR_STATUS[code]).type('application/json; charset=utf-8').send(toJson(body));
}

/**
 * The one place an error becomes a response: every layer (routing, parsing, validation, auth,
 * handlers, bugs) ends here, so every error is `{detail, code}` and a 5xx never shows internals.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    sendError(reply, 'not_found', `no route ${request.method} ${routePath(request.url)}`);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // No route took the request, but Fastify still parses its body on the way to the 404
    // handler: a bad body (400), a wrong content type (415) or a huge one (413) on a path that
    // does not exist is still "no such route", as DESIGN §3 says.
    if (request.is404 && !(error instanceof ApiError) && (error.statusCode ?? 500) < 500) {
      return sendError(reply, 'not_found', `no route ${request.method} ${routePath(request.url)}`);
    }
    if (error instanceof ApiError) {
      if (error.status >= 500) request.log.error({ err: error }, 'request failed');
      if (error.headers !== undefined) void reply.headers(error.headers);
      return sendError(reply, error.code, error.message, error.extra);
    }
    if (error.validation !== undefined) {
      return sendError(reply, 'bad_request', validationDetail(error));
    }
    const status = error.statusCode ?? 500;
    // Fastify 5 wraps a parse failure in FST_ERR_CTP_INVALID_JSON_BODY (not a SyntaxError).
    if (status === 400 && (error instanceof SyntaxError || JSON_BODY_ERRORS.has(error.code))) {
      return sendError(reply, 'invalid_json', 'request body is not valid JSON');
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendError(reply, 'unavailable', 'service temporarily unavailable: try again shortly');
    }
    const code = status < 500 ? FRAMEWORK_CODES[status] : undefined;
    if (code !== undefined) return sendError(reply, code, error.message);
    request.log.error({ err: error }, 'unhandled error');
    if (status === 503) return sendError(reply, 'unavailable', 'service temporarily unavailable');
    return sendError(reply, 'internal', 'internal server error');
  });
}

/**
 * Fastify's `frameworkErrors`: a path that is not valid URL encoding (FST_ERR_BAD_URL) or with a
 * parameter longer than any id (FST_ERR_MAX_PARAM_LENGTH) fails routing, before any hook runs.
 * No resource has such a name: 404 with the usual body, instead of Fastify's own 400 and 414
 * bodies without `detail`.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // Routing failed before any onRequest hook ran, so the security headers are set here.
  applySecurityHeaders(reply);
  const reason = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is too long' : 'the path is not valid URL encoding';
  if (error.code !== 'FST_ERR_MAX_PARAM_LENGTH' && error.code !== 'FST_ERR_BAD_URL') {
    request.log.error({ err: error }, 'routing failed');
    sendError(reply, 'internal', 'internal server error');
    return;
  }
  sendError(reply, 'not_found', `no route ${request.method} for this path: ${reason}`);
}

/** The path of a request URL, without its query string. */
function routePath(url: string): string {
  return url.split('?')[0] ?? '';
}

/** "body/amount_from must be > 0" rather than Ajv's terse wording without the location. */
function validationDetail(error: FastifyError): string {
  const first = error.validation?.[0];
  if (first === undefined) return error.message;
  const where = `${error.validationContext ?? 'request'}${first.instancePath}`;
  if (first.keyword === 'additionalProperties') {
    const field = (first.params as { additionalProperty?: string }).additionalProperty ?? '';
    return `${where} has unknown field "${field}"`;
  }
  if (first.keyword === 'required') {
    const field = (first.params as { missingProperty?: string }).missingProperty ?? '';
    return `${where} is missing required field "${field}"`;
  }
  if (first.keyword === 'pattern') return `${where} has an invalid format`;
  return `${where} ${first.message ?? 'is invalid'}`;
}
