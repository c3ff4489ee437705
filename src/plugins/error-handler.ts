import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorItem } from '../errors.js';
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

/** The code of each error answer, for the request log (a WeakMap: nothing added to replies' shape). */
const errorCodes = new WeakMap<FastifyReply, ErrorCode>();

/** The `code` of the error this reply answered, if it was one. */
export function errorCodeOf(reply: FastifyReply): ErrorCode | undefined {
  return errorCodes.get(reply);
}

export function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extra?: Readonly<Record<string, unknown>>,
  /** Every problem found (docs/contract.md §10.4); one item of `code`, without a field, when not given. */
  errors?: readonly ErrorItem[],
): FastifyReply {
  const items = errors !== undefined && errors.length > 0 ? errors : [{ code, field: null, detail }];
  const body: ErrorBody = { detail, code, ...extra, errors: items };
  errorCodes.set(reply, code);
  // toJson: extra fields may hold exact decimals (the pair limits on an amount error).
  return reply.code(ERROR_STATUS[code]).type('application/json; charset=utf-8').send(toJson(body));
}

/**
 * The HTML page of an unknown path a site of pages owns (the cabinet: docs/contract.md §9.1), or
 * undefined: the API's JSON 404.
 */
export type NotFoundPages = (request: FastifyRequest) => string | undefined;

/**
 * The one place an error becomes a response: every layer (routing, parsing, validation, auth,
 * handlers, bugs) ends here, so every error is `{detail, code, errors}` and a 5xx never shows
 * internals.
 */
export function installErrorHandler(app: FastifyInstance, pages: NotFoundPages = () => undefined): void {
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const page = pages(request);
    if (page !== undefined) return reply.code(404).type('text/html; charset=utf-8').send(page);
    return sendError(reply, 'not_found', `no route ${request.method} ${routePath(request.url)}`);
  };
  app.setNotFoundHandler(notFound);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // No route took the request, but Fastify still parses its body on the way to the 404
    // handler: a bad body (400), a wrong content type (415) or a huge one (413) on a path that
    // does not exist is still "no such route", as docs/contract.md §3 says.
    if (request.is404 && !(error instanceof ApiError) && (error.statusCode ?? 500) < 500) return notFound(request, reply);
    if (error instanceof ApiError) {
      if (error.status >= 500) request.log.error({ err: error }, 'request failed');
      if (error.headers !== undefined) void reply.headers(error.headers);
      return sendError(reply, error.code, error.message, error.extra, error.errors);
    }
    if (error.validation !== undefined) {
      return sendError(reply, 'bad_request', validationDetail(error), undefined, validationItems(request, error));
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

type ValidationError = NonNullable<FastifyError['validation']>[number];

/** "body/amount_from must be > 0" rather than Ajv's terse wording without the location. */
function validationDetail(error: FastifyError): string {
  const first = error.validation?.[0];
  if (first === undefined) return error.message;
  return describeValidationError(error.validationContext ?? 'request', first);
}

function describeValidationError(context: string, failed: ValidationError): string {
  const where = `${context}${failed.instancePath}`;
  if (failed.keyword === 'additionalProperties') {
    const field = (failed.params as { additionalProperty?: string }).additionalProperty ?? '';
    return `${where} has unknown field "${field}"`;
  }
  if (failed.keyword === 'required') {
    const field = (failed.params as { missingProperty?: string }).missingProperty ?? '';
    return `${where} is missing required field "${field}"`;
  }
  if (failed.keyword === 'pattern') return `${where} has an invalid format`;
  return `${where} ${failed.message ?? 'is invalid'}`;
}

/**
 * The items of a schema validation's 400 (docs/contract.md §10.4): one per failed keyword, its field from
 * the instance path (the missing or unknown property for `required` and `additionalProperties`).
 * A union (`anyOf`) that fails is one item, worded as its first branch's failure (the detail v1.1
 * gave), not one per branch. A field the route's schema marks as an amount (`x-amount`,
 * routes/amount-input.ts) is `amount_invalid`; every other item is `bad_request`.
 */
function validationItems(request: FastifyRequest, error: FastifyError): ErrorItem[] {
  const context = error.validationContext ?? 'request';
  const failures = error.validation ?? [];
  const unions = failures.filter((failed) => failed.keyword === 'anyOf').map((failed) => failed.schemaPath);
  const reported = new Set<string>();
  const items: ErrorItem[] = [];
  for (const failed of failures) {
    const union = unions.find((path) => failed.schemaPath === path || failed.schemaPath.startsWith(`${path}/`));
    if (union !== undefined) {
      if (reported.has(union)) continue;
      reported.add(union);
    }
    const field = validationField(failed);
    const amount = field !== null && isAmountField(request, context, field);
    items.push({ code: amount ? 'amount_invalid' : 'bad_request', field, detail: describeValidationError(context, failed) });
  }
  return items;
}

/** `/a/b` as `a.b` (JSON pointer escapes undone), plus the property a keyword names; null for the whole part. */
function validationField(failed: ValidationError): string | null {
  const path = failed.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = failed.params as { missingProperty?: unknown; additionalProperty?: unknown };
  if (failed.keyword === 'required' && typeof params.missingProperty === 'string') path.push(params.missingProperty);
  if (failed.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') path.push(params.additionalProperty);
  return path.length === 0 ? null : path.join('.');
}

/** Whether the route's schema of `context` (body, querystring) marks the top-level property of `field` as an amount. */
function isAmountField(request: FastifyRequest, context: string, field: string): boolean {
  const schema = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[context] as
    | { properties?: Record<string, Record<string, unknown> | undefined> }
    | undefined;
  const property = schema?.properties?.[field.split('.')[0] ?? ''];
  return property?.['x-amount'] === true;
}
