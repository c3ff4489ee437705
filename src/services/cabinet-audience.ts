import { CABINET_TABLES, AccountTables } from '../db/repositories/account-tables-repository.js';
import { findCabinetUser, findCabinetUserByEmail } from '../db/repositories/cabinet-accounts-repository.js';
import { findSession, insertSession, type SessionWithUser } from '../db/repositories/cabinet-sessions-repository.js';
import type { CabinetUserRow } from '../db/schema/cabinet-accounts.js';
import type { AccountAudience } from './account-audience.js';

/**
 * The partner cabinet's people as an account audience (account-audience.ts): the cabinet_*
 * tables; two-factor is each person's choice, a code is asked for within 5 minutes of the
 * password; a session carries its partner.
 */
export const CABINET_AUDIENCE: AccountAudience<CabinetUserRow, SessionWithUser> = {
  tables: new AccountTables(CABINET_TABLES),
  csrfPurpose: 'cabinet csrf v1',
  totpIssuer: 'Exchange partner cabinet',
  totpContext: (personId) => `totp:${personId}`,
  secondFactorWindowMs: 5 * 60_000,
  twoFactorRequired: false,
  findPerson: findCabinetUser,
  findPersonByEmail: findCabinetUserByEmail,
  findSession,
  personOf: (found) => found.session.user_id,
  insertSession: (db, person, session) => insertSession(db, { ...session, user_id: person.id, partner_id: person.partner_id }),
};
