import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import {
  advanceTotpStep,
  countUnusedRecoveryCodes,
  deleteCabinetUser,
  disableTotp,
  enableTotp,
  findCabinetUser,
  findCabinetUserByEmail,
  findInvitation,
  findPartnerPerson,
  findPasswordReset,
  insertAccountAction,
  insertCabinetUser,
  insertInvitation,
  insertPasswordReset,
  listAccountActions,
  listPartnerPeople,
  setPasswordHash,
  type ListedPerson,
  setPendingTotpSecret,
  useInvitation,
  usePasswordReset,
  useRecoveryCode,
  voidPasswordResets,
} from '../db/repositories/cabinet-accounts-repository.js';
import {
  completeSecondFactor,
  deleteAllUserSessions,
  deleteExpiredSessions,
  deleteOtherSessions,
  deleteSession,
  deleteUserSession,
  findSession,
  insertReveal,
  insertSession,
  listUserSessions,
  takeReveal,
  touchSession,
  type ListedSession,
  type SessionWithUser,
} from '../db/repositories/cabinet-sessions-repository.js';
import type {
  CabinetAccountAction,
  CabinetAccountActionRow,
  CabinetInvitationRow,
  CabinetRevealKind,
  CabinetUserRow,
  NewCabinetAccountAction,
} from '../db/schema/cabinet-accounts.js';
import type { Database } from '../db/schema/index.js';
import { matchTotp, newTotpSecret, totpUri } from '../domain/totp.js';
import { hashPassword, passwordProblem, verifyPassword } from './cabinet-passwords.js';
import { EMAIL_PATTERN, FormTokens, normalEmail, normalRecoveryCode, RECOVERY_CODES, randomSecret as token, recoveryCode, sessionState, sha256 } from './account-secrets.js';
import type { SecretBox } from '../infrastructure/secret-box.js';

/** An invitation link works this long, once (docs/contract.md §9). */
export const INVITATION_TTL_MS = 72 * 3_600_000;
/**
 * A password reset link works this long, once: it is a way into the account while it lies in a
 * mailbox, and the operator issues a new one in a second (docs/adr/0021-partner-cabinet.md).
 */
export const PASSWORD_RESET_TTL_MS = 60 * 60_000;
/** The User-Agent kept per session: enough to tell browsers apart, never a large header. */
const USER_AGENT_MAX = 256;
/** ASVS 3.3.2 (level 2): a session ends after 30 minutes without activity, and 12 hours after sign-in whatever happens. */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** A session waiting for its TOTP code lasts this long. */
const SECOND_FACTOR_WINDOW_MS = 5 * 60_000;
/**
 * A reveal (a new secret shown once by the page a form's redirect leads to) lasts this long:
 * the browser follows the redirect at once; a page opened later shows no secret.
 */
export const REVEAL_TTL_MS = 2 * 60_000;
const TOTP_ISSUER = 'Exchange partner cabinet';

export { EMAIL_PATTERN, normalEmail };

export type InvitationState =
  | { ok: true; invitation: CabinetInvitationRow }
  | { ok: false; problem: string };

export type PasswordResetState =
  | { ok: true; id: string; userId: string; email: string; partnerId: string; clearTotp: boolean }
  | { ok: false; problem: string };

export type PasswordChangeResult = { ok: true } | { ok: false; problem: string; wrongPassword: boolean };

export type TotpConfirmResult =
  | { ok: true; codes: string[] }
  | { ok: false; problem: 'not-pending' | 'wrong-code' | 'wrong-password' };

export type SignInResult =
  | { ok: true; token: string; secondFactor: boolean }
  | { ok: false; problem: 'invalid' | 'inactive' };

/**
 * The cabinet's people and sessions (docs/contract.md §9): invitations, passwords, sign-in, sessions and
 * TOTP two-factor. Tokens handed to a browser or put in a link are 256-bit random values kept
 * only as SHA-256; the TOTP secret is sealed under SECRETS_KEY. Time comes from the clock.
 */
export class CabinetAccounts {
  private readonly forms: FormTokens;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    secretsKey: Buffer,
  ) {
    // A key of its own, so a CSRF token can never be mistaken for any other use of SECRETS_KEY.
    this.forms = new FormTokens(secretsKey, 'cabinet csrf v1');
  }

  /** A one-use invitation link for `email` to `partnerId`'s cabinet; `baseUrl` is PUBLIC_URL or the asking request's origin. */
  async invite(partnerId: string, email: string, baseUrl: string): Promise<{ url: string; expiresAt: Date }> {
    const secret = token();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    await insertInvitation(this.db, { partner_id: partnerId, email: normalEmail(email), token_hash: sha256(secret), expires_at: expiresAt, created_at: now });
    return { url: `${baseUrl}/cabinet/invitation/${secret}`, expiresAt };
  }

  /** Whether an account with this email exists already (an invitation for it would be useless). */
  async emailTaken(email: string): Promise<boolean> {
    return (await findCabinetUserByEmail(this.db, normalEmail(email))) !== undefined;
  }

  async openInvitation(secret: string): Promise<InvitationState> {
    const invitation = await findInvitation(this.db, sha256(secret));
    const gone = 'This invitation link is not valid: it was used already, has expired, or was mistyped. Ask for a new one.';
    if (invitation === undefined || invitation.used_at !== null || invitation.expires_at <= this.clock.now()) return { ok: false, problem: gone };
    return { ok: true, invitation };
  }

  /** Sets the invited person's password: creates the account and uses the invitation up. */
  async acceptInvitation(secret: string, password: string): Promise<{ ok: true; email: string } | { ok: false; problem: string }> {
    const state = await this.openInvitation(secret);
    if (!state.ok) return state;
    const { invitation } = state;
    const weak = passwordProblem(password, invitation.email);
    if (weak !== undefined) return { ok: false, problem: weak };
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      if (!(await useInvitation(tx, invitation.id, now))) return { ok: false as const, problem: 'This invitation link was used already.' };
      if ((await findCabinetUserByEmail(tx, invitation.email)) !== undefined) {
        return { ok: false as const, problem: 'An account with this email exists already: sign in with it.' };
      }
      await insertCabinetUser(tx, { partner_id: invitation.partner_id, email: invitation.email, password_hash: passwordHash, role: invitation.role, created_at: now, updated_at: now });
      return { ok: true as const, email: invitation.email };
    });
  }

  /**
   * Checks email and password (the same work whether the account exists or not) and opens a
   * session: pending its second factor when the person enrolled TOTP.
   */
  async signIn(email: string, password: string, userAgent?: string): Promise<SignInResult> {
    const user = await findCabinetUserByEmail(this.db, normalEmail(email));
    if (!(await verifyPassword(user?.password_hash, password)) || user === undefined) return { ok: false, problem: 'invalid' };
    const now = this.clock.now();
    await deleteExpiredSessions(this.db, now);
    const secondFactor = user.totp_enabled_at !== null;
    const secret = token();
    await insertSession(this.db, {
      token_hash: sha256(secret),
      user_id: user.id,
      partner_id: user.partner_id,
      second_factor_pending: secondFactor,
      user_agent: userAgent === undefined || userAgent === '' ? null : [...userAgent].slice(0, USER_AGENT_MAX).join(''),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + (secondFactor ? SECOND_FACTOR_WINDOW_MS : SESSION_ABSOLUTE_MS)),
    });
    return { ok: true, token: secret, secondFactor };
  }

  /**
   * The session a cookie names, while it lives: not past its absolute end, not idle longer
   * than SESSION_IDLE_MS (an ended one is deleted). Activity moves the idle clock.
   */
  async session(secret: string): Promise<SessionWithUser | undefined> {
    const tokenHash = sha256(secret);
    const found = await findSession(this.db, tokenHash);
    if (found === undefined) return undefined;
    const now = this.clock.now();
    const state = sessionState(found.session, now, SESSION_IDLE_MS);
    if (state === 'ended') {
      await deleteSession(this.db, tokenHash);
      return undefined;
    }
    if (state === 'touch') await touchSession(this.db, tokenHash, now);
    return found;
  }

  /**
   * The TOTP code (or a recovery code) of a session pending its second factor. Right: the
   * session opens the cabinet, for the absolute lifetime counted from sign-in.
   */
  async completeSecondFactor(secret: string, found: SessionWithUser, code: string): Promise<boolean> {
    const user = await findCabinetUser(this.db, found.session.user_id);
    if (user === undefined || !(await this.secondFactorMatches(user, code))) return false;
    const now = this.clock.now();
    await completeSecondFactor(this.db, sha256(secret), now, new Date(found.session.created_at.getTime() + SESSION_ABSOLUTE_MS));
    return true;
  }

  async signOut(secret: string): Promise<void> {
    await deleteSession(this.db, sha256(secret));
  }

  /** The person's live sessions (ASVS 3.3.4), newest first; the asking one among them. */
  sessions(userId: string): Promise<ListedSession[]> {
    const now = this.clock.now();
    return listUserSessions(this.db, userId, now, new Date(now.getTime() - SESSION_IDLE_MS));
  }

  /** Signs out one other session of the person: false when `sessionId` is none of theirs (or the asking one). */
  endSession(userId: string, sessionId: string, current: string): Promise<boolean> {
    return deleteUserSession(this.db, userId, sessionId, sha256(current));
  }

  /** Signs out every session of the person but the asking one. */
  async endOtherSessions(userId: string, current: string): Promise<void> {
    await deleteOtherSessions(this.db, userId, sha256(current));
  }

  /**
   * The person changes their password: the current one must be right, the new one as strong as
   * an invitation asks; every other session ends (ASVS 3.3.3) and open reset links are voided.
   */
  async changePassword(userId: string, current: string, next: string, keepSession: string): Promise<PasswordChangeResult> {
    const user = await findCabinetUser(this.db, userId);
    if (user === undefined || !(await verifyPassword(user.password_hash, current))) {
      return { ok: false, problem: 'Your current password is not right.', wrongPassword: true };
    }
    const weak = passwordProblem(next, user.email);
    if (weak !== undefined) return { ok: false, problem: weak, wrongPassword: false };
    const passwordHash = await hashPassword(next);
    const now = this.clock.now();
    await this.db.transaction().execute(async (tx) => {
      await setPasswordHash(tx, userId, passwordHash, now);
      await deleteOtherSessions(tx, userId, sha256(keepSession));
      await voidPasswordResets(tx, userId, now);
    });
    return { ok: true };
  }

  /**
   * The operator's one-use password reset link for the partner's person with this email
   * (undefined when the partner has nobody with it). Earlier unused links of the person are
   * voided: only the newest works.
   */
  async issuePasswordReset(
    partnerId: string,
    email: string,
    baseUrl: string,
    options: { clearTwoFactor?: boolean; ip?: string } = {},
  ): Promise<{ url: string; expiresAt: Date } | undefined> {
    const user = await findCabinetUserByEmail(this.db, normalEmail(email));
    if (user === undefined || user.partner_id !== partnerId) return undefined;
    const secret = token();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
    const clear = options.clearTwoFactor === true;
    await this.db.transaction().execute(async (tx) => {
      await voidPasswordResets(tx, user.id, now);
      await insertPasswordReset(tx, { user_id: user.id, token_hash: sha256(secret), expires_at: expiresAt, created_at: now, clear_totp: clear });
      await insertAccountAction(tx, { ...this.operatorAction(user, 'password_reset_issued', options.ip, now), clear_2fa: clear });
    });
    return { url: `${baseUrl}/cabinet/password-reset/${secret}`, expiresAt };
  }

  async openPasswordReset(secret: string): Promise<PasswordResetState> {
    const reset = await findPasswordReset(this.db, sha256(secret));
    if (reset === undefined || reset.used_at !== null || reset.expires_at <= this.clock.now()) {
      return { ok: false, problem: 'This password reset link is not valid: it was used already, has expired, was replaced by a newer one, or was mistyped. Ask the operator for a new one.' };
    }
    return { ok: true, id: reset.id, userId: reset.user_id, email: reset.email, partnerId: reset.partner_id, clearTotp: reset.clear_totp };
  }

  /**
   * Sets a new password from a reset link: the link is used up, every session of the person
   * ends (whoever held one may be why the password was reset), and TOTP enrolment stays, so
   * signing in afterwards still asks for the second factor, unless the operator issued the link
   * with clear_2fa: then two-factor is cleared as the link is used, so an authenticator a thief
   * enrolled meanwhile goes too. The use is recorded.
   */
  async resetPassword(secret: string, password: string, ip?: string): Promise<{ ok: true } | { ok: false; problem: string }> {
    const state = await this.openPasswordReset(secret);
    if (!state.ok) return state;
    const weak = passwordProblem(password, state.email);
    if (weak !== undefined) return { ok: false, problem: weak };
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      if (!(await usePasswordReset(tx, state.id, now))) return { ok: false as const, problem: 'This password reset link was used already.' };
      await setPasswordHash(tx, state.userId, passwordHash, now);
      const ended = await deleteAllUserSessions(tx, state.userId);
      await voidPasswordResets(tx, state.userId, now);
      if (state.clearTotp) await disableTotp(tx, state.userId, now);
      await insertAccountAction(tx, {
        partner_id: state.partnerId, person_id: state.userId, email: state.email, action: 'password_reset_used', actor: 'person',
        clear_2fa: state.clearTotp, sessions_ended: ended, ip: ip ?? null, at: now,
      });
      return { ok: true as const };
    });
  }

  /**
   * The CSRF token of the forms a browser is shown: an HMAC of its session token (or of its
   * pre-session cookie before sign-in), so it changes with every session and only this
   * server can make one (synchronizer token, OWASP CSRF cheat sheet).
   */
  csrfToken(anchor: string): string {
    return this.forms.token(anchor);
  }

  csrfMatches(anchor: string, presented: unknown): boolean {
    return this.forms.matches(anchor, presented);
  }

  /**
   * Records that the page the form's redirect leads to may show `subject`'s new secret once, to
   * this session only (migration 0032); returns the id the redirect names. Nothing secret is
   * stored: the page opens the key's or endpoint's own sealed secret.
   */
  offerReveal(sessionId: string, kind: CabinetRevealKind, subject: string): Promise<string> {
    const at = this.clock.now();
    return insertReveal(this.db, { sessionId, kind, subject, at, expiresAt: new Date(at.getTime() + REVEAL_TTL_MS) });
  }

  /** Takes the session's reveal once: its subject, or undefined (used, expired, another session's, or no such id). */
  takeReveal(sessionId: string, id: string, kind: CabinetRevealKind): Promise<string | undefined> {
    return takeReveal(this.db, sessionId, id, kind, this.clock.now());
  }

  /** Starts TOTP enrolment: a new secret, not yet in force; the page shows it as a QR code. */
  async beginTotp(userId: string, email: string): Promise<{ secret: string; uri: string }> {
    const secret = newTotpSecret();
    await setPendingTotpSecret(this.db, userId, this.box.seal(secret, `totp:${userId}`), this.clock.now());
    return { secret, uri: totpUri(secret, TOTP_ISSUER, email) };
  }

  /** The enrolment's secret, to show again when a code was mistyped. */
  async pendingTotp(userId: string, email: string): Promise<{ secret: string; uri: string } | undefined> {
    const user = await findCabinetUser(this.db, userId);
    if (user?.totp_secret_sealed == null || user.totp_enabled_at !== null) return undefined;
    const secret = this.box.open(user.totp_secret_sealed, `totp:${userId}`);
    return { secret, uri: totpUri(secret, TOTP_ISSUER, email) };
  }

  /**
   * Confirms enrolment with a first code and the person's current password (the
   * holder of a stolen session cannot turn two-factor on and so lock the owner out): two-factor
   * is on, other sessions of the person end, and the recovery codes are returned (shown once;
   * only their hashes are kept). The code is checked first, so a mistyped code costs no argon2
   * work and is no password guess.
   */
  async confirmTotp(userId: string, code: string, password: string, keepSession: string): Promise<TotpConfirmResult> {
    const user = await findCabinetUser(this.db, userId);
    if (user?.totp_secret_sealed == null || user.totp_enabled_at !== null) return { ok: false, problem: 'not-pending' };
    const now = this.clock.now();
    const step = matchTotp(this.box.open(user.totp_secret_sealed, `totp:${userId}`), code, now, null);
    if (step === undefined) return { ok: false, problem: 'wrong-code' };
    if (!(await verifyPassword(user.password_hash, password))) return { ok: false, problem: 'wrong-password' };
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    await this.db.transaction().execute(async (tx) => {
      await enableTotp(tx, userId, step, codes.map((c) => sha256(normalRecoveryCode(c))), now);
      await deleteOtherSessions(tx, userId, sha256(keepSession));
    });
    return { ok: true, codes };
  }

  /**
   * Turns two-factor off, on the person's password and a current code or an unused recovery
   * code (the password alone, which a stolen session may have guessed or phished,
   * is not enough). The code is checked only once the password is right, and a code is used up
   * as at sign-in. False when either is wrong, or two-factor is not on.
   */
  async disableTotp(userId: string, password: string, code: string): Promise<boolean> {
    const user = await findCabinetUser(this.db, userId);
    if (user === undefined || !(await verifyPassword(user.password_hash, password))) return false;
    if (!(await this.secondFactorMatches(user, code))) return false;
    await disableTotp(this.db, userId, this.clock.now());
    return true;
  }

  /**
   * A change that moves money (a commission payout address, docs/decisions.md "Commission
   * payouts") needs the person's password AND a current code of their authenticator: not a
   * recovery code, and not for a person without two-factor. The code is checked only once the
   * password is right, and used up as at sign-in (the same code cannot confirm twice).
   */
  async confirmWithPasswordAndCode(userId: string, password: string, code: string): Promise<'ok' | 'wrong-password' | 'wrong-code' | 'no-two-factor'> {
    const user = await findCabinetUser(this.db, userId);
    if (user === undefined || !(await verifyPassword(user.password_hash, password))) return 'wrong-password';
    if (user.totp_secret_sealed === null || user.totp_enabled_at === null) return 'no-two-factor';
    const step = matchTotp(this.box.open(user.totp_secret_sealed, `totp:${user.id}`), code, this.clock.now(), user.totp_last_step);
    return step !== undefined && (await advanceTotpStep(this.db, user.id, step)) ? 'ok' : 'wrong-code';
  }

  /** The partner's people for the operator: two-factor and live sessions each. */
  people(partnerId: string): Promise<ListedPerson[]> {
    const now = this.clock.now();
    return listPartnerPeople(this.db, partnerId, now, new Date(now.getTime() - SESSION_IDLE_MS));
  }

  /** The partner's recorded account actions (migration 0039), newest first. */
  accountActions(partnerId: string, limit: number): Promise<CabinetAccountActionRow[]> {
    return listAccountActions(this.db, partnerId, limit);
  }

  /**
   * The operator clears a person's two-factor (a lost authenticator, or one a thief enrolled):
   * the secret and the recovery codes go, and the next sign-in asks for the password only.
   * Recorded. Undefined when the partner has no such person.
   */
  async clearTwoFactor(partnerId: string, personId: string, ip: string | undefined): Promise<ListedPerson | undefined> {
    return this.onPerson(partnerId, personId, async (tx, user, now) => {
      await disableTotp(tx, user.id, now);
      await insertAccountAction(tx, { ...this.operatorAction(user, 'clear_2fa', ip, now), clear_2fa: true });
    });
  }

  /** The operator signs the person out everywhere (every session, pending second factor or not). Recorded. */
  async endSessionsOf(partnerId: string, personId: string, ip: string | undefined): Promise<ListedPerson | undefined> {
    return this.onPerson(partnerId, personId, async (tx, user, now) => {
      const ended = await deleteAllUserSessions(tx, user.id);
      await insertAccountAction(tx, { ...this.operatorAction(user, 'end_sessions', ip, now), sessions_ended: ended });
    });
  }

  /**
   * The operator removes the person: the account, its sessions, recovery codes and reset links
   * go; the record keeps who it was. False when the partner has no such person.
   */
  async removePerson(partnerId: string, personId: string, ip: string | undefined): Promise<boolean> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      const user = await findPartnerPerson(tx, partnerId, personId);
      if (user === undefined) return false;
      const ended = await deleteAllUserSessions(tx, user.id);
      await deleteCabinetUser(tx, user.id);
      await insertAccountAction(tx, { ...this.operatorAction(user, 'remove_person', ip, now), clear_2fa: user.totp_enabled_at !== null, sessions_ended: ended });
      return true;
    });
  }

  /** Runs `change` on the partner's person in a transaction, then lists them as they are now. */
  private async onPerson(
    partnerId: string,
    personId: string,
    change: (tx: Transaction<Database>, user: CabinetUserRow, now: Date) => Promise<void>,
  ): Promise<ListedPerson | undefined> {
    const now = this.clock.now();
    const done = await this.db.transaction().execute(async (tx) => {
      const user = await findPartnerPerson(tx, partnerId, personId);
      if (user === undefined) return false;
      await change(tx, user, now);
      return true;
    });
    if (!done) return undefined;
    return (await this.people(partnerId)).find((person) => person.id === personId);
  }

  /** An operator action's row, before what differs per action. */
  private operatorAction(user: CabinetUserRow, action: CabinetAccountAction, ip: string | undefined, at: Date): NewCabinetAccountAction {
    return { partner_id: user.partner_id, person_id: user.id, email: user.email, action, actor: 'operator', clear_2fa: false, sessions_ended: null, ip: ip ?? null, at };
  }

  unusedRecoveryCodes(userId: string): Promise<number> {
    return countUnusedRecoveryCodes(this.db, userId);
  }

  private async secondFactorMatches(user: CabinetUserRow, code: string): Promise<boolean> {
    if (user.totp_secret_sealed === null || user.totp_enabled_at === null) return false;
    const now = this.clock.now();
    const step = matchTotp(this.box.open(user.totp_secret_sealed, `totp:${user.id}`), code, now, user.totp_last_step);
    if (step !== undefined) return advanceTotpStep(this.db, user.id, step);
    const normal = normalRecoveryCode(code);
    return normal.length === 10 && useRecoveryCode(this.db, user.id, sha256(normal), now);
  }
}
