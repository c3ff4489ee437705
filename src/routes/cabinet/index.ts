import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { findUnstorableText } from '../../domain/storable-text.js';
import { WorkGateFull } from '../../services/work-gate.js';
import type { OpenApiDocuments } from '../../plugins/openapi.js';
import { registerCabinetAccount } from './account.js';
import { registerCabinetApiReference } from './api-reference.js';
import { registerCabinetAssets } from './assets.js';
import { registerCabinetInvitation } from './invitation.js';
import { registerCabinetKeys } from './keys.js';
import { errorPage, notFoundPage } from './layout.js';
import { registerCabinetLogin } from './login.js';
import { registerCabinetMode } from './mode.js';
import { registerCabinetOrderDetail } from './order-detail.js';
import { registerCabinetOrders } from './orders.js';
import { registerCabinetOverview } from './overview.js';
import { registerCabinetPasswordReset } from './password-reset.js';
import { registerCabinetSettings } from './settings.js';
import { registerCabinetTeam } from './team.js';
import { registerCabinetRequests } from './requests.js';
import { registerCabinetPayouts } from './payouts.js';
import { CabinetSessions } from './session.js';
import { registerCabinetWebhooks } from './webhooks.js';

/** Failed sign-ins allowed per client address, and per account, per minute (then 429 until the minute ends). */
export const CABINET_SIGN_IN_FAILURES_PER_ADDRESS = 20;
export const CABINET_SIGN_IN_FAILURES_PER_ACCOUNT = 5;
/**
 * Password reset requests ("Forgot password") allowed per client address, and per email typed,
 * per minute: each sends mail, so a person's mailbox cannot be flooded and the outbox filled.
 */
export const CABINET_RESET_REQUESTS_PER_ADDRESS = 10;
export const CABINET_RESET_REQUESTS_PER_ACCOUNT = 3;

/** The page of an unknown path under /cabinet (the app's not-found handler asks), else undefined. */
export function cabinetNotFound(request: FastifyRequest): string | undefined {
  const path = request.url.split('?')[0] ?? '';
  return path === '/cabinet' || path.startsWith('/cabinet/') ? notFoundPage() : undefined;
}

/** The status and page of an error thrown on a cabinet route. */
function errorAnswer(error: FastifyError, request: FastifyRequest): [number, string] {
  // The password work of this process is full (src/services/cabinet-passwords.ts).
  if (error instanceof WorkGateFull) return [429, errorPage('Busy', 'Too many passwords are being checked right now. Wait a second, then try again.')];
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return [503, errorPage('Unavailable', 'The cabinet cannot reach its database just now. Try again in a minute.')];
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return [413, errorPage('Form too large', 'This form sent more than the cabinet accepts. Go back, shorten what you typed and try again.')];
  if (status >= 400 && status < 500) return [status, errorPage('Request not accepted', 'The cabinet could not read this request. Go back, reload the page and try again.')];
  request.log.error({ err: error }, 'unhandled error');
  return [500, errorPage('Something went wrong', 'The cabinet could not finish this. Nothing you see may have changed: reload the page to check, and try again.')];
}

/** A form post's largest body: a few short fields. */
const FORM_BODY_LIMIT = 8 * 1024;

/**
 * The partner cabinet under /cabinet (docs/contract.md §9): server-rendered pages for partners'
 * people, in an encapsulated context of its own (cookies and form bodies are parsed here only;
 * the API stays JSON-only). Every route is hidden from the OpenAPI documents: they are pages,
 * not API. One file per page; README.md says how a page is built.
 */
export async function registerCabinet(app: App, services: Services, documents: Pick<OpenApiDocuments, 'partner'>): Promise<void> {
  await app.register(async (cabinet: App) => {
    await cabinet.register(fastifyCookie);
    await cabinet.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
    // No page of a signed-in person is kept by a browser or a proxy (ASVS 8.2.1).
    cabinet.addHook('onSend', (request, reply, payload, done) => {
      if (!request.url.startsWith('/cabinet/assets/')) reply.header('cache-control', 'no-store');
      done(null, payload);
    });
    // Every error under /cabinet is a page of the cabinet (docs/contract.md §9.1), never the API's JSON.
    cabinet.setErrorHandler((error: FastifyError, request, reply) => {
      const [status, body] = errorAnswer(error, request);
      if (error instanceof WorkGateFull) void reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.code(status).type('text/html; charset=utf-8').send(body);
    });
    // A form field or query value no column can hold (NUL, other control characters, unpaired
    // surrogates: domain/storable-text.ts) is a 400 page here, before any page reads it; it was
    // a failed query (500) where it reached the database.
    cabinet.addHook('preValidation', async (request, reply) => {
      const at = findUnstorableText(request.query) ?? findUnstorableText(request.body);
      if (at === undefined) return;
      const field = at.split('/')[1] ?? 'form';
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(errorPage('Form not accepted', `The field “${field}” holds a character that cannot be stored (a control character such as NUL, or a broken one). Go back, remove it and try again.`));
    });
    const sessions = new CabinetSessions(services.cabinet, services.config.cabinet.publicUrl);
    registerCabinetAssets(cabinet);
    registerCabinetLogin(cabinet, services, sessions);
    registerCabinetInvitation(cabinet, services, sessions);
    registerCabinetPasswordReset(cabinet, services, sessions);
    registerCabinetAccount(cabinet, services, sessions);
    registerCabinetMode(cabinet, sessions);
    registerCabinetOverview(cabinet, services, sessions);
    registerCabinetOrders(cabinet, services, sessions);
    registerCabinetOrderDetail(cabinet, services, sessions);
    registerCabinetKeys(cabinet, services, sessions);
    registerCabinetWebhooks(cabinet, services, sessions);
    registerCabinetSettings(cabinet, services, sessions);
    registerCabinetTeam(cabinet, services, sessions);
    registerCabinetRequests(cabinet, services, sessions);
    registerCabinetPayouts(cabinet, services, sessions);
    registerCabinetApiReference(cabinet, documents);
  });
}
