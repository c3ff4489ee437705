import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { Metrics } from './metrics.js';
import type { Drain } from './plugins/drain.js';
import type { PartnerAuthHooks } from './plugins/partner-auth.js';
import type { AttemptDecision, AttemptLimit } from './plugins/rate-limit.js';
import type { Runtime } from './runtime.js';
import type { CabinetAccountServices } from './services/cabinet-accounts.js';
import type { CabinetTeam } from './services/cabinet-team.js';
import type { OperatorAccountServices } from './services/operator-people.js';
import type { CabinetMail } from './services/cabinet-mail.js';
import type { Readiness } from './services/readiness.js';
import type { PartnerPayoutAddresses } from './services/partner-payout-addresses.js';

/** The Fastify instance with TypeBox schemas typing request and reply. */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * What route modules receive: every dependency named, none found through globals. The runtime's
 * services (runtime.ts) and what only the HTTP app adds.
 */
export interface Services extends Runtime {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly partnerAuth: PartnerAuthHooks;
  /** Failed operator-token attempts per client address (ADMIN_AUTH_FAILURES_PER_MINUTE). */
  readonly adminAuthAttempts: AttemptLimit;
  readonly metrics: Metrics;
  /** Readiness and its details, for /readyz and GET /admin/v1/health. */
  readonly readiness: Readiness;
  /** The partner cabinet's accounts and sessions, and its sign-in throttles (docs/contract.md §9). */
  readonly cabinet: CabinetServices;
  /** The partners' commission payout addresses (cabinet, docs/contract.md §11.6). */
  readonly payoutAddresses: PartnerPayoutAddresses;
  /** The operator's people, their sessions and tokens, and the console's sign-in throttles. */
  readonly operators: OperatorServices;
  /** Set when a graceful stop begins: /readyz turns 503 and connections close (src/plugins/drain.ts). */
  readonly drain: Drain;
}

/** The cabinet's account services (sessions, two-factor, forms, invitations, passwords, reveals, the operator's view of its people) and the rest of what its pages need. */
export interface CabinetServices extends CabinetAccountServices {
  /** The partner's own team: owners' invitations, roles, removals. */
  readonly team: CabinetTeam;
  /** Failed sign-ins (password or second factor) per client address. */
  readonly signInPerAddress: AttemptLimit;
  /** Failed sign-ins per account (the email typed, or the person at the code step). */
  readonly signInPerAccount: AttemptLimit;
  /** The mail the cabinet sends its people: invitations, password resets, sign-in and key notices. */
  readonly mail: CabinetMail;
  /** Password reset requests ("Forgot password") per client address: every request counts. */
  readonly resetPerAddress: AttemptLimit;
  /** Password reset requests per email typed. */
  readonly resetPerAccount: AttemptLimit;
  /** One request of the partner's shared rate-limit budget, spent by a cabinet action. */
  readonly partnerBudget: (partnerId: string, perKeyLimit: number) => AttemptDecision | Promise<AttemptDecision>;
}

/** The console's people, sessions, two-factor and forms, and its sign-in throttles. */
export interface OperatorServices extends OperatorAccountServices {
  /** Failed console sign-ins (password or second factor) per client address. */
  readonly signInPerAddress: AttemptLimit;
  /** Failed console sign-ins per account (the email typed, or the person at the code step). */
  readonly signInPerAccount: AttemptLimit;
}
