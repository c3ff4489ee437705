import { PartnerSettings } from './services/partner-settings.js';
import { AddressPools } from './services/address-pools.js';
import { OperatorAuditLog } from './services/operator-audit-log.js';
import { PayoutOperations } from './services/payout-operations.js';
import { StaticPrices } from './services/static-prices.js';
import { SimulatedDeposits } from './services/simulated-deposits.js';
import { Decimal } from './domain/money.js';
import { linkBase, type LinkBase } from './views/partner-order-view.js';
import type { FastifyBaseLogger } from 'fastify';
import { Gauge } from 'prom-client';
import { createChainWatchers, simulatorExcept } from './chains/nodes/create-chain-watchers.js';
import { configuredPayoutPaths } from './chains/payout-paths.js';
import { SimulatedChainWatcher } from './chains/simulator/simulated-chain-watcher.js';
import { SimulatedExchanger } from './chains/simulator/simulated-exchanger.js';
import { SimulatedPayoutSender } from './chains/simulator/simulated-payout-sender.js';
import { assetName } from './domain/asset-name.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { registerBuildInfo, registerPoolMetrics, type Metrics } from './metrics.js';
import { createPriceBook } from './pricing/create-price-book.js';
import type { PriceBook } from './pricing/price-book.js';
import { ApiKeyService } from './services/api-keys.js';
import { InProcessAuthChanges, PostgresAuthChanges, type AuthChangeFeed } from './infrastructure/auth-changes.js';
import { CatalogChanges } from './services/catalog-changes.js';
import { CatalogEdits } from './services/catalog-edits.js';
import { OrderLookup } from './services/order-lookup.js';
import { CurrencyCatalog } from './services/currency-catalog.js';
import { seedDemoAddressPools } from './services/demo-address-pools.js';
import { DepositAddressAllocator } from './services/deposit-address-allocator.js';
import { depositIndexProbe } from './services/deposit-index-probe.js';
import { resyncDepositIndexes, type ResyncedChain } from './services/deposit-index-resync.js';
import { loadDepositWallets } from './services/deposit-wallets.js';
import { IdempotencyKeys } from './services/idempotency.js';
import { OrderActions } from './services/order-actions.js';
import { LedgerReports } from './services/ledger-reports.js';
import { NO_CHAIN_READINGS, SignerChainHoldings, Treasury } from './services/treasury.js';
import { PartnerStats } from './services/partner-stats.js';
import { OrderLifecycle } from './services/order-lifecycle.js';
import { EndUserBlocklist } from './services/end-user-blocklist.js';
import { OrderService } from './services/order-service.js';
import { SignerPayoutsGauge } from './services/signer-payouts-gauge.js';
import { OrderStatusGauge } from './infrastructure/order-status-gauge.js';
import { BacklogGauges } from './services/backlog-gauges.js';
import { FixedQuoteTokens, quoteSigningKeys } from './services/fixed-quote-tokens.js';
import { QuoteService } from './services/quote-service.js';
import { HotWalletGauges } from './services/hot-wallet-gauges.js';
import { HotWalletLiquidity } from './services/hot-wallet-liquidity.js';
import { SecretBox } from './infrastructure/secret-box.js';
import { LifecycleWorker } from './worker/lifecycle-worker.js';
import { WebhookEndpoints } from './services/webhook-endpoints.js';
import { WebhookSender } from './infrastructure/webhook-sender.js';
import { WebhookWorker } from './worker/webhook-worker.js';
import { MAIL_WORKER_DEFAULTS, MailWorker } from './worker/mail-worker.js';
import { configuredMailTransport, Mailer } from './services/mailer.js';
import { CommissionPayouts } from './services/commission-payouts.js';
import { OrderReads } from './services/order-reads.js';
import { InProcessOrderMoves, PostgresOrderMoves, type OrderMoveFeed } from './services/order-move-feed.js';
import { OrderStreams } from './services/order-streams.js';
import { pruneOrderSnapshots } from './db/repositories/order-snapshots-repository.js';
import { RequestLog } from './services/request-log.js';
import { PrimaryReads, ReplicaReads, type LagTolerantReads } from './services/replica-reads.js';

/** Everything behind the HTTP layer; the API process and `npm run worker` both build one. */
export interface Runtime {
  /** Where the Order's links begin (status_url, docs/contract.md §10.10): PUBLIC_URL, or '' (relative). */
  readonly linkBase: LinkBase;
  readonly catalog: CurrencyCatalog;
  /** Reads that tolerate lag: the read replica (DATABASE_READ_URL) when it may, else the primary. */
  readonly reads: LagTolerantReads;
  /** Tells every process the catalog changed (POST/PATCH /admin/v1/currencies). */
  readonly catalogChanges: CatalogChanges;
  /** Adds and edits coins, tokens and networks at run time (the operator API and the console alike). */
  readonly catalogEdits: CatalogEdits;
  /** Deposit address pools: levels, low-pool thresholds, loading (the console, the operator API). */
  readonly addressPools: AddressPools;
  /** The operator's order search, order detail, short ids and payout approvals (operator API, CLI, console). */
  readonly orderLookup: OrderLookup;
  readonly apiKeys: ApiKeyService;
  readonly prices: PriceBook;
  readonly quotes: QuoteService;
  /** What the signer's hot wallets can pay (docs/contract.md §11.7); refresh() reads it at once. */
  readonly liquidity: HotWalletLiquidity;
  readonly orders: OrderService;
  /** GET order and the public status read, from this process's order read cache when it can (docs/adr/0057-order-read-cache.md). */
  readonly orderReads: OrderReads;
  readonly lifecycle: OrderLifecycle;
  /** Cancel, set refund address, continue, refund (docs/contract.md §7.5): moves of the lifecycle table. */
  readonly orderActions: OrderActions;
  /** Partner stats and the operator's commission report (docs/contract.md §7.8). */
  readonly partnerStats: PartnerStats;
  /** A partner's settings changed by the operator or its cabinet, its keys' cache with them. */
  readonly partners: PartnerSettings;
  /** The operator audit log: written as operator actions are answered, read back by the operator. */
  readonly operatorAudit: OperatorAuditLog;
  /** Payout approvals and the signer's brakes (docs/contract.md §11.3, §11.7). */
  readonly payoutOperations: PayoutOperations;
  /** The operator's price table, the `static` price source. */
  readonly staticPrices: StaticPrices;
  /** Deposits on the simulated chain: the simulator routes and sandbox deposits (docs/contract.md §7.6). */
  readonly simulatedDeposits: SimulatedDeposits;
  /** The ledger's trial balance and entries (docs/contract.md §11.5). */
  readonly ledger: LedgerReports;
  readonly worker: LifecycleWorker;
  /** orders_by_status, recounted on a timer (refresh() recounts at once). */
  readonly orderStatusGauge: OrderStatusGauge;
  /** Stuck orders and pool levels; `refresh()` recounts now. */
  readonly backlogGauges: BacklogGauges;
  readonly signerPayoutsGauge: SignerPayoutsGauge;
  /** The treasury view and treasury_drift (docs/contract.md §11.5). */
  readonly treasury: Treasury;
  /** Webhook endpoints and their delivery logs (docs/contract.md §8). */
  readonly webhooks: WebhookEndpoints;
  /** The status streams this process holds open (docs/contract.md §10.11). */
  readonly orderStreams: OrderStreams;
  /** Delivers the webhook outbox; runs wherever the lifecycle worker runs. */
  readonly webhookWorker: WebhookWorker;
  /** The partner's request log, written in batches off the request path (services/request-log.ts). */
  readonly requestLog: RequestLog;
  /** Commission payouts per period (docs/contract.md §11.6). */
  readonly commissionPayouts: CommissionPayouts;
  /** Queues mail in the caller's transaction (docs/decisions.md, "Mail outbox"). */
  readonly mailer: Mailer;
  /** Delivers the mail outbox; runs wherever the lifecycle worker runs. */
  readonly mailWorker: MailWorker;
  /**
   * Moves each chain's next deposit index past every index the database knows plus
   * ADDRESS_RESYNC_GAP (after a restore: docs/operations.md); done at every start too.
   */
  readonly resyncDepositIndexes: () => Promise<ResyncedChain[]>;
  /** Stops timers and the worker (the database stays open: its owner closes it). */
  close(): Promise<void>;
}

/** SIMULATE_LIVE_PAYOUTS' warning is repeated this often, ms (docs/contract.md §11.1: hourly). */
export const SIMULATED_PAYOUTS_WARNING_MS = 3_600_000;

/** How long start-up waits for the authentication change LISTEN (it keeps trying after). */
const AUTH_LISTEN_WAIT_MS = 2000;

export interface RuntimeDeps {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  logger: FastifyBaseLogger;
  metrics: Metrics;
}

export async function createRuntime({ config, database, clock, logger, metrics }: RuntimeDeps): Promise<Runtime> {
  if (config.secretsKey === undefined) throw new Error('SECRETS_KEY must be resolved before building the runtime');
  const db = database.db;
  registerBuildInfo(metrics);
  const poolStats = database.poolStats?.bind(database);
  if (poolStats !== undefined) registerPoolMetrics(metrics, poolStats);
  const reads: LagTolerantReads =
    database.replica === undefined ? new PrimaryReads(db) : new ReplicaReads({ primary: db, replica: database.replica, metrics, logger, redisUrl: config.redisUrl });
  const catalog = new CurrencyCatalog(db, config.cacheRefreshMs, (error) => logger.error({ err: error }, 'catalog refresh failed'), reads);
  await catalog.start();
  const prices = createPriceBook({
    config: config.pricing,
    db,
    clock,
    symbols: [...new Set(catalog.all().map((row) => row.price_symbol))],
    logger,
    metrics,
  });
  // A currency added at run time (POST /admin/v1/currencies) is priced from the next poll on.
  catalog.afterReload((rows) => prices.useSymbols(rows.map((row) => row.price_symbol)));
  // ... and every process reloads at once on a change (docs/contract.md §12), not on its next refresh tick.
  const catalogChanges = new CatalogChanges(db, config.databaseListenUrl, () => catalog.reload(), logger);
  await catalogChanges.listening(AUTH_LISTEN_WAIT_MS);
  // Start polling and wait for its first poll (refresh joins the poll in flight rather than
  // starting a second one), so the first quote after start-up already has prices.
  prices.start();
  await prices.refresh();

  const quotes = new QuoteService(
    catalog,
    prices,
    config.pricing,
    new FixedQuoteTokens(quoteSigningKeys({ ...config, secretsKey: config.secretsKey })),
    clock,
  );
  const wallets = await loadDepositWallets(config, catalog.all());
  if (wallets.demo) {
    await seedDemoAddressPools(db, catalog.all());
    logger.warn('deposit addresses come from a generated DEMO wallet (see README): never send real funds to them');
  }
  // docs/contract.md §11.1: what may be offered is what the server can move. A chain without a deposit
  // wallet is listed deposit-disabled; under DATABASE_URL a chain without a payout path is not
  // offered for live orders, unless SIMULATE_LIVE_PAYOUTS=true (loudly: a warning now and hourly).
  const payoutPaths = configuredPayoutPaths(config);
  await catalog.useMoneyPaths({
    hasDepositWallet: (row) => (row.deposit_strategy === 'memo' ? wallets.memo.has(row.chain) : wallets.hd.has(row.chain)),
    payouts: payoutPaths,
  });
  // docs/contract.md §11.7: quotes and orders on the signer's chains only for what its hot wallets can pay.
  const liquidity = new HotWalletLiquidity(
    db,
    new Set(config.databaseUrl === undefined ? [] : config.payoutSignerChains),
    () => catalog.all(),
    (error) => logger.error({ err: error }, 'reading the hot wallet balances failed'),
    (ids) => catalog.useIlliquid(ids),
    config.databaseUrl === undefined || config.payoutSignerChains.length === 0 ? undefined : new HotWalletGauges(metrics, config.hotWalletThresholds, clock),
  );
  await liquidity.start(config.cacheRefreshMs);
  quotes.useLiquidity(liquidity);
  new Gauge({
    name: 'simulated_live_payouts',
    help: '1 when live orders are paid out by the simulator under DATABASE_URL (SIMULATE_LIVE_PAYOUTS=true): their payout txids are made up.',
    registers: [metrics.registry],
  }).set(payoutPaths.simulatedLive ? 1 : 0);
  const warnSimulatedPayouts = (): void =>
    logger.warn('SIMULATE_LIVE_PAYOUTS=true: live orders are paid out by the SIMULATOR with made-up txids; no coins are sent. Never run it with real customers.');
  let simulatedPayoutsTimer: NodeJS.Timeout | undefined;
  if (payoutPaths.simulatedLive) {
    warnSimulatedPayouts();
    simulatedPayoutsTimer = setInterval(warnSimulatedPayouts, SIMULATED_PAYOUTS_WARNING_MS).unref();
  } else if (config.databaseUrl !== undefined) {
    const chains = [...new Set(catalog.all().filter((row) => row.is_withdraw_enabled && !payoutPaths.configured(row.chain)).map((row) => row.chain))];
    if (chains.length > 0) logger.info({ chains }, 'live orders are not offered on chains without a payout path (SIMULATE_LIVE_PAYOUTS unset)');
  }
  // Before any address is drawn (the allocator draws on the first order): a restored database
  // must not hand out again an address handed out after its backup.
  const resync = async (): Promise<ResyncedChain[]> => {
    const chains = await resyncDepositIndexes(db, catalog.all(), config.addressResyncGap);
    const moved = chains.filter((chain) => chain.nextAfter !== chain.nextBefore);
    if (moved.length > 0) logger.info({ chains: moved }, 'deposit index sequences moved past the indexes known plus ADDRESS_RESYNC_GAP');
    return chains;
  };
  await resync();
  const idempotency = new IdempotencyKeys(db, clock);
  const base = linkBase(config.cabinet.publicUrl);
  const depositAddresses = new DepositAddressAllocator(
    db,
    wallets,
    metrics,
    (error) => logger.error({ err: error }, 'drawing or deriving deposit addresses ahead failed'),
    config.limits.poolSharePct,
  );
  const orders = new OrderService(
    db,
    quotes,
    depositAddresses,
    idempotency,
    clock,
    config.shortIdPrefix,
    config.maxOpenOrdersPerPartner,
    new EndUserBlocklist(config.endUserBlocklist),
    base,
  );
  // Every move reaches the status streams of every API process (services/order-move-feed.ts).
  const orderMoves: OrderMoveFeed = config.databaseUrl === undefined ? new InProcessOrderMoves() : new PostgresOrderMoves(db, config.databaseListenUrl ?? config.databaseUrl, logger);
  const lifecycle = new OrderLifecycle(
    db,
    clock,
    metrics,
    (currencyId) => catalog.byId(currencyId)?.chain ?? '',
    catalog,
    base,
    new Set(config.payoutSignerChains),
    orderMoves,
  );
  // Each API process's copy of the orders it was asked for, kept right by the same feed (docs/adr/0057-order-read-cache.md).
  const orderReads = new OrderReads(db, orders, orderMoves, clock, base, config.orderCacheSize, config.databaseUrl === undefined, metrics);
  const orderStreams = new OrderStreams({
    db,
    feed: orderMoves,
    metrics,
    settings: config.streams,
    clock,
    linkBase: base,
    onError: (error) => logger.error({ err: error }, 'a status stream could not read the versions it missed'),
  });
  // The versions kept for resumes (Last-Event-ID): ORDER_SNAPSHOT_HOURS.
  const snapshotTimer = setInterval(() => {
    const before = new Date(clock.now().getTime() - config.streams.snapshotHours * 3_600_000);
    pruneOrderSnapshots(db, before).catch((error: unknown) => logger.error({ err: error }, 'pruning order snapshots failed'));
  }, 600_000).unref();
  const orderStatusGauge = new OrderStatusGauge(db, metrics, (error) => logger.error({ err: error }, 'orders_by_status count failed'));
  await orderStatusGauge.start();
  const backlogGauges = new BacklogGauges(db, clock, metrics, (error) => logger.error({ err: error }, 'stuck orders and pool levels count failed'));
  await backlogGauges.start();
  const signerPayoutsGauge = new SignerPayoutsGauge(db, metrics, config.payoutSignerChains, (error) => logger.error({ err: error }, 'signer_payouts count failed'));
  await signerPayoutsGauge.start();
  // The chain's side of the treasury is what the signer publishes; without a signer, nothing.
  const signed = config.payoutSignerChains.length > 0;
  const chainHoldings = signed ? new SignerChainHoldings(db, catalog, clock) : NO_CHAIN_READINGS;
  // An asset is valued at its currency's price symbol (a token at its own, e.g. USDT_ETH at USDT).
  const usdPrice = (asset: string) => {
    const row = catalog.all().find((currency) => assetName(currency.coin, currency.network) === asset);
    return row === undefined ? undefined : prices.getPriceUsd(row.price_symbol);
  };
  const treasury = new Treasury(db, clock, catalog, chainHoldings, metrics, (error) => logger.error({ err: error }, 'treasury reconciliation failed'), usdPrice);
  await treasury.start(signed);
  // Chains with a node (CHAIN_<CHAIN>_RPC_URL) are watched there; the simulator keeps the rest.
  const nodeWatchers = createChainWatchers(config, db, clock, metrics, logger, (chain) => {
    // Every way a deposit reaches the chain's addresses: its own coin and each token on it.
    const rows = catalog.all().filter((row) => row.chain === chain && row.deposit_strategy === 'hd');
    const contracts = [...new Set(rows.map((row) => row.token_contract?.toLowerCase() ?? null))];
    return depositIndexProbe(db, wallets, chain, contracts, config.addressResyncGap);
  });
  const simulatedChain = new SimulatedChainWatcher(db, { autoConfirmEveryMs: config.lifecycle.simulatorAutoConfirmMs, now: () => clock.now() });
  const simulatedExchanger = new SimulatedExchanger(db);
  const simulatedPayouts = new SimulatedPayoutSender(db, () => clock.now());
  const worker = new LifecycleWorker({
    db,
    lifecycle,
    catalog,
    quotes,
    prices,
    watchers: [...nodeWatchers, simulatorExcept(simulatedChain, new Set(nodeWatchers.map((watcher) => watcher.chain)))],
    exchanger: simulatedExchanger,
    payouts: simulatedPayouts,
    // Sandbox orders (docs/contract.md §7.6) stay on the simulator on every chain, nodes configured or not.
    sandbox: { watcher: simulatedChain, exchanger: simulatedExchanger, payouts: simulatedPayouts },
    clock,
    metrics,
    logger,
    settings: {
      fixedTolerancePct: new Decimal(config.lifecycle.fixedTolerancePct),
      leaseMs: config.lifecycle.leaseMs,
      maxAttempts: config.lifecycle.maxAttempts,
      baseBackoffMs: config.lifecycle.baseBackoffMs,
      batchSize: config.lifecycle.batchSize,
      intervalMs: config.lifecycle.workerIntervalMs,
      refundHoldMinutes: config.lifecycle.refundHoldMinutes,
    },
  });

  const webhookSecrets = new SecretBox(config.secretsKey);
  const webhooks = new WebhookEndpoints(db, webhookSecrets, clock, config.webhooks.allowPrivate);
  const webhookWorker = new WebhookWorker({
    db,
    clock,
    transport: new WebhookSender({ allowPrivate: config.webhooks.allowPrivate, timeoutMs: config.webhooks.timeoutMs }),
    secrets: webhookSecrets,
    metrics,
    logger,
    settings: { concurrency: config.webhooks.concurrency, perEndpoint: config.webhooks.perEndpoint, timeoutMs: config.webhooks.timeoutMs, pollMs: 250 },
  });

  const mailer = new Mailer(db, clock);
  const mailWorker = new MailWorker(db, configuredMailTransport({ ...config.mail, dataDir: config.dataDir }, (fields, msg) => logger.info(fields, msg)), clock, metrics, logger, {
    ...MAIL_WORKER_DEFAULTS,
    batchSize: config.mail.batchSize,
    maxAttempts: config.mail.maxAttempts,
    leaseMs: config.mail.leaseMs,
  });

  // Revocations and suspensions reach every API process within milliseconds (infrastructure/auth-changes.ts).
  let authChanges: AuthChangeFeed = new InProcessAuthChanges();
  if (config.databaseUrl !== undefined) {
    const listened = new PostgresAuthChanges(db, config.databaseListenUrl ?? config.databaseUrl, logger);
    await listened.listening(AUTH_LISTEN_WAIT_MS);
    authChanges = listened;
  }

  const purgeTimer = setInterval(() => {
    idempotency.purgeExpired().catch((error: unknown) => logger.error({ err: error }, 'purge of expired idempotency keys failed'));
  }, 600_000).unref();

  const apiKeys = new ApiKeyService(db, new SecretBox(config.secretsKey), clock, config.cacheRefreshMs, authChanges, config.limits.apiKeysPerPartner);
  // The cabinet's "last used" of each key, to the minute (ApiKeyService.flushUses).
  const flushKeyUses = (): Promise<void> =>
    apiKeys.flushUses().catch((error: unknown) => logger.error({ err: error }, 'recording API key uses failed'));
  const keyUseTimer = setInterval(() => void flushKeyUses(), 60_000).unref();
  const requestLog = new RequestLog(db, clock, logger);

  return {
    linkBase: base,
    catalog,
    reads,
    catalogChanges,
    catalogEdits: new CatalogEdits(db, catalog, catalogChanges),
    addressPools: new AddressPools(db, catalog, clock),
    orderLookup: new OrderLookup(db, config.shortIdPrefix),
    apiKeys,
    prices,
    quotes,
    liquidity,
    orders,
    orderReads,
    lifecycle,
    orderActions: new OrderActions(db, lifecycle, catalog, clock),
    partnerStats: new PartnerStats(db, clock, reads),
    partners: new PartnerSettings(db, apiKeys),
    operatorAudit: new OperatorAuditLog(db, clock),
    payoutOperations: new PayoutOperations(db, clock),
    staticPrices: new StaticPrices(db, prices, clock),
    simulatedDeposits: new SimulatedDeposits(db, clock),
    ledger: new LedgerReports(db, clock),
    worker,
    orderStatusGauge,
    backlogGauges,
    signerPayoutsGauge,
    treasury,
    webhooks,
    webhookWorker,
    mailer,
    mailWorker,
    commissionPayouts: new CommissionPayouts(db, clock, catalog, new Set(config.payoutSignerChains)),
    orderStreams,
    requestLog,
    resyncDepositIndexes: resync,
    async close() {
      clearInterval(purgeTimer);
      clearInterval(snapshotTimer);
      await orderStreams.close();
      clearInterval(simulatedPayoutsTimer);
      clearInterval(keyUseTimer);
      await flushKeyUses();
      await requestLog.flush();
      orderStatusGauge.stop();
      backlogGauges.stop();
      signerPayoutsGauge.stop();
      treasury.stop();
      await worker.stop();
      await webhookWorker.stop();
      await mailWorker.stop();
      await depositAddresses.close();
      prices.stop();
      liquidity.stop();
      catalog.stop();
      await catalogChanges.close();
      await authChanges.close();
      await reads.close();
    },
  };
}
