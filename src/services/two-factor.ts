import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema/index.js';
import { matchTotp, newTotpSecret, totpUri } from '../domain/totp.js';
import type { SecretBox } from '../infrastructure/secret-box.js';
import type { AccountAudience, AccountPerson, FoundSession } from './account-audience.js';
import { normalRecoveryCode, RECOVERY_CODES, recoveryCode, sha256 } from './account-secrets.js';
import { verifyPassword } from './cabinet-passwords.js';

export type TotpConfirmResult =
  | { ok: true; codes: string[] }
  | { ok: false; problem: 'not-pending' | 'wrong-code' | 'wrong-password' };

/**
 * TOTP two-factor of one audience's people (account-audience.ts): enrolment, confirmation with
 * recovery codes, codes at sign-in (each step once, recovery codes once) and turning it off.
 * The secret is sealed under SECRETS_KEY with the audience's associated data; recovery codes
 * are kept as SHA-256 only. Time comes from the clock.
 */
export class TwoFactor<P extends AccountPerson> {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly audience: Pick<AccountAudience<P, FoundSession>, 'tables' | 'totpIssuer' | 'totpContext' | 'findPerson'>,
  ) {}

  /** Starts enrolment: a new secret, not yet in force; the page shows it as a QR code. */
  async begin(personId: string, email: string): Promise<{ secret: string; uri: string }> {
    const secret = newTotpSecret();
    await this.audience.tables.setPendingTotp(this.db, personId, this.box.seal(secret, this.audience.totpContext(personId)), this.clock.now());
    return { secret, uri: totpUri(secret, this.audience.totpIssuer, email) };
  }

  /** The enrolment's secret, to show again when a code was mistyped; undefined when none is pending. */
  async pending(personId: string): Promise<{ secret: string; uri: string } | undefined> {
    const person = await this.audience.findPerson(this.db, personId);
    if (person?.totp_secret_sealed == null || person.totp_enabled_at !== null) return undefined;
    const secret = this.box.open(person.totp_secret_sealed, this.audience.totpContext(personId));
    return { secret, uri: totpUri(secret, this.audience.totpIssuer, person.email) };
  }

  /** The pending enrolment of a person who has no second factor yet, begun on first sight. */
  async enrolment(personId: string): Promise<{ secret: string; uri: string } | undefined> {
    const person = await this.audience.findPerson(this.db, personId);
    if (person === undefined || person.totp_enabled_at !== null) return undefined;
    return person.totp_secret_sealed === null ? this.begin(personId, person.email) : this.pending(personId);
  }

  /**
   * Confirms enrolment with a first code and the person's current password (the holder of a
   * stolen session cannot turn two-factor on and so lock the owner out): two-factor is on, the
   * person's other sessions end, and the recovery codes are returned (shown once; only their
   * hashes are kept). The code is checked first, so a mistyped code costs no argon2 work and is
   * no password guess.
   */
  confirm(personId: string, code: string, password: string, keepSession: string): Promise<TotpConfirmResult> {
    return this.confirmEnrolment(personId, code, keepSession, password);
  }

  /**
   * Confirms the enrolment of a person signing in (where it is required: the password was given
   * moments ago, on this session): as `confirm`, without asking for the password again.
   */
  confirmWhileSigningIn(personId: string, code: string, keepSession: string): Promise<TotpConfirmResult> {
    return this.confirmEnrolment(personId, code, keepSession, undefined);
  }

  private async confirmEnrolment(personId: string, code: string, keepSession: string, password: string | undefined): Promise<TotpConfirmResult> {
    const person = await this.audience.findPerson(this.db, personId);
    if (person?.totp_secret_sealed == null || person.totp_enabled_at !== null) return { ok: false, problem: 'not-pending' };
    const now = this.clock.now();
    const step = matchTotp(this.box.open(person.totp_secret_sealed, this.audience.totpContext(personId)), code, now, null);
    if (step === undefined) return { ok: false, problem: 'wrong-code' };
    if (password !== undefined && !(await verifyPassword(person.password_hash ?? undefined, password))) return { ok: false, problem: 'wrong-password' };
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    const { tables } = this.audience;
    await this.db.transaction().execute(async (tx) => {
      await tables.enableTotp(tx, personId, step, codes.map((c) => sha256(normalRecoveryCode(c))), now);
      await tables.deleteSessions(tx, personId, sha256(keepSession));
    });
    return { ok: true, codes };
  }

  /**
   * Turns two-factor off, on the person's password and a current code or an unused recovery
   * code (the password alone, which a stolen session may have guessed or phished, is not
   * enough). The code is checked only once the password is right, and a code is used up as at
   * sign-in. False when either is wrong, or two-factor is not on.
   */
  async disable(personId: string, password: string, code: string): Promise<boolean> {
    const person = await this.audience.findPerson(this.db, personId);
    if (person === undefined || !(await verifyPassword(person.password_hash ?? undefined, password))) return false;
    if (!(await this.matches(person, code))) return false;
    await this.audience.tables.clearTotp(this.db, personId, this.clock.now());
    return true;
  }

  /**
   * A change that moves money (a commission payout address) needs the person's password AND a
   * current code of their authenticator: not a recovery code, and not for a person without
   * two-factor. The code is checked only once the password is right, and used up as at sign-in
   * (the same code cannot confirm twice).
   */
  async confirmWithPasswordAndCode(personId: string, password: string, code: string): Promise<'ok' | 'wrong-password' | 'wrong-code' | 'no-two-factor'> {
    const person = await this.audience.findPerson(this.db, personId);
    if (person === undefined || !(await verifyPassword(person.password_hash ?? undefined, password))) return 'wrong-password';
    if (person.totp_secret_sealed === null || person.totp_enabled_at === null) return 'no-two-factor';
    const step = matchTotp(this.box.open(person.totp_secret_sealed, this.audience.totpContext(person.id)), code, this.clock.now(), person.totp_last_step);
    return step !== undefined && (await this.audience.tables.advanceTotpStep(this.db, person.id, step)) ? 'ok' : 'wrong-code';
  }

  unusedRecoveryCodes(personId: string): Promise<number> {
    return this.audience.tables.countUnusedRecoveryCodes(this.db, personId);
  }

  /** A current code (each time step once) or an unused recovery code (used up) of a person with two-factor on. */
  async matches(person: P, code: string): Promise<boolean> {
    if (person.totp_secret_sealed === null || person.totp_enabled_at === null) return false;
    const now = this.clock.now();
    const step = matchTotp(this.box.open(person.totp_secret_sealed, this.audience.totpContext(person.id)), code, now, person.totp_last_step);
    if (step !== undefined) return this.audience.tables.advanceTotpStep(this.db, person.id, step);
    const normal = normalRecoveryCode(code);
    return normal.length === 10 && this.audience.tables.useRecoveryCode(this.db, person.id, sha256(normal), now);
  }
}
