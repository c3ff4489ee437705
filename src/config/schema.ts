import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The service's configuration as one schema: every environment variable the API, the worker and
 * the admin CLI read, with its type, its range, its default and what it means. The readers
 * (config/read.ts) take a variable's default and bounds from here, so each is written once, and
 * the README's configuration table is generated from it (`npm run docs:config`; a test fails when
 * the README differs). A `<CHAIN>` or `<ASSET>` in a name stands for a family of variables.
 *
 * `x-shown` is the default as the README shows it when it is not one value (it depends on
 * DATABASE_URL, or is generated); a field with neither `default` nor `x-shown` is unset by default.
 */

/** An integer variable; `fallback` undefined: unset by default. */
function int(fallback: number | undefined, minimum: number, maximum: number, description: string, shown?: string) {
  return Type.Optional(Type.Integer({ ...(fallback === undefined ? {} : { default: fallback }), minimum, maximum, description, ...(shown === undefined ? {} : { 'x-shown': shown }) }));
}

/** A text variable: a URL, a list, a name; checked by its reader. */
function text(description: string, options: { default?: string; shown?: string } = {}) {
  return Type.Optional(Type.String({ description, ...(options.default === undefined ? {} : { default: options.default }), ...(options.shown === undefined ? {} : { 'x-shown': options.shown }) }));
}

/** One of a few words; `fallback` undefined when the default depends on other variables (`shown` says how). */
function choice<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number] | undefined, description: string, shown?: string) {
  return Type.Optional(
    Type.Union(
      values.map((value) => Type.Literal(value)),
      { ...(fallback === undefined ? {} : { default: fallback }), description, ...(shown === undefined ? {} : { 'x-shown': shown }) },
    ),
  );
}

export const ENVIRONMENT = Type.Object(
  {
  PORT: int(3000, 0, 65535, 'HTTP port (0 picks a free one)'),
    HOST: text('interface to bind; `0.0.0.0` behind a proxy or in a container', { default: '127.0.0.1' }),
    DATABASE_URL: text('PostgreSQL URL; unset = embedded PGlite in `DATA_DIR`'),
    DATABASE_DIRECT_URL: text('PostgreSQL itself when `DATABASE_URL` is a pooler in transaction mode (pgbouncer): the LISTEN connections go here (docs/operations.md, "Connection pooling")'),
    DATABASE_READ_URL: text('a streaming replica of `DATABASE_URL`: order lists, stats and the catalog\'s refresh read there, unless the partner\'s own last write is not replayed yet or the replica is down (then the primary; docs/operations.md, "Read replica")'),
    DATABASE_PREPARED_STATEMENTS: choice(['on', 'off'], undefined, 'the hot queries as named prepared statements; a transaction-mode pooler cannot carry them', '`on`; `off` with `DATABASE_DIRECT_URL`'),
    DATABASE_POOL_MAX: int(10, 1, 1000, 'PostgreSQL connections each process opens at most (through a pooler: client connections)'),
    DATABASE_CONNECT_TIMEOUT_MS: int(2000, 100, 60_000, 'how long a new PostgreSQL connection may take before the request that needs it answers 503'),
    DATABASE_START_TIMEOUT_MS: int(60_000, 0, 3_600_000, 'at start, how long an unreachable PostgreSQL is tried again (with backoff, one log line per attempt) before the process exits 1; 0 tries once'),
    SHUTDOWN_DELAY_MS: int(5000, 0, 300_000, 'on SIGTERM, how long `/readyz` answers 503 while requests are still served (each response closing its connection) before the listeners stop accepting: the load balancer\'s time to notice (docs/operations.md)'),
    SHUTDOWN_TIMEOUT_MS: int(10_000, 1000, 600_000, 'after that delay, how long in-flight requests and the workers\' current steps may take before the process exits anyway (code 1)'),
    DATA_DIR: text('PGlite files, generated secrets, demo wallet, the CLI\'s `api-url`', { default: './data' }),
    RATE_LIMIT_REDIS_TIMEOUT_MS: int(100, 10, 10_000, 'how long a request waits on the Redis rate limiter before it passes unchecked (fail open, counted in `rate_limiter_failures_total`)'),
    REDIS_URL: text('Redis for the shared rate limiter and the record of replay-proof signatures; unset = in-process memory (signatures: the database with `DATABASE_URL`)'),
    REDIS_SENTINELS: text('`host:port,…` of Redis Sentinels; every Redis client then connects to the primary they name and follows a failover (docs/adr/0053). Needs `REDIS_URL` (password, database, key prefix) and `REDIS_SENTINEL_NAME`'),
    REDIS_SENTINEL_NAME: text('the master name the sentinels monitor'),
    SIGNATURE_NONCE_REDIS_TIMEOUT_MS: int(200, 10, 10_000, 'how long a timestamped signature\'s replay check waits on Redis; past it the request is refused with 503 `unavailable` (fail closed, docs/adr/0053)'),
    OTEL_EXPORTER_OTLP_ENDPOINT: text('an OpenTelemetry collector\'s OTLP/HTTP origin (`/v1/traces` is added): the API and worker processes then trace each request through the database, the worker\'s steps on the order and the webhook deliveries (one trace, continued from the stored order and webhook events). Unset: nothing of tracing is installed'),
    OTEL_SERVICE_NAME: text('the traces\' service name', { shown: 'the process\'s role (`exchange-api`, `exchange-worker`)' }),
    SECRETS_KEY: text('32 bytes (64 hex) encrypting API secrets; required with `DATABASE_URL`', { shown: 'generated (embedded)' }),
    ADMIN_TOKEN: text('operator API bearer token (≥ 32 chars); required with `DATABASE_URL`', { shown: 'generated (embedded)' }),
    ADMIN_PORT: int(undefined, 0, 65535, 'a listener of its own for the operator API (`/admin/v1/*`, its OpenAPI document) and `/metrics`; when set, the public port answers 404 for them (it must differ from `PORT`). Unset: one listener serves both'),
    ADMIN_HOST: text('interface of the operator listener (needs `ADMIN_PORT`)', { default: '127.0.0.1' }),
    ADMIN_API_URL: text('the admin CLI only (`npm run admin`): the operator API\'s origin. Unset, the CLI reads `DATA_DIR/api-url` (written by the running server), then tries `ADMIN_PORT`, then `PORT` on 127.0.0.1'),
    ADMIN_AUTH_FAILURES_PER_MINUTE: int(10, 1, 10_000, 'failed admin-token attempts per client address per minute; past it the operator API answers 429 without comparing the token'),
    PARTNER_RATE_LIMIT_KEYS: int(2, 1, 100, 'a partner\'s keys together get this many times one key\'s `rate_limit_per_minute` (more keys add no budget)'),
    MAX_API_KEYS_PER_PARTNER: int(20, 1, 10_000, 'unrevoked keys a partner may have of each kind (live and sandbox counted apart); past it a new key is 409 `conflict` (operator API) or a form error (cabinet) until one is revoked'),
    POOL_SHARE_PCT: int(20, 1, 100, 'the share of a chain\'s deposit-address pool (SOL) one partner may hold at once, percent, at least one address: addresses of its orders with no deposit, open or ended and still watched for a late deposit (24 h); past it its order is 422 `unprocessable`'),
    MAX_OPEN_ORDERS_PER_PARTNER: int(100, 1, 1_000_000, 'orders awaiting a deposit a partner may have at once (422 `open_orders_limit` past it); a partner\'s own `max_open_orders` (operator API) overrides it'),
    REGION_BLOCKLIST: text('ISO 3166-1 alpha-2 countries (`CU,IR,KP`) whose end users are not served: an order whose `X-End-User-IP` the `geoip-country` package places there is 403 `region_restricted`. The package\'s data is loaded only when this is set (several MB, on first use) and refreshed by updating the package; an address it places nowhere (private, unallocated) is not refused by country'),
    IP_BLOCKLIST: text('IPv4 and IPv6 CIDRs (`203.0.113.0/24,2001:db8::/32`; a bare address is one address) whose end users are not served: an order whose `X-End-User-IP` is in one is 403 `region_restricted`. Neither list touches a request without `X-End-User-IP`'),
    METRICS_TOKEN: text('bearer token a `/metrics` scrape must carry; unset, only loopback scrapes with no proxy header are answered'),
    WORKER_METRICS_PORT: int(undefined, 0, 65535, '`npm run worker` serves its own `/metrics` on this port (its lag, payouts, webhook deliveries, pool; under the `METRICS_TOKEN` rule); unset, the worker serves none'),
    WORKER_METRICS_HOST: text('interface of the worker\'s metrics listener (needs `WORKER_METRICS_PORT`)', { default: '127.0.0.1' }),
    PUBLIC_URL: text('where partners reach the service (`https://exchange.example`): cabinet invitation and password reset links and the Order\'s `status_url` are built from it (unset: `status_url` is relative), and an https one makes the cabinet\'s cookies Secure; unset, links use the operator request\'s own address, and with `ADMIN_PORT` set they are refused (409). The console\'s WebAuthn security keys are bound to its host and origin (unset, or an IP address: keys are off, TOTP alone)'),
    PARTNER_MARKUP_MAX_BPS: int(300, 0, 1000, 'the highest markup a partner may set itself in the cabinet, basis points (the operator\'s own setting is not bound by it)'),
    TRUST_PROXY: text('`true`, a hop count, or addresses/CIDRs whose `X-Forwarded-For` names the client', { default: 'false' }),
    LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'what every process of the service logs, from the least'),
    LOG_REQUESTS: choice(['true', 'false'], 'true', '`false` drops the two info lines per request (received, answered); other logs stay. Behind a proxy that keeps access logs, `false` saves a large share of CPU per request (see `bench/README.md`)'),
    SHORT_ID_PREFIX: text('order short id prefix (`EX-7K2M9Q`), 1 to 8 of A-Z 0-9', { default: 'EX' }),
    CACHE_REFRESH_MS: int(5000, 100, 3_600_000, 'how often the in-memory catalog reloads (changes from other processes); also how long a key\'s row is reused (revocation and suspension reach every process at once anyway, through PostgreSQL NOTIFY)'),
    PRICE_SOURCES: text('comma list of `static` (the operator\'s table), `binance`, `coinbase`, polled in that order', { default: 'static' }),
    PRICE_POLL_SECONDS: int(15, 1, 3600, 'pause between price polls, seconds'),
    PRICE_MAX_AGE_SECONDS: int(60, 5, 86_400, 'a price older than this is not used, seconds'),
    PRICE_MAX_DEVIATION_PCT: int(5, 1, 50, 'a source further than this from the median is dropped, percent'),
    SPREAD_BPS: int(50, 0, 2000, 'the operator\'s spread on every quote, basis points'),
    FIXED_PREMIUM_BPS: int(100, 0, 2000, 'the extra charge on fixed-rate quotes, for carrying the price risk, basis points'),
    DEFAULT_MARKUP_BPS: int(50, 0, 1000, 'the markup of a quote asked without a partner key, basis points'),
    FIXED_QUOTE_TTL_SECONDS: int(300, 10, 3600, 'how long a fixed quote can be used to create an order'),
    QUOTE_SIGNING_KEY: text('32 bytes (64 hex) signing fixed quotes\' `quote_id` tokens; nothing is stored per quote', { shown: 'generated (embedded) / derived from `SECRETS_KEY`' }),
    QUOTE_SIGNING_KEY_PREVIOUS: text('the key used before a rotation: still accepted for quotes issued under it, never used to sign (docs/adr/0005-quotes-and-prices.md)'),
    'DEPOSIT_XPUB_<CHAIN>': text('account xpub of an hd chain: BTC, LTC, DOGE, ETH, BSC, TRON', { shown: 'demo (embedded)' }),
    'DEPOSIT_ADDRESS_<CHAIN>': text('the shared address of a memo chain: XRP, XLM, TON', { shown: 'demo (embedded)' }),
    'CHAIN_<CHAIN>_RPC_URL': text('JSON-RPC URL of the operator\'s own node of a chain (`http://user:pass@127.0.0.1:9332`): the chain is watched there instead of on the simulator (README, "Connecting real nodes"); the signer pays through it'),
    'HOT_WALLET_MIN_<ASSET>': text('what the signer\'s hot wallet of an asset (LTC, ETH, USDT_ERC20) should hold at least: below it, top it up (a gauge; the alert rules compare)'),
    'HOT_WALLET_MAX_<ASSET>': text('what it should hold at most: above it, sweep to cold storage; not below the minimum'),
    PAYOUT_SIGNER_CHAINS: text('with `DATABASE_URL`: the chains whose live payouts and refunds `npm run signer` makes (`BTC`, `LTC`); they are offered for live orders. Refused without `DATABASE_URL`', { shown: 'none' }),
    SIMULATE_LIVE_PAYOUTS: choice(['true', 'false'], 'false', 'with `DATABASE_URL`, a chain not in `PAYOUT_SIGNER_CHAINS` has no payout path, so its currencies are listed `is_withdraw_enabled: false` and live quotes and orders answer 422 `pair_unavailable`; `true` offers them anyway and pays them on the SIMULATOR with made-up txids (a warning at start and hourly, gauge `simulated_live_payouts` 1): for staging only. Sandbox keys are unaffected; the embedded default always simulates. A currency whose deposits are not configured (no `DEPOSIT_XPUB_*` / `DEPOSIT_ADDRESS_*`, no pool loaded) is listed `is_deposit_enabled: false`'),
    ADDRESS_RESYNC_GAP: int(100, 0, 1_000_000, 'at every start and by `npm run admin -- addresses resync`, each hd and memo chain\'s next deposit index moves to at least the highest index the database knows + 1 + this many (never back), so a restored backup never hands out an address twice; set it above the indexes drawn in a backup interval (docs/operations.md)'),
    WEB_CONCURRENCY: int(1, 1, 64, 'API processes on the one port (node:cluster), with `DATABASE_URL` only: the first also runs the in-process worker, the others serve requests; a process that dies is replaced. Embedded (PGlite, one process by design) it is ignored with a warning'),
    WORKER: choice(['in-process', 'off'], 'in-process', '`off` for API-only processes when `npm run worker` runs separately'),
    WORKER_INTERVAL_MS: int(1000, 50, 60_000, 'pause between worker passes'),
    WORKER_BATCH_SIZE: int(20, 1, 1000, 'orders the lifecycle worker claims per pass'),
    WORKER_LEASE_MS: int(30_000, 1000, 3_600_000, 'how long an order the lifecycle worker claimed is its own before another worker may take it (a worker that died), ms'),
    WORKER_MAX_ATTEMPTS: int(5, 1, 100, 'failed attempts of an order\'s exchange or payout step before the order gives up on it (a refund keeps retrying until sent)'),
    WORKER_BACKOFF_MS: int(2000, 100, 3_600_000, 'the first retry\'s delay after a failed exchange or payout step, ms; doubled per failure up to 10 minutes'),
    SIMULATOR_AUTO: choice(['0', '1'], undefined, 'simulated confirmations grow by themselves', '1 embedded, 0 otherwise'),
    SIMULATOR_CONFIRM_SECONDS: int(3, 1, 3600, 'one simulated confirmation every this many seconds'),
    FIXED_RATE_TOLERANCE_PCT: text('a fixed order proceeds if received is within this % of expected (a decimal such as 0.5)', { default: '0.5' }),
    WEBHOOK_ALLOW_PRIVATE: choice(['true', 'false'], undefined, '`true` lets webhook endpoints use http and private addresses (local development); `false` takes only https URLs whose resolved address is public', 'true embedded, false with `DATABASE_URL`'),
    WEBHOOK_TIMEOUT_MS: int(10_000, 100, 60_000, 'one webhook delivery attempt\'s bound, connection to answer'),
    WEBHOOK_CONCURRENCY: int(32, 1, 1000, 'webhook deliveries one worker has in flight at once'),
    WEBHOOK_PER_ENDPOINT: int(8, 1, 1000, 'of them, to one endpoint at most (a slow receiver does not hold up the others)'),
    SMTP_URL: text('`smtp://` or `smtps://` URL (user and password in it) the worker delivers the mail outbox through; unset: each mail is written as an .eml file under `DATA_DIR/mail/` and logged'),
    MAIL_FROM: text('the From of every mail the outbox sends', { default: 'Exchange <no-reply@localhost>' }),
    MAIL_BATCH_SIZE: int(20, 1, 1000, 'mails the mail worker claims per pass'),
    MAIL_MAX_ATTEMPTS: int(8, 1, 100, 'attempts before a mail is `failed` (8: about 2 hours of retries)'),
    MAIL_LEASE_MS: int(120_000, 1000, 3_600_000, 'how long a claimed mail is one worker\'s before another may send it, ms'),
    STREAM_PING_SECONDS: int(15, 1, 300, 'a `: ping` comment on every open status stream this often (docs/contract.md §10.11)'),
    STREAM_MAX_PER_KEY: int(1000, 1, 1_000_000, 'status streams one API key holds open on one process; past it 429'),
    STREAM_MAX_PER_ADDRESS: int(20, 1, 1_000_000, 'status streams one client address holds open on one process without a full key (the public stream, client keys); past it 429'),
    STREAM_MAX_PER_PROCESS: int(20_000, 1, 1_000_000, 'status streams one API process holds open in all; past it 429'),
    STREAM_BUFFER_BYTES: int(262_144, 4096, 67_108_864, 'a status stream whose reader leaves more than this unsent is cut (it reconnects with Last-Event-ID and misses nothing)'),
    ORDER_CACHE_SIZE: int(10_000, 0, 1_000_000, 'orders each API process keeps as GET /partner/orders/{id} answers them (least recently read out first), kept right by the order move feed, so polling an order that did not move reads no database (docs/adr/0057-order-read-cache.md; `order_read_cache_lookups_total{result="hit"|"miss"}` and `order_read_cache_orders` in /metrics); 0 keeps none'),
    ORDER_SNAPSHOT_HOURS: int(24, 1, 8760, 'how long each order version is kept for status stream resumes (Last-Event-ID); a resume past it gets the current state'),
    NODE_OPTIONS: text('Node.js\'s own options. `npm start` puts its two heap settings first, so yours come after them and win: `NODE_OPTIONS=--max-old-space-size=2048 npm start` raises the bound. They keep the API process under 200 MB resident under load (170 MB on Node 20, 190 MB on Node 24) instead of 210–310 MB: V8 grows its old space by a smaller factor, and Node 22/24\'s young generation stays at Node 20\'s size. The old-space bound is hard: a process that needs more heap dies with "JavaScript heap out of memory" (docs/adr/0017-operations.md). Running `node dist/server.js` yourself, pass them: `node --max-old-space-size=1024 --max-semi-space-size=16 dist/server.js`', { shown: '`--max-old-space-size=1024 --max-semi-space-size=16` (set by `npm start`)' }),
    REFUND_HOLD_MINUTES: int(30, 0, 10_080, 'a deposit off its fixed rate or the order\'s limits, that the pair still takes at its float rate, is held this long with the actions `continue` and `refund` before the refund proceeds; 0 refunds at once'),
  },
  { additionalProperties: true, description: 'The environment of the API, the worker and the admin CLI.' },
);

/**
 * The signer's own environment (`npm run signer`): apart, because the API and the worker refuse
 * its key file and passphrase, and the signer reads nothing of theirs but DATABASE_URL, LOG_LEVEL
 * and the chains' nodes (CHAIN_<CHAIN>_RPC_URL).
 */
export const SIGNER_ENVIRONMENT = Type.Object(
  {
    SIGNER_KEY_FILE: text('the sealed key file (`npm run signer -- init` writes it): one BIP-39 mnemonic per chain family'),
    SIGNER_PASSPHRASE: text('the key file\'s passphrase, at least 16 characters; removed from the process\'s environment once the file is read'),
    SIGNER_INTERVAL_MS: int(2000, 50, 60_000, 'pause between the signer\'s passes, ms'),
    PAYOUT_BATCH_MAX: int(50, 1, 500, 'payouts of a chain signed into one transaction at most'),
    PAYOUT_BATCH_SECONDS: int(30, 0, 3600, 'a chain\'s batch is signed at most this often, seconds'),
    PAYOUT_CONFIRMATIONS: int(1, 1, 1000, 'confirmations a payout transaction needs before its payout is confirmed'),
    SIGNER_WALLET_BIRTHDAY: int(0, 0, 4_102_444_800, 'unix seconds the node\'s watch-only wallet rescans from (0: the whole chain, once)'),
    SIGNER_FEE_TARGET_BLOCKS: int(6, 1, 1008, 'blocks the Bitcoin-family fee estimate (`estimatesmartfee`) aims at'),
    'SIGNER_FEE_RATE_MIN_<CHAIN>': text('the lowest fee rate used on a Bitcoin-family chain, sat/vB', { shown: '1' }),
    'SIGNER_FEE_RATE_MAX_<CHAIN>': text('the highest, sat/vB; not below the minimum', { shown: '500' }),
    'SIGNER_CHAIN_ID_<CHAIN>': text('the chain id an EVM chain\'s node must report, else the signer does not start'),
    'SIGNER_MIN_PRIORITY_FEE_GWEI_<CHAIN>': text('the lowest tip on an EVM chain, gwei per gas', { shown: '0.01 ETH, 0.05 BSC' }),
    'SIGNER_MAX_FEE_GWEI_<CHAIN>': text('the highest fee cap on an EVM chain, gwei per gas', { shown: '500 ETH, 50 BSC' }),
    EVM_REPLACE_AFTER_BLOCKS: int(12, 1, 10_000, 'an EVM transaction not mined this many blocks after it was sent is replaced'),
    SIGNER_FEE_MAX_BLOCK_LAG: int(2, 0, 1000, 'no fee estimate is taken from a node this many blocks behind the headers it knows'),
    'SIGNER_FEE_MAX_AGE_SECONDS_<CHAIN>': text('nor from one whose newest block is older than this, seconds (60–604800)', { shown: '7200; 600 on EVM chains' }),
    SIGNER_FEE_MAX_JUMP: text('an estimate is used at most this many times the last one used (a number above 1)', { default: '3' }),
    'SIGNER_MAX_PAYOUT_<ASSET>': text('the largest payout of an asset (`BTC`, `ETH`, a token as `USDT_ERC20`); required, with the daily maximum, for the asset to be paid'),
    'SIGNER_MAX_DAILY_<ASSET>': text('what the signer pays of an asset in a day at most'),
    'SIGNER_APPROVAL_ABOVE_<ASSET>': text('a larger payout waits in `awaiting_approval` for the operator'),
  },
  { additionalProperties: true, description: "The signer's environment." },
);

/** A variable of either schema. */
export type Variable = keyof typeof ENVIRONMENT.properties | keyof typeof SIGNER_ENVIRONMENT.properties;

/** What the readers and the README table need of one variable's schema. */
export interface VariableSchema {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  description?: string;
  'x-shown'?: string;
  anyOf?: readonly { const: string }[];
}

export function variableSchema(name: Variable): VariableSchema {
  const properties: Record<string, TSchema> = { ...ENVIRONMENT.properties, ...SIGNER_ENVIRONMENT.properties };
  return properties[name] as VariableSchema;
}
