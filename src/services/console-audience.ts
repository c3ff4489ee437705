import { AccountTables, CONSOLE_TABLES } from '../db/repositories/account-tables-repository.js';
import { findOperatorPerson, findOperatorPersonByEmail, findOperatorSession, insertOperatorSession, type OperatorSessionWithPerson } from '../db/repositories/operator-people-repository.js';
import type { OperatorPersonRow } from '../db/schema/operator-people.js';
import type { AccountAudience } from './account-audience.js';

/**
 * The operator console's people as an account audience (account-audience.ts): the operator_*
 * tables; two-factor is required (a person without it enrols at sign-in, within 10 minutes of
 * the password); a session carries its person's name and role.
 */
export const CONSOLE_AUDIENCE: AccountAudience<OperatorPersonRow, OperatorSessionWithPerson> = {
  tables: new AccountTables(CONSOLE_TABLES),
  csrfPurpose: 'console csrf v1',
  totpIssuer: 'Exchange operator console',
  totpContext: (personId) => `operator-totp:${personId}`,
  secondFactorWindowMs: 10 * 60_000,
  twoFactorRequired: true,
  findPerson: findOperatorPerson,
  findPersonByEmail: findOperatorPersonByEmail,
  findSession: findOperatorSession,
  personOf: (found) => found.session.person_id,
  insertSession: (db, person, session) => insertOperatorSession(db, { ...session, person_id: person.id }),
};
