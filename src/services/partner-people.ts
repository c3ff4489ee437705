import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { deleteCabinetUser, findPartnerPerson, insertAccountAction, listAccountActions, listPartnerPeople, type ListedPerson } from '../db/repositories/cabinet-accounts-repository.js';
import type { CabinetAccountAction, CabinetAccountActionRow, CabinetUserRow, NewCabinetAccountAction } from '../db/schema/cabinet-accounts.js';
import type { Database } from '../db/schema/index.js';
import { SESSION_IDLE_MS } from './account-audience.js';
import { CABINET_AUDIENCE } from './cabinet-audience.js';

/** An operator action's row on a cabinet person, before what differs per action. */
export function operatorAction(user: CabinetUserRow, action: CabinetAccountAction, ip: string | undefined, at: Date): NewCabinetAccountAction {
  return { partner_id: user.partner_id, person_id: user.id, email: user.email, action, actor: 'operator', clear_2fa: false, sessions_ended: null, ip: ip ?? null, at };
}

/**
 * What the operator sees of and does to a partner's cabinet people (API, CLI and console): the
 * list with two-factor and live sessions, clearing two-factor, ending sessions, removing a
 * person; each action recorded (migration 0039).
 */
export class PartnerPeople {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The partner's people for the operator: two-factor and live sessions each. */
  list(partnerId: string): Promise<ListedPerson[]> {
    const now = this.clock.now();
    return listPartnerPeople(this.db, partnerId, now, new Date(now.getTime() - SESSION_IDLE_MS));
  }

  /** The partner's recorded account actions (migration 0039), newest first. */
  actions(partnerId: string, limit: number): Promise<CabinetAccountActionRow[]> {
    return listAccountActions(this.db, partnerId, limit);
  }

  /**
   * The operator clears a person's two-factor (a lost authenticator, or one a thief enrolled):
   * the secret and the recovery codes go, and the next sign-in asks for the password only.
   * Recorded. Undefined when the partner has no such person.
   */
  clearTwoFactor(partnerId: string, personId: string, ip: string | undefined): Promise<ListedPerson | undefined> {
    return this.onPerson(partnerId, personId, async (tx, user, now) => {
      await CABINET_AUDIENCE.tables.clearTotp(tx, user.id, now);
      await insertAccountAction(tx, { ...operatorAction(user, 'clear_2fa', ip, now), clear_2fa: true });
    });
  }

  /** The operator signs the person out everywhere (every session, pending second factor or not). Recorded. */
  endSessions(partnerId: string, personId: string, ip: string | undefined): Promise<ListedPerson | undefined> {
    return this.onPerson(partnerId, personId, async (tx, user, now) => {
      const ended = await CABINET_AUDIENCE.tables.deleteSessions(tx, user.id);
      await insertAccountAction(tx, { ...operatorAction(user, 'end_sessions', ip, now), sessions_ended: ended });
    });
  }

  /**
   * The operator removes the person: the account, its sessions, recovery codes and reset links
   * go; the record keeps who it was. False when the partner has no such person.
   */
  async remove(partnerId: string, personId: string, ip: string | undefined): Promise<boolean> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      const user = await findPartnerPerson(tx, partnerId, personId);
      if (user === undefined) return false;
      const ended = await CABINET_AUDIENCE.tables.deleteSessions(tx, user.id);
      await deleteCabinetUser(tx, user.id);
      await insertAccountAction(tx, { ...operatorAction(user, 'remove_person', ip, now), clear_2fa: user.totp_enabled_at !== null, sessions_ended: ended });
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
    return (await this.list(partnerId)).find((person) => person.id === personId);
  }
}
