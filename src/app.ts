import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { App, Services } from './app-types.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { loggerOptions, type LogDestination } from './logger.js';
import { stopTracing, tracingEnabled } from './tracing/tracing.js';
import { frameworkErrorHandler, installErrorHandler } from './plugins/error-handler.js';
import { BODY_LIMIT_BYTES, installJsonBody } from './plugins/json-body.js';
import { createMetrics } from './metrics.js';
import { installRequestMetrics } from './plugins/metrics.js';
import { installRequestLog } from './plugins/request-log.js';
import { Drain, installDrain } from './plugins/drain.js';
import { installOpenApi } from './plugins/openapi.js';
import { installCallerIdentification, partnerAuthHooks } from './plugins/partner-auth.js';
import { createRateLimits } from './plugins/rate-limit.js';
import { installCors } from './plugins/cors.js';
import { CorsOrigins } from './services/cors-origins.js';
import { sharedSerializerFactory } from './plugins/serialization.js';
import { installValidators } from './plugins/validation.js';
import { registerAdminRoutes } from './routes/admin/index.js';
import { registerHealth } from './routes/ops/health.js';
import { registerMetricsEndpoint } from './routes/ops/metrics.js';
import { CurrencySchema } from './routes/schemas.js';
import { registerStaticIcons } from './routes/static-icons.js';
import { registerStatusPage } from './routes/status-page/index.js';
import { registerV1Routes } from './routes/v1/index.js';
import { OrderSchema } from './routes/v1/order-view.js';
import { PublicOrderSchema } from './views/public-order-view.js';
import { lazyChildLoggerFactory } from './request-logger.js';
import { createRuntime, type Runtime } from './runtime.js';
import { redisTarget } from './infrastructure/redis-client.js';
import { createSignatureNonces } from './services/signature-nonces.js';
import { installSurfaceSplit } from './operator-listener.js';
import { installResponseHeaders } from './plugins/security-headers.js';
import { CABINET_RESET_REQUESTS_PER_ACCOUNT, CABINET_RESET_REQUESTS_PER_ADDRESS, CABINET_SIGN_IN_FAILURES_PER_ACCOUNT, CABINET_SIGN_IN_FAILURES_PER_ADDRESS, cabinetNotFound, registerCabinet } from './routes/cabinet/index.js';
import { cabinetAccountServices } from './services/cabinet-accounts.js';
import { CabinetMail } from './services/cabinet-mail.js';
import { CabinetTeam } from './services/cabinet-team.js';
import { PartnerPayoutAddresses } from './services/partner-payout-addresses.js';
import { operatorAccountServices } from './services/operator-people.js';
import { relyingPartyOf } from './services/operator-security-keys.js';
import { consoleNotFound, registerConsole } from './routes/console/index.js';
import { arrivedOnOperatorListener } from './operator-listener.js';
import { Readiness } from './services/readiness.js';
import { SecretBox } from './infrastructure/secret-box.js';

declare module 'fastify' {
  interface FastifyInstance {
    runtime: Runtime;
    /** The graceful stop's first phase (src/plugins/drain.ts); src/server.ts begins it. */
    drain: Drain;
  }
}
import { AdminCurrency } from './routes/admin/currency-view.js';
import { CabinetPerson, KeyListing, Partner } from './routes/admin/admin-schemas.js';
import { installWriteMarks } from './plugins/write-marks.js';
import { WEBHOOK_SCHEMAS } from './routes/webhook-views.js';
import { RequestIds } from './request-id.js';

export interface AppDeps {
  /** Fully resolved: secretsKey and adminToken set (see embedded-secrets.ts). */
  config: Config;
  /** Migrated and owned by the caller, which closes it after the app. */
  database: DatabaseHandle;
  clock?: Clock;
  /** Where log lines go (tests capture them); stdout by default. */
  logDestination?: LogDestination;
}

/** A hop count means: trust that many proxies nearest to us (Fastify's typings lack the number form). */
function trustProxyOption(value: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

/** A client-sent request id is kept when it is short and plain; otherwise one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  const clock = deps.clock ?? systemClock;
  if (config.secretsKey === undefined) throw new Error('SECRETS_KEY must be resolved before building the app');

  const logger: FastifyBaseLogger = pino(loggerOptions(config.logLevel), deps.logDestination ?? pino.destination(1));
  const requestIds = new RequestIds();
  const app: App = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(config.trustProxy),
    requestIdHeader: false,
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : requestIds.id();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
    // LOG_REQUESTS=false: no 'incoming request' / 'request completed' lines (bench/README.md).
    logController: config.logRequests ? undefined : new LogController({ disableRequestLogging: true }),
    frameworkErrors: frameworkErrorHandler,
    childLoggerFactory: lazyChildLoggerFactory,
    // Response serializers compiled once per process, whatever number of apps it builds.
    schemaController: { compilersFactory: { buildSerializer: sharedSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Tracing on (src/tracing): every request a span, its hooks and handler inside it, the incoming
  // traceparent continued; registered before any route so it wraps them all. Off: not installed.
  if (tracingEnabled()) {
    const probes = new Set(['/healthz', '/readyz', '/metrics']);
    // A span per request, not per hook (eleven hooks would be eleven spans each); probes untraced.
    // Loaded here, only when on: @fastify/otel brings OpenTelemetry's instrumentation package.
    const { FastifyOtelInstrumentation } = await import('@fastify/otel');
    const instrumentation = new FastifyOtelInstrumentation({ registerOnInitialization: false, instrumentHooks: false, ignorePaths: ({ url }) => probes.has(url) });
    await app.register(instrumentation.plugin());
    app.addHook('onClose', stopTracing);
  }
  // ADMIN_PORT: each route answers on its surface's listener only (before any route is added).
  installSurfaceSplit(app, config.operator);
  // X-Request-Id and the security headers on every response, the docs page's included, in one
  // hook (src/plugins/security-headers.ts).
  installResponseHeaders(app);
  const metrics = createMetrics();
  const runtime = await createRuntime({ config, database, clock, logger, metrics });
  app.addHook('onClose', () => runtime.close());
  // Tests and operator tooling reach the worker and services through the app.
  app.decorate('runtime', runtime);
  if (config.lifecycle.workerInProcess) {
    runtime.worker.start();
    runtime.webhookWorker.start();
    runtime.mailWorker.start();
  }
  const { apiKeys } = runtime;
  const redis = redisTarget(config);
  const rateLimits = createRateLimits(app, { redis, redisTimeoutMs: config.rateLimitRedisTimeoutMs, clock, metrics, partnerKeysBudget: config.limits.partnerKeysBudget });
  // Replay-proof signing (docs/contract.md §7.7): accepted signatures, shared by every process.
  const signatureNonces = createSignatureNonces({ redis, redisTimeoutMs: config.signatureNonceRedisTimeoutMs, databaseUrl: config.databaseUrl, db: database.db, clock, log: logger });
  app.addHook('onReady', () => signatureNonces.connected(1000));
  app.addHook('onReady', () => runtime.reads.connected(1000));
  app.addHook('onClose', () => signatureNonces.close());
  const drain = new Drain();
  app.decorate('drain', drain);
  installDrain(app, drain);
  // A status stream would hold its connection through the whole stop: it ends, and its reader
  // reconnects (to a process still serving) with Last-Event-ID, missing nothing.
  drain.onBegin(() => runtime.orderStreams.endAll());
  // And before the listener closes, which waits for every open response.
  app.addHook('preClose', (done) => {
    runtime.orderStreams.endAll();
    done();
  });
  const cabinetAccounts = cabinetAccountServices(database.db, clock, new SecretBox(config.secretsKey), config.secretsKey);
  const cabinetMail = new CabinetMail(database.db, clock, runtime.mailer);
  const services: Services = {
    config,
    drain,
    database,
    clock,
    metrics,
    partnerAuth: partnerAuthHooks(apiKeys, { nonces: signatureNonces, clock }),
    adminAuthAttempts: rateLimits.attempts('admin-auth', config.limits.adminAuthFailuresPerMinute),
    readiness: new Readiness({ database, chainRpcUrls: config.chainRpcUrls, signerChains: config.payoutSignerChains, clock, pingRedis: rateLimits.pingStore }),
    payoutAddresses: new PartnerPayoutAddresses(database.db, clock, runtime.catalog, cabinetAccounts.twoFactor, runtime.mailer),
    cabinet: {
      ...cabinetAccounts,
      team: new CabinetTeam(database.db, clock, new SecretBox(config.secretsKey), cabinetMail),
      signInPerAddress: rateLimits.attempts('cabinet-sign-in-address', CABINET_SIGN_IN_FAILURES_PER_ADDRESS),
      signInPerAccount: rateLimits.attempts('cabinet-sign-in-account', CABINET_SIGN_IN_FAILURES_PER_ACCOUNT),
      mail: cabinetMail,
      resetPerAddress: rateLimits.attempts('cabinet-reset-address', CABINET_RESET_REQUESTS_PER_ADDRESS),
      resetPerAccount: rateLimits.attempts('cabinet-reset-account', CABINET_RESET_REQUESTS_PER_ACCOUNT),
      partnerBudget: (partnerId, perKeyLimit) => rateLimits.partnerRequest(partnerId, perKeyLimit),
    },
    operators: {
      ...operatorAccountServices(database.db, clock, new SecretBox(config.secretsKey), config.secretsKey, relyingPartyOf(config.cabinet.publicUrl)),
      signInPerAddress: rateLimits.attempts('console-sign-in-address', CABINET_SIGN_IN_FAILURES_PER_ADDRESS),
      signInPerAccount: rateLimits.attempts('console-sign-in-account', CABINET_SIGN_IN_FAILURES_PER_ACCOUNT),
    },
    ...runtime,
  };

  installValidators(app);
  installJsonBody(app);
  // An unknown /console path is a console page where the console is served: with ADMIN_PORT, on
  // the operator listener only (the public port's 404 says nothing of an operator console).
  installErrorHandler(app, (request) =>
    cabinetNotFound(request) ?? (config.operator.listener === undefined || arrivedOnOperatorListener(request.raw) ? consoleNotFound(request) : undefined),
  );
  installRequestMetrics(app, metrics);
  installRequestLog(app, runtime.requestLog);
  installWriteMarks(app, runtime.reads);
  // The caller is identified first (its key decides the bucket), then counted.
  installCallerIdentification(app, apiKeys, rateLimits);
  // CORS headers go on before the rate limiter answers, so a page can read its 429 too.
  const cors = installCors(app, new CorsOrigins(database.db, clock));
  rateLimits.install();
  const openApiDocuments = await installOpenApi(app);
  for (const schema of [CurrencySchema, OrderSchema, PublicOrderSchema, Partner, KeyListing, CabinetPerson, AdminCurrency]) app.addSchema(schema);
  for (const schema of WEBHOOK_SCHEMAS) app.addSchema(schema);

  registerV1Routes(app, services);
  await registerAdminRoutes(app, services, openApiDocuments);
  registerHealth(app, services);
  registerMetricsEndpoint(app, services);
  await registerCabinet(app, services, openApiDocuments);
  await registerConsole(app, services);
  registerStatusPage(app, services);
  registerStaticIcons(app, [...new Set(runtime.catalog.all().map((row) => row.coin))]);
  cors.registerPreflights();
  return app;
}
