import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import {
  deleteCabinetUser,
  findCabinetUserByEmail,
  findPartnerPerson,
  insertAccountAction,
  insertInvitation,
  listPartnerCabinetUsers,
  lockPartnerOwners,
  setPersonRole,
  takeInvitationToken,
} from '../db/repositories/cabinet-accounts-repository.js';
import { insertReveal, takeReveal } from '../db/repositories/cabinet-sessions-repository.js';
import { CABINET_AUDIENCE } from './cabinet-audience.js';
import type { CabinetUserRow } from '../db/schema/cabinet-accounts.js';
import type { Database } from '../db/schema/index.js';
import type { CabinetRole } from '../domain/cabinet-roles.js';
import { INVITATION_TTL_MS } from './account-audience.js';
import { EMAIL_PATTERN, normalEmail } from './account-secrets.js';
import { REVEAL_TTL_MS } from './secret-reveals.js';
import type { CabinetMail } from './cabinet-mail.js';
import type { SecretBox } from '../infrastructure/secret-box.js';


export type TeamChange = { ok: true } | { ok: false; problem: string };

/**
 * The partner's own team management in the cabinet (docs/decisions.md, "Cabinet team roles"):
 * owners invite people with a role (the link is mailed to them and shown once to the inviting
 * owner), change roles and remove people. A partner always keeps an owner: the last one can be
 * neither demoted nor removed (the owners are locked while a change is checked).
 */
export class CabinetTeam {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly mail: CabinetMail,
  ) {}

  people(partnerId: string): Promise<Array<Pick<CabinetUserRow, 'id' | 'email' | 'role' | 'totp_enabled_at' | 'created_at'>>> {
    return listPartnerCabinetUsers(this.db, partnerId);
  }

  /**
   * An invitation with `role`, made by `owner` of `partnerId`: its link is mailed to the invited
   * person (queued in the invitation's transaction, built on `baseUrl`), and its token sealed
   * until the owner's page shows the link once. Answers the reveal id for that page (session-bound).
   */
  async invite(
    partnerId: string,
    owner: { id: string; email: string },
    sessionId: string,
    email: string,
    role: CabinetRole,
    baseUrl: string,
  ): Promise<{ ok: true; reveal: string } | { ok: false; problem: string }> {
    const address = normalEmail(email);
    if (address.length < 3 || address.length > 254 || !EMAIL_PATTERN.test(address)) return { ok: false, problem: 'Type an email address, such as name@example.com.' };
    if ((await findCabinetUserByEmail(this.db, address)) !== undefined) return { ok: false, problem: `An account with ${address} exists already.` };
    const secret = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    return this.db.transaction().execute(async (tx) => {
      const invitation = await insertInvitation(tx, {
        partner_id: partnerId,
        email: address,
        token_hash: createHash('sha256').update(secret).digest(),
        expires_at: expiresAt,
        created_at: now,
        role,
        invited_by: owner.id,
        token_sealed: this.box.seal(secret, `invitation:${partnerId}`),
      });
      const reveal = await insertReveal(tx, { sessionId, kind: 'invitation', subject: invitation.id, at: now, expiresAt: new Date(now.getTime() + REVEAL_TTL_MS) });
      await this.mail.invitation({ to: address, url: `${baseUrl}/cabinet/invitation/${secret}`, expiresAt, role, invitedBy: owner.email }, tx);
      return { ok: true as const, reveal };
    });
  }

  /** The new invitation's link, once, for the session that made it; undefined after that. */
  async takeInvitationLink(partnerId: string, sessionId: string, revealId: string, baseUrl: string): Promise<{ url: string; email: string; role: CabinetRole; expiresAt: Date } | undefined> {
    const invitationId = await takeReveal(this.db, sessionId, revealId, 'invitation', this.clock.now());
    if (invitationId === undefined) return undefined;
    const taken = await takeInvitationToken(this.db, partnerId, invitationId);
    if (taken?.token_sealed == null) return undefined;
    const secret = this.box.open(taken.token_sealed, `invitation:${partnerId}`);
    return { url: `${baseUrl}/cabinet/invitation/${secret}`, email: taken.email, role: taken.role, expiresAt: taken.expires_at };
  }

  async changeRole(partnerId: string, personId: string, role: CabinetRole): Promise<TeamChange> {
    return this.db.transaction().execute(async (tx) => {
      const owners = await lockPartnerOwners(tx, partnerId);
      const person = await findPartnerPerson(tx, partnerId, personId);
      if (person === undefined) return { ok: false, problem: 'No such person in your team.' };
      if (person.role === 'owner' && role !== 'owner' && owners.length <= 1) return { ok: false, problem: `${person.email} is the only owner: make someone else an owner first.` };
      await setPersonRole(tx, partnerId, personId, role, this.clock.now());
      return { ok: true };
    });
  }

  /** Removes a person of the team (not oneself): the account and its sessions go; recorded. */
  async remove(partnerId: string, ownerId: string, personId: string, ip: string | undefined): Promise<TeamChange> {
    if (personId === ownerId) return { ok: false, problem: 'You cannot remove yourself: another owner can.' };
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      const owners = await lockPartnerOwners(tx, partnerId);
      const person = await findPartnerPerson(tx, partnerId, personId);
      if (person === undefined) return { ok: false, problem: 'No such person in your team.' };
      if (person.role === 'owner' && owners.length <= 1) return { ok: false, problem: `${person.email} is the only owner.` };
      const ended = await CABINET_AUDIENCE.tables.deleteSessions(tx, person.id);
      await deleteCabinetUser(tx, person.id);
      await insertAccountAction(tx, {
        partner_id: partnerId, person_id: person.id, email: person.email, action: 'remove_person', actor: 'person',
        clear_2fa: person.totp_enabled_at !== null, sessions_ended: ended, ip: ip ?? null, at: now,
      });
      return { ok: true };
    });
  }
}
