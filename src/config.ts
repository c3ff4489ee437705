import { isIP } from 'node:net';
import path from 'node:path';
import {
  ConfigError,
  decimalText,
  defaulted,
  integer,
  oneOf,
  optional,
  parseCidrs,
  parseCountries,
  parseHotWalletThresholds,
  parseKey32,
  parseLogLevel,
  parsePriceSources,
  parsePublicUrl,
  parseRedisSentinels,
  parseRpcUrls,
  parseSecretsKey,
  parseSignerChains,
  parseTrustProxy,
  prefixed,
  surrounded,
  text,
  urlWithin,
  type BlockedSubnet,
  type Env,
  type LogLevel,
  type PriceSourceName,
} from './config/read.js';
import { variableSchema } from './config/schema.js';

export { ConfigError, defaulted, integer, integerWithin, optional, parseKey32, parseLogLevel, parseSecretsKey } from './config/read.js';
export type { BlockedSubnet, Env, LogLevel, PriceSourceName } from './config/read.js';

/**
 * Validated, frozen configuration read once from the environment at start.
 * A bad value stops the process with a message naming the variable (ConfigError).
 */
export interface Config {
  /** TCP port of the HTTP API. Default 3000; 0 picks a free port. */
  readonly port: number;
  /** Interface to bind. Default 127.0.0.1 so a demo never listens on the network by accident. */
  readonly host: string;
  /** PostgreSQL connection string; unset means the embedded PGlite store under dataDir. */
  readonly databaseUrl: string | undefined;
  /**
   * `DATABASE_DIRECT_URL`: PostgreSQL itself when DATABASE_URL is a pooler in transaction mode
   * (pgbouncer): the LISTEN connections (revocations, catalog changes, status stream wakes) go
   * here, as a pooler cannot hold a LISTEN. Unset: DATABASE_URL is PostgreSQL itself.
   */
  readonly databaseDirectUrl: string | undefined;
  /** Where the LISTEN connections go: DATABASE_DIRECT_URL, else DATABASE_URL; unset when embedded. */
  readonly databaseListenUrl: string | undefined;
  /**
   * `DATABASE_READ_URL`: a streaming replica of DATABASE_URL. Reads that tolerate lag (the
   * catalog's refresh, order lists, stats) go there unless the partner asking wrote something the
   * replica has not replayed yet, or the replica is unreachable: then the primary answers
   * (docs/adr/0055-read-replica.md). Unset: every read goes to DATABASE_URL.
   */
  readonly databaseReadUrl: string | undefined;
  /**
   * `DATABASE_PREPARED_STATEMENTS` (on | off): the hot queries as named prepared statements
   * (db/prepared-statements.ts). Default on, off when DATABASE_DIRECT_URL is set: a
   * transaction-mode pooler hands each transaction another server connection, where the name is
   * unknown (pgbouncer before 1.21 cannot carry them at all).
   */
  readonly databasePreparedStatements: boolean;
  /** `DATABASE_POOL_MAX`: PostgreSQL connections each process opens at most (default 10). */
  readonly databasePoolMax: number;
  /** Directory for PGlite data, generated secrets and the CLI's discovery files. Default ./data. */
  readonly dataDir: string;
  /** How long a new PostgreSQL connection may take before the request needing it fails (503), ms. */
  readonly databaseConnectTimeoutMs: number;
  /**
   * `DATABASE_START_TIMEOUT_MS`: at start, how long an unreachable PostgreSQL is tried again
   * (with backoff, one log line per attempt) before the process gives up and exits 1; 0 tries
   * once. Default 60000: a database restarted with the service, or a container started before
   * its database, is waited for.
   */
  readonly databaseStartTimeoutMs: number;
  /**
   * `SHUTDOWN_DELAY_MS`: on SIGTERM, how long /readyz answers 503 (and every response closes its
   * connection) while requests are still served, before the listener stops accepting: the load
   * balancer's time to notice and send traffic elsewhere. Default 5000; 0 stops at once.
   */
  readonly shutdownDelayMs: number;
  /**
   * `SHUTDOWN_TIMEOUT_MS`: after the delay, how long in-flight requests and the workers' current
   * steps may take to finish before the process exits anyway (code 1). Default 10000.
   */
  readonly shutdownTimeoutMs: number;
  /** Redis connection string for the shared rate limiter; unset means in-process memory. */
  readonly redisUrl: string | undefined;
  /**
   * `REDIS_SENTINELS` (`host:port,host:port`): Redis Sentinels to ask for the current primary of
   * `REDIS_SENTINEL_NAME`, so every Redis client follows a failover (docs/adr/0053). REDIS_URL
   * then still gives the password, database and key prefix; its host is not dialled.
   */
  readonly redisSentinels: readonly { host: string; port: number }[] | undefined;
  /** `REDIS_SENTINEL_NAME`: the master name the sentinels monitor; required with REDIS_SENTINELS. */
  readonly redisSentinelName: string | undefined;
  /**
   * `SIGNATURE_NONCE_REDIS_TIMEOUT_MS`: how long a timestamped signature's replay check waits on
   * Redis before the request is refused with 503 (fail closed, docs/adr/0053). Default 200.
   */
  readonly signatureNonceRedisTimeoutMs: number;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: the OpenTelemetry collector's OTLP/HTTP origin; set, the API
   * and worker processes trace (src/tracing). Unset (the default): no tracing, at no cost.
   */
  readonly otlpEndpoint: string | undefined;
  /** `OTEL_SERVICE_NAME`: the traces' service name; unset, the process's role (`exchange-api`, `exchange-worker`). */
  readonly otelServiceName: string | undefined;
  /** `WEB_CONCURRENCY`: API processes serving the one port, default 1 (server.ts: only with DATABASE_URL). */
  readonly webConcurrency: number;
  /** How long a request waits on the Redis rate limiter before it passes unchecked (fail open), ms. */
  readonly rateLimitRedisTimeoutMs: number;
  /** 32-byte key for AES-256-GCM encryption of API secrets. Generated into dataDir when embedded. */
  readonly secretsKey: Buffer | undefined;
  /** Bearer token of the operator API. Generated into dataDir when embedded. */
  readonly adminToken: string | undefined;
  /**
   * 32-byte key signing fixed quotes' ids (`QUOTE_SIGNING_KEY`). Unset: generated into dataDir
   * when embedded, derived from SECRETS_KEY with DATABASE_URL (quoteSigningKeys resolves it).
   */
  readonly quoteSigningKey: Buffer | undefined;
  /**
   * `QUOTE_SIGNING_KEY_PREVIOUS`: the key used before the current one, still accepted when an
   * order presents a quote (never used to sign), so a rotation breaks no quote already issued.
   */
  readonly quoteSigningKeyPrevious: Buffer | undefined;
  /** Fastify trustProxy: false, true, a hop count, or a list of addresses/CIDRs. */
  readonly trustProxy: boolean | number | string[];
  readonly logLevel: LogLevel;
  /**
   * Fastify's two info lines per request (received, answered): `LOG_REQUESTS`, default true.
   * `false` keeps every other log line and leaves access logging to the proxy in front; at
   * thousands of requests per second those lines cost more CPU than most endpoints (bench/README.md).
   */
  readonly logRequests: boolean;
  /** Prefix of order short ids (`EX` gives `EX-7K2M9Q`). */
  readonly shortIdPrefix: string;
  /** How often in-memory caches of the catalog reload from the database, in ms. Default 5000. */
  readonly cacheRefreshMs: number;
  readonly pricing: PricingConfig;
  /**
   * Operator deposit wallets per chain: `DEPOSIT_XPUB_<CHAIN>` (account xpub, hd chains) and
   * `DEPOSIT_ADDRESS_<CHAIN>` (the one address of a memo chain). Checked against the catalog
   * at start (services/deposit-wallets.ts).
   */
  readonly depositXpubs: Readonly<Record<string, string>>;
  readonly depositAddresses: Readonly<Record<string, string>>;
  /**
   * JSON-RPC URL of the operator's own node per chain: `CHAIN_<CHAIN>_RPC_URL`, e.g.
   * `CHAIN_LTC_RPC_URL=http://user:pass@127.0.0.1:9332`. A chain listed here is watched on
   * its node (src/chains/nodes) instead of the simulator.
   */
  readonly chainRpcUrls: Readonly<Record<string, string>>;
  /**
   * `SIMULATE_LIVE_PAYOUTS` (default false): with DATABASE_URL, live orders on a chain without a
   * payout path (src/chains/payout-paths.ts; none has one before the signer) are offered anyway
   * and paid by the simulator, with a made-up txid: a warning at start and every hour, gauge
   * `simulated_live_payouts` 1. Without it such a chain is withdraw-disabled for live orders
   * (docs/contract.md §11.1). The embedded default always pays on the simulator; the variable changes nothing there.
   */
  readonly simulateLivePayouts: boolean;
  /**
   * `PAYOUT_SIGNER_CHAINS` (e.g. `LTC,ETH`; default none): chains whose live payouts and refunds
   * the signer (`npm run signer`, docs/contract.md §11) makes. The worker records each as a request and
   * completes the order when the signer reports it confirmed. Needs DATABASE_URL: the signer is
   * its own process and reaches the payouts through PostgreSQL, never through an embedded database.
   */
  readonly payoutSignerChains: readonly string[];
  /**
   * HOT_WALLET_MIN_<ASSET> / HOT_WALLET_MAX_<ASSET> (docs/contract.md §11.7; ASSET as the signer's policy
   * names it: LTC, ETH, USDT_ERC20): what each hot wallet should hold at least (below: top it up)
   * and at most (above: sweep to cold storage). Exported as gauges; the alert rules compare.
   */
  readonly hotWalletThresholds: Readonly<Record<string, { min?: string; max?: string }>>;
  /**
   * `ADDRESS_RESYNC_GAP` (default 100, 0–1000000): at start and by `addresses resync`, each hd and
   * memo chain's next deposit index is moved to at least the highest one the database knows + 1 +
   * this many (services/deposit-index-resync.ts), so a restored backup never hands out an address
   * again that was handed out after the backup. It must cover the indexes drawn in a backup
   * interval (docs/operations.md).
   */
  readonly addressResyncGap: number;
  /** The operator surface (src/surfaces.ts): its own listener, and who may scrape /metrics. */
  readonly operator: OperatorConfig;
  readonly webhooks: WebhookConfig;
  /** The mail outbox's delivery (services/mail): SMTP, or .eml files on the embedded default. */
  readonly mail: MailConfig;
  /** The status streams (docs/contract.md §10.11, services/order-streams.ts). */
  readonly streams: StreamConfig;
  /**
   * `ORDER_CACHE_SIZE`: orders each API process keeps as GET /partner/orders/{id} answers them,
   * so a poll of an order that did not move reads no database (services/order-read-cache.ts,
   * docs/adr/0057-order-read-cache.md). Default 10000 (a few KB each); 0 keeps none.
   */
  readonly orderCacheSize: number;
  /**
   * Open orders awaiting a deposit a partner may have at once, unless the operator set the
   * partner's own `max_open_orders`: `MAX_OPEN_ORDERS_PER_PARTNER`, default 100. Past it order
   * creation is 422 `open_orders_limit`: one key cannot drain a shared address pool.
   */
  readonly maxOpenOrdersPerPartner: number;
  readonly lifecycle: LifecycleConfig;
  readonly limits: LimitsConfig;
  readonly cabinet: CabinetConfig;
  readonly endUserBlocklist: EndUserBlocklistConfig;
}

/**
 * The operator's blocklist of end users (docs/contract.md §10.8): an order whose X-End-User-IP is in it is
 * refused, 403 `region_restricted` (services/end-user-blocklist.ts). Both empty by default.
 */
export interface EndUserBlocklistConfig {
  /**
   * `REGION_BLOCKLIST`: ISO 3166-1 alpha-2 countries, comma-separated (`CU,IR,KP`), stored upper
   * case. The address's country comes from the `geoip-country` package's data, loaded only when
   * this is set (it is large) and refreshed by updating the package.
   */
  readonly countries: readonly string[];
  /** `IP_BLOCKLIST`: IPv4 and IPv6 CIDRs (`203.0.113.0/24,2001:db8::/32`; a bare address is one address), comma-separated. */
  readonly cidrs: readonly BlockedSubnet[];
}

/** The partner cabinet (docs/contract.md §9, src/routes/cabinet). */
export interface CabinetConfig {
  /**
   * `PUBLIC_URL`: the origin partners reach the service at (`https://exchange.example`), without
   * a trailing slash; invitation and password reset links, and the Order's status_url (docs/contract.md
   * §10.10: relative when unset), are built from it. Unset, cabinet links use the request that
   * asked for them, unless ADMIN_PORT is set (that request came through the operator listener:
   * the link is refused). An https URL also marks the cookies Secure.
   */
  readonly publicUrl: string | undefined;
  /**
   * `PARTNER_MARKUP_MAX_BPS`: the highest markup a partner may set itself in the cabinet, in
   * basis points, default 300 (3 %). The operator's own setting of a partner's markup
   * (PATCH /admin/v1/partners/{id}) is not bound by it.
   */
  readonly partnerMarkupMaxBps: number;
}

/** Budgets beside the per-key and per-address ones (docs/adr/0008-rate-limits.md). */
export interface LimitsConfig {
  /**
   * A partner's keys together may make this many times one key's budget
   * (`partners.rate_limit_per_minute`) per minute: `PARTNER_RATE_LIMIT_KEYS`, default 2 (a key
   * being rotated and its successor, both at full rate). More keys add no budget.
   */
  readonly partnerKeysBudget: number;
  /** Failed operator-token attempts per client address per minute before 429: `ADMIN_AUTH_FAILURES_PER_MINUTE`, default 10. */
  readonly adminAuthFailuresPerMinute: number;
  /**
   * Unrevoked keys a partner may have of each kind, live and sandbox counted apart:
   * `MAX_API_KEYS_PER_PARTNER`, default 20. Past it a new key is refused (409 `conflict` on the
   * operator API, a form error in the cabinet) until one is revoked: key creation stays cheap
   * to ask for, so it is bounded like the rest.
   */
  readonly apiKeysPerPartner: number;
  /**
   * The share of a chain's deposit-address pool one partner may hold at once, percent:
   * `POOL_SHARE_PCT`, default 20 (docs/contract.md §10.3). Held: bound to the partner's orders that have
   * seen no deposit, open or ended and still watched for a late deposit. At least one address.
   */
  readonly poolSharePct: number;
}

export interface OperatorConfig {
  /**
   * `ADMIN_PORT` (and `ADMIN_HOST`, default 127.0.0.1): the operator API and /metrics listen
   * there, and the public port answers 404 for them. Unset: one listener serves both surfaces.
   */
  readonly listener: { readonly host: string; readonly port: number } | undefined;
  /**
   * `METRICS_TOKEN`: the bearer token a scrape of /metrics must carry unless it comes from
   * loopback with no proxy header. Unset: only loopback scrapes are answered.
   */
  readonly metricsToken: string | undefined;
  /**
   * `WORKER_METRICS_PORT` (and `WORKER_METRICS_HOST`, default 127.0.0.1): where `npm run worker`
   * serves its own /metrics (worker_lag_seconds, payouts, webhooks, its pool), under the same
   * METRICS_TOKEN rule. Unset: the worker serves no metrics. Ignored by the API process.
   */
  readonly workerMetrics: { readonly host: string; readonly port: number } | undefined;
}

export interface LifecycleConfig {
  /** Run the lifecycle worker inside the API process (WORKER=in-process, default) or not (off). */
  readonly workerInProcess: boolean;
  /** Pause between worker passes, ms. Default 1000. */
  readonly workerIntervalMs: number;
  /** Simulated confirmations grow by themselves every this many ms; 0 = only by hand. */
  readonly simulatorAutoConfirmMs: number;
  /** A fixed order proceeds when received is within this percent of expected (decimal text). Default 0.5. */
  readonly fixedTolerancePct: string;
  /**
   * `REFUND_HOLD_MINUTES`: a refused exchange the float rate could still take is held this long
   * for the partner's choice, continue or refund (docs/contract.md §7.5); 0 disables holds. Default 30.
   */
  readonly refundHoldMinutes: number;
  /** `WORKER_BATCH_SIZE`: orders the lifecycle worker claims per pass. Default 20. */
  readonly batchSize: number;
  /** `WORKER_LEASE_MS`: how long a claimed order stays with one worker before another may take it. Default 30000. */
  readonly leaseMs: number;
  /** `WORKER_MAX_ATTEMPTS`: failed attempts of the exchange or payout step before giving up on it. Default 5. */
  readonly maxAttempts: number;
  /** `WORKER_BACKOFF_MS`: the first retry delay, doubled per failure up to 10 minutes. Default 2000. */
  readonly baseBackoffMs: number;
}

/** Operator pricing settings (docs/contract.md §3). Basis points: 100 bps = 1 %. */
export interface PricingConfig {
  /** Price sources, in order: `static` (operator table in the database), `binance`, `coinbase`. Default static. */
  readonly sources: readonly PriceSourceName[];
  /** Operator spread on every quote. Default 50. */
  readonly spreadBps: number;
  /** Extra charge on fixed-rate quotes, for carrying the price risk. Default 100. */
  readonly fixedPremiumBps: number;
  /** Markup applied when no partner key is sent. Default 50. */
  readonly defaultMarkupBps: number;
  /** How long a fixed quote can be used to create an order, seconds. Default 300. */
  readonly fixedQuoteTtlSeconds: number;
  /** Pause between price polls, ms. Default 15000. */
  readonly pollIntervalMs: number;
  /** A price older than this is not used, ms. Default 60000. */
  readonly maxAgeMs: number;
  /** A source further than this from the median is dropped, percent. Default 5. */
  readonly maxDeviationPct: number;
}



/**
 * The process's environment: the one place it is read. Entry points (the CLI, the signer) hand it
 * on to what they run, so their tests hand another.
 */
export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** What the admin CLI takes from the environment (cli/admin-target.ts): where the server is and its files. */
export interface AdminCliEnvironment {
  /** DATA_DIR, resolved: the server's api-url and admin-token files are there. */
  readonly dataDir: string;
  readonly adminApiUrl: string | undefined;
  readonly adminPort: string | undefined;
  /** PORT, or its default: the last place the CLI looks for the API. */
  readonly port: string;
  readonly adminToken: string | undefined;
}

/** Unchecked beyond presence: the CLI reports what it could not reach, naming where the URL came from. */
export function adminCliEnvironment(env: Env): AdminCliEnvironment {
  return {
    dataDir: path.resolve(defaulted(env, 'DATA_DIR')),
    adminApiUrl: optional(env, 'ADMIN_API_URL'),
    adminPort: optional(env, 'ADMIN_PORT'),
    port: optional(env, 'PORT') ?? String(variableSchema('PORT').default),
    adminToken: optional(env, 'ADMIN_TOKEN'),
  };
}

export function loadConfig(env: Env = processEnvironment()): Config {
  const databaseUrl = optional(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  const databaseDirectUrl = optional(env, 'DATABASE_DIRECT_URL');
  if (databaseDirectUrl !== undefined && databaseUrl === undefined) throw new ConfigError('DATABASE_DIRECT_URL', 'needs DATABASE_URL (the pooler it bypasses)');
  if (databaseDirectUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseDirectUrl)) {
    throw new ConfigError('DATABASE_DIRECT_URL', 'must be a postgres:// or postgresql:// URL');
  }
  const databaseReadUrl = optional(env, 'DATABASE_READ_URL');
  if (databaseReadUrl !== undefined && databaseUrl === undefined) throw new ConfigError('DATABASE_READ_URL', 'needs DATABASE_URL (the primary it replicates)');
  if (databaseReadUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    throw new ConfigError('DATABASE_READ_URL', 'must be a postgres:// or postgresql:// URL');
  }
  const redisUrl = optional(env, 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  }
  const redisSentinels = parseRedisSentinels(optional(env, 'REDIS_SENTINELS'));
  const redisSentinelName = optional(env, 'REDIS_SENTINEL_NAME');
  if (redisSentinels !== undefined && redisUrl === undefined) {
    throw new ConfigError('REDIS_SENTINELS', 'needs REDIS_URL (its password, database and key prefix apply to the primary the sentinels name)');
  }
  if (redisSentinels !== undefined && redisSentinelName === undefined) throw new ConfigError('REDIS_SENTINEL_NAME', 'is required with REDIS_SENTINELS');
  if (redisSentinelName !== undefined && redisSentinels === undefined) throw new ConfigError('REDIS_SENTINEL_NAME', 'needs REDIS_SENTINELS');
  const otlpEndpoint = optional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (otlpEndpoint !== undefined && !/^https?:\/\/[^/]/.test(otlpEndpoint)) {
    throw new ConfigError('OTEL_EXPORTER_OTLP_ENDPOINT', 'must be an http:// or https:// URL (the collector\'s OTLP/HTTP origin)');
  }
  // The hot wallet's passphrase and key file belong to the signer's environment alone (docs/contract.md
  // §11.1): an API or worker that could read them would hold the keys the design keeps out of it.
  for (const variable of ['SIGNER_PASSPHRASE', 'SIGNER_KEY_FILE']) {
    if (optional(env, variable) !== undefined) {
      throw new ConfigError(variable, "belongs to the signer's environment only (npm run signer), never the API's or the worker's: remove it here");
    }
  }
  const secretsKey = parseSecretsKey(optional(env, 'SECRETS_KEY'));
  const quoteSigningKey = parseKey32('QUOTE_SIGNING_KEY', optional(env, 'QUOTE_SIGNING_KEY'));
  const quoteSigningKeyPrevious = parseKey32('QUOTE_SIGNING_KEY_PREVIOUS', optional(env, 'QUOTE_SIGNING_KEY_PREVIOUS'));
  const adminToken = optional(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && !/^[A-Za-z0-9_-]{32,256}$/.test(adminToken)) {
    throw new ConfigError('ADMIN_TOKEN', 'must be 32 to 256 characters of A-Z a-z 0-9 _ -');
  }
  // With an external database several processes share state, so a generated per-directory
  // secret would differ between them: production must name its secrets explicitly.
  if (databaseUrl !== undefined && secretsKey === undefined) {
    throw new ConfigError('SECRETS_KEY', 'is required when DATABASE_URL is set');
  }
  if (databaseUrl !== undefined && adminToken === undefined) {
    throw new ConfigError('ADMIN_TOKEN', 'is required when DATABASE_URL is set');
  }
  const shortIdPrefix = defaulted(env, 'SHORT_ID_PREFIX');
  if (!/^[A-Z0-9]{1,8}$/.test(shortIdPrefix)) {
    throw new ConfigError('SHORT_ID_PREFIX', 'must be 1 to 8 characters of A-Z 0-9');
  }
  const logLevel = parseLogLevel(env);
  const host = defaulted(env, 'HOST');
  if (isIP(host) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(host)) {
    throw new ConfigError('HOST', 'must be an IP address or a host name');
  }
  return Object.freeze({
    port: integer(env, 'PORT'),
    host,
    databaseUrl,
    databaseDirectUrl,
    databaseListenUrl: databaseDirectUrl ?? databaseUrl,
    databaseReadUrl,
    databasePreparedStatements: oneOf(env, 'DATABASE_PREPARED_STATEMENTS', databaseDirectUrl === undefined ? 'on' : 'off') === 'on',
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX'),
    dataDir: path.resolve(defaulted(env, 'DATA_DIR')),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS'),
    databaseStartTimeoutMs: integer(env, 'DATABASE_START_TIMEOUT_MS'),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS'),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS'),
    redisUrl,
    redisSentinels,
    redisSentinelName,
    otlpEndpoint,
    otelServiceName: optional(env, 'OTEL_SERVICE_NAME'),
    webConcurrency: integer(env, 'WEB_CONCURRENCY'),
    rateLimitRedisTimeoutMs: integer(env, 'RATE_LIMIT_REDIS_TIMEOUT_MS'),
    signatureNonceRedisTimeoutMs: integer(env, 'SIGNATURE_NONCE_REDIS_TIMEOUT_MS'),
    secretsKey,
    adminToken,
    quoteSigningKey,
    quoteSigningKeyPrevious,
    trustProxy: parseTrustProxy(text(env, 'TRUST_PROXY')),
    logLevel,
    logRequests: oneOf(env, 'LOG_REQUESTS') === 'true',
    shortIdPrefix,
    cacheRefreshMs: integer(env, 'CACHE_REFRESH_MS'),
    depositXpubs: Object.freeze(prefixed(env, 'DEPOSIT_XPUB_')),
    depositAddresses: Object.freeze(prefixed(env, 'DEPOSIT_ADDRESS_')),
    chainRpcUrls: Object.freeze(parseRpcUrls(surrounded(env, 'CHAIN_', '_RPC_URL'))),
    simulateLivePayouts: oneOf(env, 'SIMULATE_LIVE_PAYOUTS') === 'true',
    payoutSignerChains: Object.freeze(parseSignerChains(optional(env, 'PAYOUT_SIGNER_CHAINS'), databaseUrl)),
    hotWalletThresholds: Object.freeze(parseHotWalletThresholds(env)),
    addressResyncGap: integer(env, 'ADDRESS_RESYNC_GAP'),
    operator: parseOperator(env),
    webhooks: parseWebhooks(env, databaseUrl),
    mail: parseMail(env),
    streams: parseStreams(env),
    orderCacheSize: integer(env, 'ORDER_CACHE_SIZE'),
    maxOpenOrdersPerPartner: integer(env, 'MAX_OPEN_ORDERS_PER_PARTNER'),
    lifecycle: Object.freeze({
      workerInProcess: oneOf(env, 'WORKER') === 'in-process',
      workerIntervalMs: integer(env, 'WORKER_INTERVAL_MS'),
      // SIMULATOR_AUTO=1 is the embedded default: a demo order completes after one simulated deposit.
      simulatorAutoConfirmMs:
        oneOf(env, 'SIMULATOR_AUTO', databaseUrl === undefined ? '1' : '0') === '1'
          ? integer(env, 'SIMULATOR_CONFIRM_SECONDS') * 1000
          : 0,
      fixedTolerancePct: decimalText(env, 'FIXED_RATE_TOLERANCE_PCT'),
      refundHoldMinutes: integer(env, 'REFUND_HOLD_MINUTES'),
      batchSize: integer(env, 'WORKER_BATCH_SIZE'),
      leaseMs: integer(env, 'WORKER_LEASE_MS'),
      maxAttempts: integer(env, 'WORKER_MAX_ATTEMPTS'),
      baseBackoffMs: integer(env, 'WORKER_BACKOFF_MS'),
    }),
    limits: Object.freeze({
      partnerKeysBudget: integer(env, 'PARTNER_RATE_LIMIT_KEYS'),
      adminAuthFailuresPerMinute: integer(env, 'ADMIN_AUTH_FAILURES_PER_MINUTE'),
      apiKeysPerPartner: integer(env, 'MAX_API_KEYS_PER_PARTNER'),
      poolSharePct: integer(env, 'POOL_SHARE_PCT'),
    }),
    endUserBlocklist: Object.freeze({
      countries: Object.freeze(parseCountries(optional(env, 'REGION_BLOCKLIST'))),
      cidrs: Object.freeze(parseCidrs(optional(env, 'IP_BLOCKLIST'))),
    }),
    cabinet: Object.freeze({
      publicUrl: parsePublicUrl(optional(env, 'PUBLIC_URL')),
      partnerMarkupMaxBps: integer(env, 'PARTNER_MARKUP_MAX_BPS'),
    }),
    pricing: Object.freeze({
      sources: parsePriceSources(optional(env, 'PRICE_SOURCES')),
      spreadBps: integer(env, 'SPREAD_BPS'),
      fixedPremiumBps: integer(env, 'FIXED_PREMIUM_BPS'),
      defaultMarkupBps: integer(env, 'DEFAULT_MARKUP_BPS'),
      fixedQuoteTtlSeconds: integer(env, 'FIXED_QUOTE_TTL_SECONDS'),
      pollIntervalMs: integer(env, 'PRICE_POLL_SECONDS') * 1000,
      maxAgeMs: integer(env, 'PRICE_MAX_AGE_SECONDS') * 1000,
      maxDeviationPct: integer(env, 'PRICE_MAX_DEVIATION_PCT'),
    }),
  });
}

function parseOperator(env: Env): OperatorConfig {
  const metricsToken = optional(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[A-Za-z0-9_-]{32,256}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 32 to 256 characters of A-Z a-z 0-9 _ -');
  }
  const workerMetrics = parseWorkerMetrics(env);
  const host = optional(env, 'ADMIN_HOST');
  const rawPort = optional(env, 'ADMIN_PORT');
  if (rawPort === undefined) {
    if (host !== undefined) throw new ConfigError('ADMIN_HOST', 'needs ADMIN_PORT (the operator listener)');
    return Object.freeze({ listener: undefined, metricsToken, workerMetrics });
  }
  const port = integer(env, 'ADMIN_PORT');
  if (port !== 0 && port === integer(env, 'PORT')) {
    throw new ConfigError('ADMIN_PORT', 'must differ from PORT (it is the operator API\'s own listener)');
  }
  if (host !== undefined && isIP(host) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(host)) {
    throw new ConfigError('ADMIN_HOST', 'must be an IP address or a host name');
  }
  return Object.freeze({ listener: Object.freeze({ host: host ?? defaulted(env, 'ADMIN_HOST'), port }), metricsToken, workerMetrics });
}

function parseWorkerMetrics(env: Env): OperatorConfig['workerMetrics'] {
  const host = optional(env, 'WORKER_METRICS_HOST');
  if (optional(env, 'WORKER_METRICS_PORT') === undefined) {
    if (host !== undefined) throw new ConfigError('WORKER_METRICS_HOST', 'needs WORKER_METRICS_PORT (the worker\'s metrics listener)');
    return undefined;
  }
  if (host !== undefined && isIP(host) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(host)) {
    throw new ConfigError('WORKER_METRICS_HOST', 'must be an IP address or a host name');
  }
  return Object.freeze({ host: host ?? defaulted(env, 'WORKER_METRICS_HOST'), port: integer(env, 'WORKER_METRICS_PORT') });
}

















/** Webhook delivery (docs/contract.md §8, src/worker/webhook-worker.ts). */
/**
 * The status streams (docs/contract.md §10.11): caps on what one process holds open, counted per process
 * (a stream lives on the process it reached); past a cap the stream is 429.
 */
export interface StreamConfig {
  /** `STREAM_PING_SECONDS`: a `: ping` comment on every open stream this often. Default 15. */
  readonly pingMs: number;
  /** `STREAM_MAX_PER_KEY`: streams one API key (full or client) holds open on one process. Default 1000. */
  readonly maxPerKey: number;
  /**
   * `STREAM_MAX_PER_ADDRESS`: streams one client address holds open on one process without a
   * full key (the public stream, or a client key shipped in an app whose users share it). Default 20.
   */
  readonly maxPerAddress: number;
  /** `STREAM_MAX_PER_PROCESS`: streams one API process holds open in all. Default 20000. */
  readonly maxPerProcess: number;
  /**
   * `STREAM_BUFFER_BYTES`: a stream whose reader lets more than this wait unsent is cut (the
   * reader reconnects with Last-Event-ID and misses nothing). Default 262144 (256 KiB).
   */
  readonly maxBufferBytes: number;
  /**
   * `ORDER_SNAPSHOT_HOURS`: how long each order version is kept for resumes (Last-Event-ID).
   * Default 24; a resume past it gets the order's current state.
   */
  readonly snapshotHours: number;
}

function parseStreams(env: Env): StreamConfig {
  return Object.freeze({
    pingMs: integer(env, 'STREAM_PING_SECONDS') * 1000,
    maxPerKey: integer(env, 'STREAM_MAX_PER_KEY'),
    maxPerAddress: integer(env, 'STREAM_MAX_PER_ADDRESS'),
    maxPerProcess: integer(env, 'STREAM_MAX_PER_PROCESS'),
    maxBufferBytes: integer(env, 'STREAM_BUFFER_BYTES'),
    snapshotHours: integer(env, 'ORDER_SNAPSHOT_HOURS'),
  });
}

export interface MailConfig {
  /**
   * `SMTP_URL` (e.g. `smtps://user:pass@mail.example.com:465`, or `smtp://…:587` with STARTTLS):
   * the server the worker delivers the mail outbox through. Unset: each mail is written as an
   * .eml file under `DATA_DIR/mail/` and logged (the embedded default; nothing leaves the machine).
   */
  readonly smtpUrl: string | undefined;
  /** `MAIL_FROM`: the From of every mail. Default `Exchange <no-reply@localhost>`. */
  readonly from: string;
  /** `MAIL_BATCH_SIZE`: mails the worker claims per pass. Default 20; 1–1000. */
  readonly batchSize: number;
  /** `MAIL_MAX_ATTEMPTS`: attempts before a mail is given up (`failed`). Default 8 (about 2 hours of retries); 1–100. */
  readonly maxAttempts: number;
  /** `MAIL_LEASE_MS`: how long a claimed mail is one worker's before another may send it, ms. Default 120000; 1000–3600000. */
  readonly leaseMs: number;
}

function parseMail(env: Env): MailConfig {
  const smtpUrl = optional(env, 'SMTP_URL');
  if (smtpUrl !== undefined) urlWithin('SMTP_URL', smtpUrl, ['smtp:', 'smtps:']);
  const from = defaulted(env, 'MAIL_FROM');
  if (/[\r\n]/.test(from) || !/@/.test(from) || from.length > 320) throw new ConfigError('MAIL_FROM', 'must be one mail address, optionally with a name: Name <address>');
  return Object.freeze({
    smtpUrl,
    from,
    batchSize: integer(env, 'MAIL_BATCH_SIZE'),
    maxAttempts: integer(env, 'MAIL_MAX_ATTEMPTS'),
    leaseMs: integer(env, 'MAIL_LEASE_MS'),
  });
}

export interface WebhookConfig {
  /**
   * `WEBHOOK_ALLOW_PRIVATE`: `true` lets endpoints use http and private addresses (a receiver on
   * the developer's machine); `false` (production) takes only https URLs whose resolved address
   * is public, checked at send time. Default true embedded, false with DATABASE_URL.
   */
  readonly allowPrivate: boolean;
  /** `WEBHOOK_TIMEOUT_MS`: one delivery attempt's bound, connection to answer, ms. Default 10000. */
  readonly timeoutMs: number;
  /** `WEBHOOK_CONCURRENCY`: deliveries one worker has in flight at once. Default 32. */
  readonly concurrency: number;
  /** `WEBHOOK_PER_ENDPOINT`: of them, to one endpoint at most. Default 8. */
  readonly perEndpoint: number;
}

function parseWebhooks(env: Env, databaseUrl: string | undefined): WebhookConfig {
  return Object.freeze({
    allowPrivate: oneOf(env, 'WEBHOOK_ALLOW_PRIVATE', databaseUrl === undefined ? 'true' : 'false') === 'true',
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS'),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY'),
    perEndpoint: integer(env, 'WEBHOOK_PER_ENDPOINT'),
  });
}

