import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import {
  countOperatorAdmins,
  deleteOperatorPerson,
  findOperatorInvitation,
  findOperatorPerson,
  findOperatorPersonByEmail,
  findOperatorToken,
  insertOperatorInvitation,
  insertOperatorPerson,
  insertOperatorToken,
  listOperatorPeople,
  listOperatorTokens,
  revokeOperatorToken,
  setOperatorRole,
  touchOperatorToken,
  useOperatorInvitation,
  type FoundOperatorInvitation,
  type ListedOperatorPerson,
  type ListedOperatorToken,
  type OperatorSessionWithPerson,
} from '../db/repositories/operator-people-repository.js';
import { deleteOperatorSecurityKeys } from '../db/repositories/operator-security-keys-repository.js';
import type { Database } from '../db/schema/index.js';
import type { OperatorPersonRow } from '../db/schema/operator-people.js';
import { lesserRole, roleAtLeast, type OperatorRole } from '../domain/operator-roles.js';
import type { SecretBox } from '../infrastructure/secret-box.js';
import { INVITATION_TTL_MS, SESSION_IDLE_MS } from './account-audience.js';
import { FormTokens, normalEmail, randomSecret, SECRET_SHAPE, sha256, TOUCH_EVERY_MS } from './account-secrets.js';
import { AccountSessions } from './account-sessions.js';
import { hashPassword, passwordProblem } from './cabinet-passwords.js';
import { CONSOLE_AUDIENCE } from './console-audience.js';
import { OperatorSecurityKeys, type RelyingParty } from './operator-security-keys.js';
import { TwoFactor } from './two-factor.js';

/** A personal API token: `opt_` and 43 base64url characters (256 bits). */
export const OPERATOR_TOKEN_PREFIX = 'opt_';
const OPERATOR_TOKEN_SHAPE = /^opt_[A-Za-z0-9_-]{43}$/;

/** Who an operator request is: its audit actor and the role it acts with. */
export interface OperatorIdentity {
  /** `person:<email>`, or `token:ADMIN_TOKEN` for the bootstrap token. */
  actor: string;
  role: OperatorRole;
  /** The person's id; undefined for the bootstrap token. */
  personId?: string;
}

const INVITATION_GONE = 'This invitation link is not valid: it was used already, was replaced by a newer one, has expired, or was mistyped. Ask an admin for a new one.';

export const personActor = (email: string): string => `person:${email}`;

/**
 * The people who run the exchange (docs/adr/0048-operator-people-roles-and-personal-tokens.md):
 * invitations, roles, removal, clearing two-factor, and personal API tokens for the operator
 * API. Their sessions, passwords and TOTP two-factor (required before anything opens) are the
 * shared account implementation (account-sessions.ts, two-factor.ts) over the operator_* tables.
 * Secrets in links and tokens are kept as SHA-256 only.
 */
export class OperatorPeople {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * Invites `email` with `role`: a new person, or a new link for one who has not used theirs
   * (the role and name are updated). A conflict when someone with this email signs in already.
   */
  async invite(
    input: { email: string; role: OperatorRole; name?: string | undefined },
    baseUrl: string,
  ): Promise<{ ok: true; personId: string; url: string; expiresAt: Date } | { ok: false; problem: 'exists' }> {
    const email = normalEmail(input.email);
    const secret = randomSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    const name = input.name === undefined || input.name.trim() === '' ? null : input.name.trim();
    const result = await this.db.transaction().execute(async (tx) => {
      let person = await findOperatorPersonByEmail(tx, email);
      if (person?.password_hash != null) return undefined;
      if (person === undefined) {
        person = await insertOperatorPerson(tx, { email, name, role: input.role, password_hash: null, created_at: now, updated_at: now });
      } else {
        await setOperatorRole(tx, person.id, input.role, now);
      }
      await insertOperatorInvitation(tx, { person_id: person.id, token_hash: sha256(secret), expires_at: expiresAt, created_at: now });
      return person.id;
    });
    if (result === undefined) return { ok: false, problem: 'exists' };
    return { ok: true, personId: result, url: `${baseUrl}/console/invitation/${secret}`, expiresAt };
  }

  async openInvitation(secret: string): Promise<{ ok: true; email: string } | { ok: false; problem: string }> {
    const found = await this.liveInvitation(secret);
    return found === undefined ? { ok: false, problem: INVITATION_GONE } : { ok: true, email: found.email };
  }

  /** Sets the invited person's password and uses the link up. */
  async acceptInvitation(secret: string, password: string): Promise<{ ok: true; email: string } | { ok: false; problem: string }> {
    const found = await this.liveInvitation(secret);
    if (found === undefined) return { ok: false, problem: INVITATION_GONE };
    const weak = passwordProblem(password, found.email);
    if (weak !== undefined) return { ok: false, problem: weak };
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      if (!(await useOperatorInvitation(tx, found.id, now))) return { ok: false as const, problem: INVITATION_GONE };
      await CONSOLE_AUDIENCE.tables.setPasswordHash(tx, found.person_id, passwordHash, now);
      return { ok: true as const, email: found.email };
    });
  }

  private async liveInvitation(secret: string): Promise<FoundOperatorInvitation | undefined> {
    const found = SECRET_SHAPE.test(secret) ? await findOperatorInvitation(this.db, sha256(secret)) : undefined;
    return found === undefined || found.used_at !== null || found.expires_at <= this.clock.now() ? undefined : found;
  }

  people(): Promise<ListedOperatorPerson[]> {
    const now = this.clock.now();
    return listOperatorPeople(this.db, now, new Date(now.getTime() - SESSION_IDLE_MS));
  }

  person(id: string): Promise<OperatorPersonRow | undefined> {
    return findOperatorPerson(this.db, id);
  }

  /**
   * Changes a person's role. Refused when it would leave no admin who can sign in (the console
   * would have nobody to manage people; the bootstrap token could still make one).
   */
  async changeRole(id: string, role: OperatorRole): Promise<{ ok: true; before: OperatorRole } | { ok: false; problem: string }> {
    return this.db.transaction().execute(async (tx) => {
      const person = await findOperatorPerson(tx, id);
      if (person === undefined) return { ok: false as const, problem: 'There is no such person.' };
      if (person.role === 'admin' && role !== 'admin' && person.password_hash !== null && (await countOperatorAdmins(tx)) <= 1) {
        return { ok: false as const, problem: 'This is the last admin: make someone else admin first.' };
      }
      await setOperatorRole(tx, id, role, this.clock.now());
      return { ok: true as const, before: person.role };
    });
  }

  /** Removes a person (sessions, tokens and codes go with them); never the last admin. */
  async remove(id: string): Promise<{ ok: true; email: string } | { ok: false; problem: string }> {
    return this.db.transaction().execute(async (tx) => {
      const person = await findOperatorPerson(tx, id);
      if (person === undefined) return { ok: false as const, problem: 'There is no such person.' };
      if (person.role === 'admin' && person.password_hash !== null && (await countOperatorAdmins(tx)) <= 1) {
        return { ok: false as const, problem: 'This is the last admin: make someone else admin first.' };
      }
      await deleteOperatorPerson(tx, id);
      return { ok: true as const, email: person.email };
    });
  }

  /**
   * Clears a person's two-factor (a lost phone or key): TOTP and every security key go, every
   * session ends, the next sign-in enrols again. Keys go too, so that what an admin clears is all
   * of the person's second factors (a key left behind would still sign in as one).
   */
  async clearTwoFactor(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const person = await findOperatorPerson(tx, id);
      if (person === undefined) return false;
      await CONSOLE_AUDIENCE.tables.clearTotp(tx, id, this.clock.now());
      await deleteOperatorSecurityKeys(tx, id);
      await CONSOLE_AUDIENCE.tables.deleteSessions(tx, id);
      return true;
    });
  }

  /** Signs the person out everywhere: how many sessions ended. */
  endSessions(id: string): Promise<number> {
    return CONSOLE_AUDIENCE.tables.deleteSessions(this.db, id);
  }

  /**
   * A personal API token for the operator API, acting with `role` at most (never more than the
   * person's own role, now or later). The token is returned once; only its hash is kept.
   */
  async createToken(personId: string, label: string, role: OperatorRole): Promise<{ ok: true; id: string; token: string } | { ok: false; problem: string }> {
    const person = await findOperatorPerson(this.db, personId);
    if (person === undefined) return { ok: false, problem: 'There is no such person.' };
    if (!roleAtLeast(person.role, role)) return { ok: false, problem: `A token cannot do more than your role (${person.role}).` };
    const cleanLabel = label.trim();
    if (cleanLabel.length < 1 || cleanLabel.length > 100) return { ok: false, problem: 'Give the token a label of 1 to 100 characters.' };
    const token = `${OPERATOR_TOKEN_PREFIX}${randomSecret()}`;
    const id = await insertOperatorToken(this.db, { person_id: personId, label: cleanLabel, role, token_hash: sha256(token), created_at: this.clock.now() });
    return { ok: true, id, token };
  }

  tokens(personId: string): Promise<ListedOperatorToken[]> {
    return listOperatorTokens(this.db, personId);
  }

  revokeToken(personId: string, id: string): Promise<boolean> {
    return revokeOperatorToken(this.db, personId, id, this.clock.now());
  }

  /** Whether `presented` looks like a personal token (else it is not looked up). */
  static isTokenShaped(presented: string): boolean {
    return OPERATOR_TOKEN_SHAPE.test(presented);
  }

  /**
   * The identity a personal token gives: its person, with the lesser of the token's role and
   * the person's current one; undefined when revoked, unknown, or its person has no second
   * factor (cleared two-factor suspends the person's tokens until they enrol again).
   */
  async authenticateToken(presented: string): Promise<OperatorIdentity | undefined> {
    if (!OperatorPeople.isTokenShaped(presented)) return undefined;
    const found = await findOperatorToken(this.db, sha256(presented));
    if (found === undefined) return undefined;
    const now = this.clock.now();
    if (found.last_used_at === null || now.getTime() - found.last_used_at.getTime() >= TOUCH_EVERY_MS) await touchOperatorToken(this.db, found.id, now);
    return { actor: personActor(found.email), role: lesserRole(found.role, found.person_role), personId: found.person_id };
  }
}

/** The console's account services: its people, their security keys, and the shared sessions, two-factor and form tokens over the operator_* tables. */
export interface OperatorAccountServices {
  readonly people: OperatorPeople;
  readonly sessions: AccountSessions<OperatorPersonRow, OperatorSessionWithPerson>;
  readonly twoFactor: TwoFactor<OperatorPersonRow>;
  /** WebAuthn security keys, a second factor beside TOTP (the console's people only). */
  readonly securityKeys: OperatorSecurityKeys;
  readonly forms: FormTokens;
}

/** `relyingParty`: where security keys are bound (relyingPartyOf(PUBLIC_URL)); undefined turns them off. */
export function operatorAccountServices(db: Kysely<Database>, clock: Clock, box: SecretBox, secretsKey: Buffer, relyingParty: RelyingParty | undefined): OperatorAccountServices {
  const twoFactor = new TwoFactor(db, clock, box, CONSOLE_AUDIENCE);
  return {
    people: new OperatorPeople(db, clock),
    sessions: new AccountSessions(db, clock, CONSOLE_AUDIENCE, twoFactor),
    twoFactor,
    securityKeys: new OperatorSecurityKeys(db, clock, relyingParty),
    forms: new FormTokens(secretsKey, CONSOLE_AUDIENCE.csrfPurpose),
  };
}
