import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { App, Services } from './app-types.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { loggerOptions, type LogDestination } from './logger.js';
import { installErrorHandler } from './plugins/error-handler.js';
import { BODY_LIMIT_BYTES, installJsonBody } from './plugins/json-body.js';
import { createMetrics, installRequestMetrics } from './plugins/metrics.js';
import { installOpenApi } from './plugins/openapi.js';
import { installCallerIdentification, partnerAuthHooks } from './plugins/partner-auth.js';
import { installValidators } from './plugins/validation.js';
import { registerAdminRoutes } from './routes/admin/index.js';
import { registerHealth } from './routes/ops/health.js';
import { registerMetricsEndpoint } from './routes/ops/metrics.js';
import { CurrencySchema } from './routes/schemas.js';
import { registerStaticIcons } from './routes/static-icons.js';
import { registerV1Routes } from './routes/v1/index.js';
import { OrderSchema } from './routes/v1/order-view.js';
import { ApiKeyService } from './services/api-keys.js';
import { CurrencyCatalog } from './services/currency-catalog.js';
import { SecretBox } from './services/secret-box.js';
import { createPriceBook } from './pricing/create-price-book.js';
import { QuoteService } from './services/quote-service.js';
import { DepositAddressAllocator } from './services/deposit-address-allocator.js';
import { loadDepositWallets } from './services/deposit-wallets.js';
import { IdempotencyKeys } from './services/idempotency.js';
import { OrderService } from './services/order-service.js';
import { seedDemoAddressPools } from './services/demo-address-pools.js';
import { AdminCurrency } from './routes/admin/currency-view.js';
import { KeyListing, Partner } from './routes/admin/admin-schemas.js';

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
  const app: App = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(config.trustProxy),
    requestIdHeader: false,
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const metrics = createMetrics();
  const catalog = new CurrencyCatalog(database.db, config.cacheRefreshMs, (error) =>
    app.log.error({ err: error }, 'catalog refresh failed'),
  );
  const apiKeys = new ApiKeyService(database.db, new SecretBox(config.secretsKey), clock);
  await catalog.start();
  app.addHook('onClose', () => catalog.stop());
  const prices = createPriceBook({
    config: config.pricing,
    db: database.db,
    clock,
    symbols: [...new Set(catalog.all().map((row) => row.price_symbol))],
    logger: app.log,
    metrics,
  });
  // One poll before serving, so the first quote after start-up already has prices.
  await prices.refresh();
  prices.start();
  app.addHook('onClose', () => prices.stop());
  const quotes = new QuoteService(catalog, prices, config.pricing, database.db, clock);
  const wallets = await loadDepositWallets(config, catalog.all());
  if (wallets.demo) {
    await seedDemoAddressPools(database.db, catalog.all());
    app.log.warn('deposit addresses come from a generated DEMO wallet (see README): never send real funds to them');
  }
  const idempotency = new IdempotencyKeys(database.db, clock);
  const orders = new OrderService(
    database.db,
    quotes,
    new DepositAddressAllocator(wallets, metrics),
    idempotency,
    clock,
    config.shortIdPrefix,
  );
  const purgeTimer = setInterval(() => {
    Promise.all([quotes.purgeExpired(), idempotency.purgeExpired()]).catch((error: unknown) =>
      app.log.error({ err: error }, 'purge of expired quotes and idempotency keys failed'),
    );
  }, 600_000).unref();
  app.addHook('onClose', () => clearInterval(purgeTimer));
  const services: Services = {
    config,
    database,
    clock,
    catalog,
    apiKeys,
    partnerAuth: partnerAuthHooks(apiKeys),
    metrics,
    prices,
    quotes,
    orders,
  };

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  installValidators(app);
  installJsonBody(app);
  installErrorHandler(app);
  installRequestMetrics(app, metrics);
  installCallerIdentification(app, apiKeys);
  await installOpenApi(app);
  for (const schema of [CurrencySchema, OrderSchema, Partner, KeyListing, AdminCurrency]) app.addSchema(schema);

  registerV1Routes(app, services);
  await registerAdminRoutes(app, services);
  registerHealth(app, services);
  registerMetricsEndpoint(app, services);
  registerStaticIcons(app, [...new Set(catalog.all().map((row) => row.coin))]);
  return app;
}
