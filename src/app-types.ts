import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LinkBase } from './db/views/partner-order-view.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { Metrics } from './metrics.js';
import type { Drain } from './plugins/drain.js';
import type { PartnerAuthHooks } from './plugins/partner-auth.js';
import type { AttemptDecision, AttemptLimit } from './plugins/rate-limit.js';
import type { ApiKeyService } from './services/api-keys.js';
import type { CabinetAccounts } from './services/cabinet-accounts.js';
import type { CabinetTeam } from './services/cabinet-team.js';
import type { RequestLog } from './services/request-log.js';
import type { OperatorPeople } from './services/operator-people.js';
import type { CatalogChanges } from './services/catalog-changes.js';
import type { CurrencyCatalog } from './services/currency-catalog.js';
import type { ResyncedChain } from './services/deposit-index-resync.js';
import type { PriceBook } from './pricing/price-book.js';
import type { Readiness } from './services/readiness.js';
import type { QuoteService } from './services/quote-service.js';
import type { OrderService } from './services/order-service.js';
import type { OrderReads } from './services/order-reads.js';
import type { OrderActions } from './services/order-actions.js';
import type { PartnerStats } from './services/partner-stats.js';
import type { LedgerReports } from './services/ledger-reports.js';
import type { Treasury } from './services/treasury.js';
import type { OrderLifecycle } from './services/order-lifecycle.js';
import type { LifecycleWorker } from './worker/lifecycle-worker.js';
import type { WebhookEndpoints } from './services/webhook-endpoints.js';
import type { WebhookWorker } from './worker/webhook-worker.js';
import type { OrderStreams } from './services/order-streams.js';
import type { CommissionPayouts } from './services/commission-payouts.js';
import type { Mailer } from './services/mailer.js';
import type { PartnerPayoutAddresses } from './services/partner-payout-addresses.js';

/** The Fastify instance with TypeBox schemas typing request and reply. */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What route modules receive: every dependency named, none found through globals. */
export interface Services {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  /** Where the Order's links begin (status_url, docs/contract.md §10.10): PUBLIC_URL, or '' (relative). */
  readonly linkBase: LinkBase;
  readonly catalog: CurrencyCatalog;
  /** Tells every process the catalog changed (docs/contract.md §12: coins added and edited at run time). */
  readonly catalogChanges: CatalogChanges;
  readonly apiKeys: ApiKeyService;
  readonly partnerAuth: PartnerAuthHooks;
  /** Failed operator-token attempts per client address (ADMIN_AUTH_FAILURES_PER_MINUTE). */
  readonly adminAuthAttempts: AttemptLimit;
  readonly metrics: Metrics;
  readonly prices: PriceBook;
  readonly quotes: QuoteService;
  readonly orders: OrderService;
  /** GET order and the public status read, from this process's order read cache when it can (docs/adr/0057-order-read-cache.md). */
  readonly orderReads: OrderReads;
  readonly lifecycle: OrderLifecycle;
  /** The order actions of docs/contract.md §7.5 (partner and operator routes). */
  readonly orderActions: OrderActions;
  /** Partner stats and the commission report (docs/contract.md §7.8). */
  readonly partnerStats: PartnerStats;
  /** The ledger's trial balance and entries (docs/contract.md §11.5). */
  readonly ledger: LedgerReports;
  /** The treasury view, operators' transfers and treasury_drift (docs/contract.md §11.5). */
  readonly treasury: Treasury;
  readonly worker: LifecycleWorker;
  /** Webhook endpoints and delivery logs (docs/contract.md §8). */
  readonly webhooks: WebhookEndpoints;
  readonly webhookWorker: WebhookWorker;
  /** The partner's request log (services/request-log.ts). */
  readonly requestLog: RequestLog;
  /** Queues mail in the caller's transaction (docs/decisions.md, "Mail outbox"). */
  readonly mailer: Mailer;
  /** Commission payouts per period (docs/contract.md §11.6). */
  readonly commissionPayouts: CommissionPayouts;
  /** The status streams this process holds open (docs/contract.md §10.11). */
  readonly orderStreams: OrderStreams;
  /** Readiness and its details, for /readyz and GET /admin/v1/health. */
  readonly readiness: Readiness;
  /** After a restore: each chain's next deposit index past the known ones plus ADDRESS_RESYNC_GAP (runtime.ts). */
  readonly resyncDepositIndexes: () => Promise<ResyncedChain[]>;
  /** The partner cabinet's accounts and sessions, and its sign-in throttles (docs/contract.md §9). */
  readonly cabinet: CabinetServices;
  /** The partners' commission payout addresses (cabinet, docs/contract.md §11.6). */
  readonly payoutAddresses: PartnerPayoutAddresses;
  /** The operator's people, their sessions and tokens, and the console's sign-in throttles. */
  readonly operators: OperatorServices;
  /** Set when a graceful stop begins: /readyz turns 503 and connections close (src/plugins/drain.ts). */
  readonly drain: Drain;
}

export interface CabinetServices {
  readonly accounts: CabinetAccounts;
  /** The partner's own team: owners' invitations, roles, removals. */
  readonly team: CabinetTeam;
  /** Failed sign-ins (password or second factor) per client address. */
  readonly signInPerAddress: AttemptLimit;
  /** Failed sign-ins per account (the email typed, or the person at the code step). */
  readonly signInPerAccount: AttemptLimit;
  /** One request of the partner's shared rate-limit budget, spent by a cabinet action. */
  readonly partnerBudget: (partnerId: string, perKeyLimit: number) => AttemptDecision | Promise<AttemptDecision>;
}

export interface OperatorServices {
  readonly people: OperatorPeople;
  /** Failed console sign-ins (password or second factor) per client address. */
  readonly signInPerAddress: AttemptLimit;
  /** Failed console sign-ins per account (the email typed, or the person at the code step). */
  readonly signInPerAccount: AttemptLimit;
}
