import { AssertionError } from 'node:assert';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../src/app-types.js';
import { isOperatorPath } from '../../src/surfaces.js';

/**
 * Every response a test app sends, and the check that each one is what the OpenAPI document the
 * app serves says: the partner document (GET /api/v1/openapi.json) for the partner surface, the
 * operator one (GET /admin/v1/openapi.json) for the operator API and /metrics (src/surfaces.ts): the status is documented for the route, the content
 * type is one the document gives for that status, and a JSON body is valid against its schema.
 * The direct JSON writers (toJson, orderJson) bypass Fastify's serializer, so without this
 * nothing would hold their output to the schemas. `close()` of the test app runs the check, as it
 * runs the no-secrets-in-logs one.
 *
 * Not checked, each for its reason:
 * - routes hidden from the document (`schema.hide`: the document itself, the docs UI, coin
 *   icons): they are not part of the API the document describes;
 * - routes a test adds (TestAppOptions.configure) without any response schema: they document
 *   nothing, they exist to provoke the app (a handler that throws). A test route that does
 *   declare responses is held to them like any other.
 * A request no route took is the framework's: its answer must be the 404 `Error` envelope
 * (docs/contract.md §3), or the 429 of the rate limit, which runs before routing; under /cabinet it is
 * the cabinet's HTML page, not recorded.
 */

interface Recorded {
  method: string;
  /** The route's pattern (`/api/v1/partner/orders/:order_id`); undefined when no route took it. */
  route: string | undefined;
  status: number;
  /** The media type, without parameters (`application/json`); undefined when not set. */
  mediaType: string | undefined;
  /** Undefined for a streamed body (read by nobody here: only hidden routes stream). */
  body: string | undefined;
}

/** The app's two documents as served: the partner one and the operator one. */
export interface ServedDocuments {
  partner: unknown;
  operator: unknown;
}

/** Responses a request no route took may have (see above). */
const UNROUTED_STATUSES: ReadonlySet<number> = new Set([404, 429]);

/** How much a failure shows: lines, and characters of a body. */
const MAX_FAILURES_SHOWN = 10;
const BODY_SHOWN = 300;

interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
}
interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}

export class ResponseRecorder {
  /** Identical responses are kept and checked once: a fuzzing run repeats many. */
  private readonly responses = new Map<string, Recorded>();
  /** Routes a test added that declare no response: `METHOD pattern`. */
  private readonly unchecked = new Set<string>();

  get size(): number {
    return this.responses.size;
  }

  /**
   * Records every response of `app` (an onSend hook, which sees the routes registered before
   * and after it). `configure` runs between: the routes it adds are a test's own.
   */
  install(app: App, configure?: (app: App) => void): void {
    app.addHook('onSend', (request, reply, payload, done) => {
      this.record(request, reply, payload);
      done(null, payload);
    });
    let testRoutes = false;
    app.addHook('onRoute', (route) => {
      if (!testRoutes || route.schema?.response !== undefined) return;
      for (const method of [route.method].flat()) this.unchecked.add(`${method} ${route.url}`);
    });
    testRoutes = true;
    configure?.(app);
    testRoutes = false;
  }

  private record(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const route = request.routeOptions.url;
    // An unknown path under /cabinet (or /console) is a page of the cabinet (docs/contract.md §9.1) or the
    // console, hidden from the documents as their routes are.
    if (route === undefined && /^\/(cabinet|console)(?:[/?]|$)/.test(request.url)) return;
    if (route !== undefined) {
      if (request.routeOptions.schema?.hide === true) return;
      if (this.unchecked.has(`${request.method} ${route}`)) return;
    }
    const status = reply.statusCode;
    const contentType = reply.getHeader('content-type');
    // Fastify sends a 1xx or 204 without body or content type, whatever onSend holds; Node.js
    // sends a 304 without body.
    const bodyless = status < 200 || status === 204 || status === 304;
    const entry: Recorded = {
      method: request.method,
      route,
      status,
      mediaType: bodyless || typeof contentType !== 'string' ? undefined : (contentType.split(';')[0] ?? '').trim().toLowerCase(),
      body: bodyless || payload == null ? '' : typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined,
    };
    const key = JSON.stringify(entry);
    if (!this.responses.has(key)) this.responses.set(key, entry);
  }

  /** Forgets what was recorded (a test that breaks a schema on purpose, once it has shown so). */
  clear(): void {
    this.responses.clear();
  }

  /**
   * What does not match `documents` (the app's served OpenAPI documents), one line per route,
   * status and reason, with one of the bodies and how many responses had it.
   */
  mismatches(documents: ServedDocuments): string[] {
    const partner = validatorsFor(documents.partner);
    const operator = validatorsFor(documents.operator);
    const failures = new Map<string, { body: string | undefined; count: number }>();
    for (const response of this.responses.values()) {
      const operatorRoute = response.route !== undefined && isOperatorPath(response.route);
      const failure = check(response, operatorRoute ? operator : partner);
      if (failure === undefined) continue;
      const seen = failures.get(failure);
      if (seen === undefined) failures.set(failure, { body: response.body, count: 1 });
      else seen.count += 1;
    }
    return [...failures].map(([failure, { body, count }]) =>
      `${failure}${count > 1 ? ` (${count} responses)` : ''}${body ? `; body: ${body.slice(0, BODY_SHOWN)}` : ''}`,
    );
  }

  assertMatch(documents: ServedDocuments): void {
    const failures = this.mismatches(documents);
    if (failures.length === 0) return;
    const shown = failures.slice(0, MAX_FAILURES_SHOWN).map((line) => `  ${line}`);
    if (failures.length > shown.length) shown.push(`  … and ${failures.length - shown.length} more`);
    throw new AssertionError({
      message: `${failures.length} response(s) do not match the served OpenAPI documents (GET /api/v1/openapi.json, /admin/v1/openapi.json):\n${shown.join('\n')}`,
    });
  }
}

/** The document, and Ajv validators of its schemas compiled on first use. */
class DocumentValidators {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    // OpenAPI 3.1 schemas are JSON Schema; the document's other keywords are not schema.
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    (formats as unknown as { default: (ajv: Ajv) => void }).default(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  /** The validator of the schema at `pointer` (a JSON pointer into the document). */
  validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${encodeURI(pointer)}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}

const DOCUMENT_ID = 'openapi.json';

/** By document text: the apps of one test file serve the same document. */
const validatorCache = new Map<string, DocumentValidators>();

function validatorsFor(document: unknown): DocumentValidators {
  const text = JSON.stringify(document);
  let validators = validatorCache.get(text);
  if (validators === undefined) {
    validators = new DocumentValidators(JSON.parse(text) as OpenApiDocument);
    validatorCache.set(text, validators);
  }
  return validators;
}

/** `/orders/:order_id` → `/orders/{order_id}`, as @fastify/swagger writes paths. */
function documentPath(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pointerPart(part: string): string {
  return part.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A failure line for `response`, or undefined when it matches the document. */
function check(response: Recorded, validators: DocumentValidators): string | undefined {
  const { method, route, status } = response;
  const label = `${method} ${route ?? '(no route)'} → ${status}${response.mediaType === undefined ? '' : ` ${response.mediaType}`}`;
  const fail = (why: string) => `${label}: ${why}`;

  if (route === undefined) {
    if (!UNROUTED_STATUSES.has(status)) return fail('a request no route took may only be 404 or 429');
    return method === 'HEAD' ? undefined : checkBody(response, validators, ERROR_SCHEMA, fail);
  }
  // HEAD is answered by the GET route, without a body.
  const operationMethod = method === 'HEAD' ? 'get' : method.toLowerCase();
  const path = documentPath(route);
  const operation = validators.document.paths?.[path]?.[operationMethod];
  if (operation === undefined) return fail(`${operationMethod.toUpperCase()} ${path} is not in the document`);
  const responses = operation.responses ?? {};
  const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find((key) => responses[key] !== undefined);
  if (statusKey === undefined) {
    return fail(`status ${status} is not documented (documented: ${Object.keys(responses).join(', ') || 'none'})`);
  }
  if (method === 'HEAD') return undefined;
  const content = responses[statusKey]?.content;
  if (content === undefined || Object.keys(content).length === 0) {
    return response.body === '' ? undefined : fail(`the document gives no content for ${statusKey}, yet there is a body`);
  }
  if (response.mediaType === undefined || content[response.mediaType] === undefined) {
    return fail(`content type ${response.mediaType ?? '(none)'} is not documented for ${statusKey} (documented: ${Object.keys(content).join(', ')})`);
  }
  if (content[response.mediaType]?.schema === undefined) return undefined;
  const pointer = ['', 'paths', path, operationMethod, 'responses', statusKey, 'content', response.mediaType, 'schema']
    .map(pointerPart)
    .join('/');
  return checkBody(response, validators, pointer, fail);
}

const ERROR_SCHEMA = '/components/schemas/Error';

function checkBody(
  response: Recorded,
  validators: DocumentValidators,
  pointer: string,
  fail: (why: string) => string,
): string | undefined {
  if (response.body === undefined) return undefined;
  const json = response.mediaType === 'application/json' || response.mediaType?.endsWith('+json') === true;
  // A JSON body is checked as the value it holds; any other (text/plain) as its text.
  let body: unknown = response.body;
  if (json) {
    try {
      body = JSON.parse(response.body);
    } catch {
      return fail('the body is not JSON');
    }
  } else if (pointer === ERROR_SCHEMA) {
    return fail(`expected the JSON Error envelope, got ${response.mediaType ?? 'no content type'}`);
  }
  const validate = validators.validator(pointer);
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? [])
    .slice(0, 3)
    .map((error) => `body${error.instancePath} ${error.message ?? 'is invalid'} (${error.schemaPath})`)
    .join('; ');
  return fail(`does not match #${pointer}: ${errors}`);
}
