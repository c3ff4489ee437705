import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import {
  advanceOperatorTotpStep,
  clearOperatorTotp,
  completeOperatorSecondFactor,
  countOperatorAdmins,
  deleteExpiredOperatorSessions,
  deleteOperatorPerson,
  deleteOperatorSession,
  deleteOperatorSessions,
  enableOperatorTotp,
  findOperatorInvitation,
  findOperatorPerson,
  findOperatorPersonByEmail,
  findOperatorSession,
  findOperatorToken,
  insertOperatorInvitation,
  insertOperatorPerson,
  insertOperatorSession,
  insertOperatorToken,
  listOperatorPeople,
  listOperatorTokens,
  revokeOperatorToken,
  setOperatorPassword,
  setOperatorPendingTotp,
  setOperatorRole,
  touchOperatorSession,
  touchOperatorToken,
  useOperatorInvitation,
  useOperatorRecoveryCode,
  type FoundOperatorInvitation,
  type ListedOperatorPerson,
  type ListedOperatorToken,
  type OperatorSessionWithPerson,
} from '../db/repositories/operator-people-repository.js';
import type { Database } from '../db/schema/index.js';
import type { OperatorPersonRow } from '../db/schema/operator-people.js';
import { lesserRole, roleAtLeast, type OperatorRole } from '../domain/operator-roles.js';
import { matchTotp, newTotpSecret, totpUri } from '../domain/totp.js';
import {
  FormTokens,
  normalEmail,
  normalRecoveryCode,
  randomSecret,
  RECOVERY_CODES,
  recoveryCode,
  SECRET_SHAPE,
  sessionState,
  sha256,
  TOUCH_EVERY_MS,
} from './account-secrets.js';
import { INVITATION_TTL_MS, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './cabinet-accounts.js';
import { hashPassword, passwordProblem, verifyPassword } from './cabinet-passwords.js';
import type { SecretBox } from '../infrastructure/secret-box.js';

/** A session waiting for its code or its enrolment lasts this long. */
const SECOND_FACTOR_WINDOW_MS = 10 * 60_000;
const USER_AGENT_MAX = 256;
const TOTP_ISSUER = 'Exchange operator console';
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

export type OperatorSignIn = { ok: true; token: string; enrolled: boolean } | { ok: false };

/**
 * The people who run the exchange (docs/decisions.md, "Operator console"): invitations,
 * passwords (argon2id, the cabinet's rules), sessions with the cabinet's idle and absolute
 * limits, TOTP two-factor that every person must enrol before anything opens, and personal
 * API tokens for the operator API. Secrets in links, cookies and tokens are kept as SHA-256
 * only (account-secrets.ts); the TOTP secret is sealed under SECRETS_KEY.
 */
export class OperatorPeople {
  private readonly forms: FormTokens;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    secretsKey: Buffer,
  ) {
    this.forms = new FormTokens(secretsKey, 'console csrf v1');
  }

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
      await setOperatorPassword(tx, found.person_id, passwordHash, now);
      return { ok: true as const, email: found.email };
    });
  }

  private async liveInvitation(secret: string): Promise<FoundOperatorInvitation | undefined> {
    const found = SECRET_SHAPE.test(secret) ? await findOperatorInvitation(this.db, sha256(secret)) : undefined;
    return found === undefined || found.used_at !== null || found.expires_at <= this.clock.now() ? undefined : found;
  }

  /**
   * Checks email and password (the same work whether the account exists or not) and opens a
   * session pending its second factor, always: `enrolled` says whether the next step asks for a
   * code or enrols an authenticator first.
   */
  async signIn(email: string, password: string, userAgent?: string): Promise<OperatorSignIn> {
    const person = await findOperatorPersonByEmail(this.db, normalEmail(email));
    const stored = person?.password_hash ?? undefined;
    if (!(await verifyPassword(stored, password)) || person === undefined) return { ok: false };
    const now = this.clock.now();
    await deleteExpiredOperatorSessions(this.db, now);
    const secret = randomSecret();
    await insertOperatorSession(this.db, {
      token_hash: sha256(secret),
      person_id: person.id,
      second_factor_pending: true,
      user_agent: userAgent === undefined || userAgent === '' ? null : [...userAgent].slice(0, USER_AGENT_MAX).join(''),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SECOND_FACTOR_WINDOW_MS),
    });
    return { ok: true, token: secret, enrolled: person.totp_enabled_at !== null };
  }

  /** The live session a cookie names (idle or past its end: deleted, undefined). */
  async session(secret: string): Promise<OperatorSessionWithPerson | undefined> {
    if (!SECRET_SHAPE.test(secret)) return undefined;
    const tokenHash = sha256(secret);
    const found = await findOperatorSession(this.db, tokenHash);
    if (found === undefined) return undefined;
    const now = this.clock.now();
    const state = sessionState(found.session, now, SESSION_IDLE_MS);
    if (state === 'ended') {
      await deleteOperatorSession(this.db, tokenHash);
      return undefined;
    }
    if (state === 'touch') await touchOperatorSession(this.db, tokenHash, now);
    return found;
  }

  /** The code (or a recovery code) of a session pending its second factor: right, the session opens the console. */
  async completeSecondFactor(secret: string, found: OperatorSessionWithPerson, code: string): Promise<boolean> {
    const person = await findOperatorPerson(this.db, found.session.person_id);
    if (person === undefined || !(await this.secondFactorMatches(person, code))) return false;
    await this.openSession(secret, found);
    return true;
  }

  /** Starts (or shows again) the enrolment of a person who has no second factor yet. */
  async enrolment(personId: string): Promise<{ secret: string; uri: string } | undefined> {
    const person = await findOperatorPerson(this.db, personId);
    if (person === undefined || person.totp_enabled_at !== null) return undefined;
    let secret: string;
    if (person.totp_secret_sealed === null) {
      secret = newTotpSecret();
      await setOperatorPendingTotp(this.db, personId, this.box.seal(secret, `operator-totp:${personId}`), this.clock.now());
    } else {
      secret = this.box.open(person.totp_secret_sealed, `operator-totp:${personId}`);
    }
    return { secret, uri: totpUri(secret, TOTP_ISSUER, person.email) };
  }

  /**
   * Confirms the enrolment with a first code, during a sign-in (the password was given moments
   * ago): two-factor is on, the session opens, other sessions end, and the recovery codes are
   * returned (shown once; their hashes kept).
   */
  async confirmEnrolment(secret: string, found: OperatorSessionWithPerson, code: string): Promise<{ ok: true; codes: string[] } | { ok: false }> {
    const person = await findOperatorPerson(this.db, found.session.person_id);
    if (person?.totp_secret_sealed == null || person.totp_enabled_at !== null) return { ok: false };
    const now = this.clock.now();
    const step = matchTotp(this.box.open(person.totp_secret_sealed, `operator-totp:${person.id}`), code, now, null);
    if (step === undefined) return { ok: false };
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    await this.db.transaction().execute(async (tx) => {
      await enableOperatorTotp(tx, person.id, step, codes.map((c) => sha256(normalRecoveryCode(c))), now);
      await deleteOperatorSessions(tx, person.id, sha256(secret));
    });
    await this.openSession(secret, found);
    return { ok: true, codes };
  }

  async signOut(secret: string): Promise<void> {
    if (SECRET_SHAPE.test(secret)) await deleteOperatorSession(this.db, sha256(secret));
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

  /** Clears a person's two-factor (a lost phone): every session ends, the next sign-in enrols again. */
  async clearTwoFactor(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const person = await findOperatorPerson(tx, id);
      if (person === undefined) return false;
      await clearOperatorTotp(tx, id, this.clock.now());
      await deleteOperatorSessions(tx, id);
      return true;
    });
  }

  /** Signs the person out everywhere: how many sessions ended. */
  endSessions(id: string): Promise<number> {
    return deleteOperatorSessions(this.db, id);
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

  csrfToken(anchor: string): string {
    return this.forms.token(anchor);
  }

  csrfMatches(anchor: string, presented: unknown): boolean {
    return this.forms.matches(anchor, presented);
  }

  private async openSession(secret: string, found: OperatorSessionWithPerson): Promise<void> {
    const now = this.clock.now();
    await completeOperatorSecondFactor(this.db, sha256(secret), now, new Date(found.session.created_at.getTime() + SESSION_ABSOLUTE_MS));
  }

  private async secondFactorMatches(person: OperatorPersonRow, code: string): Promise<boolean> {
    if (person.totp_secret_sealed === null || person.totp_enabled_at === null) return false;
    const now = this.clock.now();
    const step = matchTotp(this.box.open(person.totp_secret_sealed, `operator-totp:${person.id}`), code, now, person.totp_last_step);
    if (step !== undefined) return advanceOperatorTotpStep(this.db, person.id, step);
    const normal = normalRecoveryCode(code);
    return normal.length === 10 && useOperatorRecoveryCode(this.db, person.id, sha256(normal), now);
  }
}
