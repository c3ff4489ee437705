import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { findCabinetUserByEmail, insertPasswordReset, listPartnerCabinetUsers, voidPasswordResets } from '../db/repositories/cabinet-accounts-repository.js';
import { recordSignInDevice } from '../db/repositories/cabinet-sign-in-devices-repository.js';
import type { Database, Db } from '../db/schema/index.js';
import { ROLE_WORDS, type CabinetRole } from '../domain/cabinet-roles.js';
import { normalEmail, randomSecret, sha256 } from './account-secrets.js';
import { PASSWORD_RESET_TTL_MS } from './cabinet-password-changes.js';
import type { Mailer } from './mailer.js';

/** A device not seen for this long is forgotten: signing in from it again is told as new. */
export const DEVICE_MEMORY_MS = 180 * 24 * 3_600_000;

/** Text a client wrote (a User-Agent), made safe to quote in a plain-text mail: one line, printable, cut. */
function quoted(text: string, max: number): string {
  const line = [...text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ')].slice(0, max).join('').trim();
  return line === '' ? '(none sent)' : line;
}

const utc = (at: Date): string => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The mail the cabinet sends its people (docs/adr/0051-cabinet-mail-period-responses-reference.md), all through the mail
 * outbox: invitations, password resets the person asks for ("Forgot password" on the sign-in
 * page), a notice of a sign-in from a device not seen before, and a notice of a new API key to
 * the partner's owners. Links in mail are built on the base the caller gives (PUBLIC_URL where
 * set); nothing here talks to a transport.
 */
export class CabinetMail {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly mailer: Mailer,
  ) {}

  /** Queues an invitation's link to the invited person, in the invitation's transaction when given. */
  async invitation(invite: { to: string; url: string; expiresAt: Date; role: CabinetRole; invitedBy?: string }, tx?: Db): Promise<void> {
    const by = invite.invitedBy === undefined ? 'The exchange' : invite.invitedBy;
    await this.mailer.enqueue(
      {
        to: invite.to,
        subject: 'Your invitation to the exchange partner cabinet',
        text: [
          `${by} invited you to the partner cabinet as ${ROLE_WORDS[invite.role].name.toLowerCase()}.`,
          '',
          'Open this link to choose your password (it works once):',
          '',
          `  ${invite.url}`,
          '',
          `It expires on ${utc(invite.expiresAt)}. If you did not expect this invitation, ignore this mail.`,
        ].join('\n'),
      },
      tx,
    );
  }

  /**
   * A person asks for a password reset link by email. Whether or not an account has this email,
   * the caller answers the same; only an account gets mail. Earlier unused links of the person
   * are voided (only the newest works); the link works once, for an hour.
   */
  async requestPasswordReset(email: string, baseUrl: string): Promise<void> {
    const user = await findCabinetUserByEmail(this.db, normalEmail(email));
    if (user === undefined) return;
    const secret = randomSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
    await this.db.transaction().execute(async (tx) => {
      await voidPasswordResets(tx, user.id, now);
      await insertPasswordReset(tx, { user_id: user.id, token_hash: sha256(secret), expires_at: expiresAt, created_at: now });
      await this.mailer.enqueue(
        {
          to: user.email,
          subject: 'Reset your partner cabinet password',
          text: [
            'Someone (we hope you) asked to reset the password of your partner cabinet account.',
            '',
            'Open this link to choose a new one (it works once, for one hour):',
            '',
            `  ${baseUrl}/cabinet/password-reset/${secret}`,
            '',
            'Setting it signs out every session of your account. If you did not ask for this, ignore this mail: your password stays as it is.',
          ].join('\n'),
        },
        tx,
      );
    });
  }

  /**
   * A sign-in with the right password: a device (User-Agent and client address) the person has
   * not signed in from before is told to them by mail. Their very first device is not: that is
   * the sign-in right after the invitation.
   */
  async signedIn(email: string, userAgent: string | undefined, ip: string): Promise<void> {
    const user = await findCabinetUserByEmail(this.db, normalEmail(email));
    if (user === undefined) return;
    const now = this.clock.now();
    const agent = quoted(userAgent ?? '', 256);
    await this.db.transaction().execute(async (tx) => {
      const seen = await recordSignInDevice(tx, user.id, sha256(`${userAgent ?? ''}\n${ip}`), now, new Date(now.getTime() - DEVICE_MEMORY_MS));
      if (seen !== 'new') return;
      await this.mailer.enqueue(
        {
          to: user.email,
          subject: 'New sign-in to your partner cabinet account',
          text: [
            'Your partner cabinet account was signed in to from a browser or address not seen before:',
            '',
            `  When:    ${utc(now)}`,
            `  Browser: ${agent}`,
            `  Address: ${quoted(ip, 64)}`,
            '',
            'If this was you, there is nothing to do.',
            'If not, change your password at once (Account page of the cabinet, or "Forgot password" on the sign-in page) and sign out the other sessions.',
          ].join('\n'),
        },
        tx,
      );
    });
  }

  /** A new API key of the partner: told to every owner, and to the person who made it. */
  async keyCreated(partnerId: string, by: { id: string; email: string }, key: { keyId: string; label: string; sandbox: boolean; scope: 'full' | 'client' }): Promise<void> {
    const people = await listPartnerCabinetUsers(this.db, partnerId);
    const to = people.filter((person) => person.role === 'owner' || person.id === by.id);
    const kind = `${key.sandbox ? 'sandbox' : 'live'} ${key.scope === 'client' ? 'app' : 'server'} key`;
    const text = [
      `${by.email} created a new ${kind} at ${utc(this.clock.now())}:`,
      '',
      `  Label:  ${quoted(key.label, 100)}`,
      `  Key id: ${key.keyId}`,
      '',
      'If nobody of yours meant to, revoke it on the Keys page of the cabinet and change the password of that account.',
    ].join('\n');
    await this.mailer.enqueue(to.map((person) => ({ to: person.email, subject: `New ${kind} created in your partner cabinet`, text })));
  }
}
