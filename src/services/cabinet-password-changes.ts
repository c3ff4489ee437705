import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { CABINET_AUDIENCE } from './cabinet-audience.js';
import { findCabinetUser, findCabinetUserByEmail, findPasswordReset, insertAccountAction, insertPasswordReset, usePasswordReset, voidPasswordResets } from '../db/repositories/cabinet-accounts-repository.js';
import type { Database } from '../db/schema/index.js';
import { normalEmail, randomSecret, sha256 } from './account-secrets.js';
import { hashPassword, passwordProblem, verifyPassword } from './cabinet-passwords.js';
import { operatorAction } from './partner-people.js';

/**
 * A password reset link works this long, once: it is a way into the account while it lies in a
 * mailbox, and the operator issues a new one in a second (docs/adr/0021-partner-cabinet.md).
 */
export const PASSWORD_RESET_TTL_MS = 60 * 60_000;

export type PasswordResetState =
  | { ok: true; id: string; userId: string; email: string; partnerId: string; clearTotp: boolean }
  | { ok: false; problem: string };

export type PasswordChangeResult = { ok: true } | { ok: false; problem: string; wrongPassword: boolean };

/**
 * A cabinet person's password after their invitation: their own change (the current password
 * asked), and the one-use reset links the operator (or "Forgot password") issues. Either way
 * the person's other sessions end and older reset links are voided.
 */
export class CabinetPasswordChanges {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * The person changes their password: the current one must be right, the new one as strong as
   * an invitation asks; every other session ends (ASVS 3.3.3) and open reset links are voided.
   */
  async change(userId: string, current: string, next: string, keepSession: string): Promise<PasswordChangeResult> {
    const user = await findCabinetUser(this.db, userId);
    if (user === undefined || !(await verifyPassword(user.password_hash, current))) {
      return { ok: false, problem: 'Your current password is not right.', wrongPassword: true };
    }
    const weak = passwordProblem(next, user.email);
    if (weak !== undefined) return { ok: false, problem: weak, wrongPassword: false };
    const passwordHash = await hashPassword(next);
    const now = this.clock.now();
    await this.db.transaction().execute(async (tx) => {
      await CABINET_AUDIENCE.tables.setPasswordHash(tx, userId, passwordHash, now);
      await CABINET_AUDIENCE.tables.deleteSessions(tx, userId, sha256(keepSession));
      await voidPasswordResets(tx, userId, now);
    });
    return { ok: true };
  }

  /**
   * The operator's one-use password reset link for the partner's person with this email
   * (undefined when the partner has nobody with it). Earlier unused links of the person are
   * voided: only the newest works.
   */
  async issueReset(
    partnerId: string,
    email: string,
    baseUrl: string,
    options: { clearTwoFactor?: boolean; ip?: string } = {},
  ): Promise<{ url: string; expiresAt: Date } | undefined> {
    const user = await findCabinetUserByEmail(this.db, normalEmail(email));
    if (user === undefined || user.partner_id !== partnerId) return undefined;
    const secret = randomSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
    const clear = options.clearTwoFactor === true;
    await this.db.transaction().execute(async (tx) => {
      await voidPasswordResets(tx, user.id, now);
      await insertPasswordReset(tx, { user_id: user.id, token_hash: sha256(secret), expires_at: expiresAt, created_at: now, clear_totp: clear });
      await insertAccountAction(tx, { ...operatorAction(user, 'password_reset_issued', options.ip, now), clear_2fa: clear });
    });
    return { url: `${baseUrl}/cabinet/password-reset/${secret}`, expiresAt };
  }

  async openReset(secret: string): Promise<PasswordResetState> {
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
  async reset(secret: string, password: string, ip?: string): Promise<{ ok: true } | { ok: false; problem: string }> {
    const state = await this.openReset(secret);
    if (!state.ok) return state;
    const weak = passwordProblem(password, state.email);
    if (weak !== undefined) return { ok: false, problem: weak };
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      if (!(await usePasswordReset(tx, state.id, now))) return { ok: false as const, problem: 'This password reset link was used already.' };
      await CABINET_AUDIENCE.tables.setPasswordHash(tx, state.userId, passwordHash, now);
      const ended = await CABINET_AUDIENCE.tables.deleteSessions(tx, state.userId);
      await voidPasswordResets(tx, state.userId, now);
      if (state.clearTotp) await CABINET_AUDIENCE.tables.clearTotp(tx, state.userId, now);
      await insertAccountAction(tx, {
        partner_id: state.partnerId, person_id: state.userId, email: state.email, action: 'password_reset_used', actor: 'person',
        clear_2fa: state.clearTotp, sessions_ended: ended, ip: ip ?? null, at: now,
      });
      return { ok: true as const };
    });
  }
}
