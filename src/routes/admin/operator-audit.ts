import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app-types.js';
import { UUID_PATTERN } from '../../domain/short-id.js';
import type { AuditedObject, OperatorAuditLog } from '../../services/operator-audit-log.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the operator guard let in (plugins/admin-auth.ts): the audit log's actor. */
    operatorActor?: string;
    /** The audited target as it was before the handler ran (operator-audit.ts). */
    auditBefore?: unknown;
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Body and answer fields never written to the log: credentials and one-use links. */
const SECRET_FIELD = /secret|password|passphrase|token|api_key|^url$|link|code/i;

type Params = Record<string, string>;

/**
 * The operator audit log (docs/contract.md §12): every POST, PUT, PATCH and DELETE under the operator guard
 * writes one entry once answered — who (the guard's actor), what (method and route), on what
 * (the route's path up to its last parameter, e.g. `orders/<id>`), the target before and after
 * where readAuditTarget reads one, the status (a refused action is an action), when and from where. A
 * request the guard refused has no actor and is not an action (the guard logs it). The entry is
 * written as the answer is sent (onSend, awaited): an answered action is in the log by the time
 * its answer arrives; a write that fails is logged as an error and the answer still goes.
 */
export function installOperatorAudit(admin: App, audit: OperatorAuditLog): void {
  admin.addHook('preHandler', async (request) => {
    if (!MUTATING.has(request.method) || request.operatorActor === undefined) return;
    request.auditBefore = await loadTarget(request, audit);
  });
  admin.addHook('onSend', async (request, reply, payload) => {
    if (!MUTATING.has(request.method) || request.operatorActor === undefined) return payload;
    await record(request, reply, payload, audit).catch((error: unknown) => {
      // The message and code only: the query's parameters hold what the operator sent.
      const { message, code } = error as { message?: string; code?: string };
      request.log.error({ err: { message, code } }, 'operator audit entry not written');
    });
    return payload;
  });
}

async function record(request: FastifyRequest, reply: FastifyReply, payload: unknown, audit: OperatorAuditLog): Promise<void> {
  const route = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
  const params = (request.params ?? {}) as Params;
  let target = targetOf(route, params);
  // A refused action changed nothing (`before` holds the state): what it asked for is what is worth keeping.
  let after = reply.statusCode >= 400 ? undefined : await loadTarget(request, audit);
  if (after === undefined) {
    const answer = parseJson(payload);
    const created = request.method === 'POST' && Object.keys(params).length === 0 && reply.statusCode === 201 ? answer : undefined;
    const id = created !== null && typeof created === 'object' ? (created as { id?: unknown }).id : undefined;
    // A create names what it made: `currencies/<id>`, `partners/<id>`.
    if (typeof id === 'string' && target !== null) target = `${target}/${id}`;
    after = created ?? request.body;
  }
  await audit.record({
    actor: request.operatorActor ?? 'unknown',
    action: `${request.method} ${route}`,
    target,
    before: storable(redact(request.auditBefore)),
    after: storable(redact(after)),
    status: reply.statusCode,
    ip: request.ip,
  });
}

/** Objects read whatever the route's parameters: their state is one for the whole exchange. */
const WHOLE_STATE = new Set<AuditedObject>(['signer']);

/**
 * The target as the route's loader reads it now; undefined when the route has none. `route`: the
 * /admin/v1 route whose object it is (the console's actions name theirs: console/index.ts).
 */
export async function loadTarget(request: FastifyRequest, audit: Pick<OperatorAuditLog, 'objectOf' | 'target'>, route = request.routeOptions.url ?? ''): Promise<unknown> {
  const object = audit.objectOf(route);
  const params = (request.params ?? {}) as Params;
  if (object === undefined || (Object.keys(params).length === 0 && !WHOLE_STATE.has(object))) return undefined;
  // A malformed id (not a uuid where one is stored) reads nothing rather than failing the query.
  if ((params.id !== undefined && !UUID_PATTERN.test(params.id)) || (params.person_id !== undefined && !UUID_PATTERN.test(params.person_id))) return null;
  try {
    return (await audit.target(object, params)) ?? null;
  } catch (error) {
    request.log.warn({ err: error }, 'operator audit could not read the target');
    return null;
  }
}

/** `/admin/v1/orders/:id/refund` with {id} → `orders/<id>`; without parameters, the first segment. */
function targetOf(route: string, params: Params): string | null {
  const segments = route.split('/').slice(3);
  if (segments.length === 0) return null;
  const lastParam = segments.reduce((last, segment, index) => (segment.startsWith(':') ? index : last), -1);
  if (lastParam === -1) return segments[0] ?? null;
  return segments
    .slice(0, lastParam + 1)
    .map((segment) => (segment.startsWith(':') ? (params[segment.slice(1)] ?? segment) : segment))
    .join('/');
}

function parseJson(payload: unknown): unknown {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The most of a logged value kept, as JSON text: a body larger than this is noted, not kept. */
const MAX_LOGGED_CHARS = 16_384;

/** A value as the log keeps it: credentials redacted, unstorable characters replaced, at most MAX_LOGGED_CHARS. */
export function loggedValue(value: unknown): unknown {
  return storable(redact(value));
}

/** At most MAX_LOGGED_CHARS of JSON text (redact has made it storable). */
function storable(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const text = JSON.stringify(value);
  if (text.length > MAX_LOGGED_CHARS) return { omitted: `${text.length} characters, more than the log keeps` };
  return JSON.parse(text) as unknown;
}

/** NUL and lone surrogates, which jsonb refuses: a refused request may carry them, and is logged all the same. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const clean = (text: string): string => text.split('\u0000').join('\uFFFD').replace(LONE_SURROGATE, '\uFFFD');

/** A copy with credential-like fields replaced and unstorable characters too, however deep. */
function redact(value: unknown): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value ?? null;
  if (Buffer.isBuffer(value)) return '[bytes]';
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [clean(key), SECRET_FIELD.test(key) ? '[redacted]' : redact(inner)]));
}
