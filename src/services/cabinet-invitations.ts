import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { findCabinetUserByEmail, findInvitation, insertCabinetUser, insertInvitation, useInvitation } from '../db/repositories/cabinet-accounts-repository.js';
import type { CabinetInvitationRow } from '../db/schema/cabinet-accounts.js';
import type { Database } from '../db/schema/index.js';
import { INVITATION_TTL_MS } from './account-audience.js';
import { normalEmail, randomSecret, sha256 } from './account-secrets.js';
import { hashPassword, passwordProblem } from './cabinet-passwords.js';

export type InvitationState = { ok: true; invitation: CabinetInvitationRow } | { ok: false; problem: string };

/**
 * The operator's invitations into a partner's cabinet (docs/contract.md §9): a one-use link
 * whose token is kept as SHA-256 only; using it sets the person's password and makes the
 * account. (An owner's invitations of their own team are cabinet-team.ts.)
 */
export class CabinetInvitations {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** A one-use invitation link for `email` to `partnerId`'s cabinet; `baseUrl` is PUBLIC_URL or the asking request's origin. */
  async invite(partnerId: string, email: string, baseUrl: string): Promise<{ url: string; expiresAt: Date }> {
    const secret = randomSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    await insertInvitation(this.db, { partner_id: partnerId, email: normalEmail(email), token_hash: sha256(secret), expires_at: expiresAt, created_at: now });
    return { url: `${baseUrl}/cabinet/invitation/${secret}`, expiresAt };
  }

  /** Whether an account with this email exists already (an invitation for it would be useless). */
  async emailTaken(email: string): Promise<boolean> {
    return (await findCabinetUserByEmail(this.db, normalEmail(email))) !== undefined;
  }

  async open(secret: string): Promise<InvitationState> {
    const invitation = await findInvitation(this.db, sha256(secret));
    const gone = 'This invitation link is not valid: it was used already, has expired, or was mistyped. Ask for a new one.';
    if (invitation === undefined || invitation.used_at !== null || invitation.expires_at <= this.clock.now()) return { ok: false, problem: gone };
    return { ok: true, invitation };
  }

  /** Sets the invited person's password: creates the account and uses the invitation up. */
  async accept(secret: string, password: string): Promise<{ ok: true; email: string } | { ok: false; problem: string }> {
    const state = await this.open(secret);
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
}
