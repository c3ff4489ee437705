import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { SessionWithUser } from '../db/repositories/cabinet-sessions-repository.js';
import type { CabinetUserRow } from '../db/schema/cabinet-accounts.js';
import type { Database } from '../db/schema/index.js';
import type { SecretBox } from '../infrastructure/secret-box.js';
import { FormTokens } from './account-secrets.js';
import { AccountSessions } from './account-sessions.js';
import { CABINET_AUDIENCE } from './cabinet-audience.js';
import { CabinetInvitations } from './cabinet-invitations.js';
import { CabinetPasswordChanges } from './cabinet-password-changes.js';
import { PartnerPeople } from './partner-people.js';
import { SecretReveals } from './secret-reveals.js';
import { TwoFactor } from './two-factor.js';

/** The cabinet's account services, one concern each (docs/adr/0060-one-account-implementation.md). */
export interface CabinetAccountServices {
  /** Sign-in, the session a cookie names, its second step, sign-out, the person's sessions. */
  readonly sessions: AccountSessions<CabinetUserRow, SessionWithUser>;
  /** TOTP enrolment, codes, recovery codes, turning it off; password-and-code confirmations. */
  readonly twoFactor: TwoFactor<CabinetUserRow>;
  /** The CSRF tokens of the cabinet's forms (and its flash messages' MACs). */
  readonly forms: FormTokens;
  /** The operator's invitation links. */
  readonly invitations: CabinetInvitations;
  /** The person's own password change and the reset links. */
  readonly passwords: CabinetPasswordChanges;
  /** A new secret shown once by the page a form's redirect leads to. */
  readonly reveals: SecretReveals;
  /** The operator's view of and actions on a partner's people. */
  readonly people: PartnerPeople;
}

/** Builds the cabinet's account services over one database, clock and SECRETS_KEY. */
export function cabinetAccountServices(db: Kysely<Database>, clock: Clock, box: SecretBox, secretsKey: Buffer): CabinetAccountServices {
  const twoFactor = new TwoFactor(db, clock, box, CABINET_AUDIENCE);
  return {
    sessions: new AccountSessions(db, clock, CABINET_AUDIENCE, twoFactor),
    twoFactor,
    forms: new FormTokens(secretsKey, CABINET_AUDIENCE.csrfPurpose),
    invitations: new CabinetInvitations(db, clock),
    passwords: new CabinetPasswordChanges(db, clock),
    reveals: new SecretReveals(db, clock),
    people: new PartnerPeople(db, clock),
  };
}
