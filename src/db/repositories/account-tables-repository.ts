import { IdentifierNode, OperationNodeTransformer, type Generated, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryId, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import type { Database, Db } from '../schema/index.js';
import type { Timestamp } from '../schema/currencies.js';

/**
 * The queries the partner cabinet's accounts and the operator console's people share: sessions,
 * passwords, TOTP two-factor and recovery codes. Each audience keeps its own tables (cabinet_users,
 * cabinet_sessions, cabinet_recovery_codes; operator_people, operator_sessions,
 * operator_recovery_codes): the queries are written once against the neutral names below, and an
 * `AccountTables` renames them to its audience's tables and person column as each query is built.
 */

/** What every person row holds, whatever else its audience adds. */
type AccountPersonTable = {
  id: Generated<string>;
  password_hash: string | null;
  totp_secret_sealed: Buffer | null;
  totp_enabled_at: Timestamp | null;
  totp_last_step: number | null;
  updated_at: Timestamp;
};

type AccountSessionTable = {
  token_hash: Buffer;
  id: Generated<string>;
  account_person_id: string;
  second_factor_pending: Generated<boolean>;
  user_agent: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
};

type AccountRecoveryCodeTable = {
  account_person_id: string;
  code_hash: Buffer;
  used_at: Timestamp | null;
};

/** The neutral names: none is a real table or column, so the renaming never touches anything else. */
type AccountSchema = {
  account_people: AccountPersonTable;
  account_sessions: AccountSessionTable;
  account_recovery_codes: AccountRecoveryCodeTable;
};

/** One audience's tables, and the column of its sessions and recovery codes that names the person. */
export interface AccountTableNames {
  people: keyof Database;
  sessions: keyof Database;
  recoveryCodes: keyof Database;
  personColumn: string;
}

export const CABINET_TABLES: AccountTableNames = { people: 'cabinet_users', sessions: 'cabinet_sessions', recoveryCodes: 'cabinet_recovery_codes', personColumn: 'user_id' };
export const CONSOLE_TABLES: AccountTableNames = { people: 'operator_people', sessions: 'operator_sessions', recoveryCodes: 'operator_recovery_codes', personColumn: 'person_id' };

class Renamer extends OperationNodeTransformer {
  constructor(private readonly names: ReadonlyMap<string, string>) {
    super();
  }

  protected override transformIdentifier(node: IdentifierNode, queryId?: QueryId): IdentifierNode {
    const renamed = this.names.get(node.name);
    return renamed === undefined ? super.transformIdentifier(node, queryId) : IdentifierNode.create(renamed);
  }
}

class RenamePlugin implements KyselyPlugin {
  private readonly renamer: Renamer;

  constructor(names: AccountTableNames) {
    this.renamer = new Renamer(
      new Map([
        ['account_people', names.people],
        ['account_sessions', names.sessions],
        ['account_recovery_codes', names.recoveryCodes],
        ['account_person_id', names.personColumn],
      ]),
    );
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.renamer.transformNode(args.node, args.queryId);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

/**
 * An audience's account tables. Selected columns are the shared ones only (the person column
 * is never returned under its neutral name), so rows come back as the types say.
 */
export class AccountTables {
  private readonly plugin: RenamePlugin;

  constructor(readonly names: AccountTableNames) {
    this.plugin = new RenamePlugin(names);
  }

  private on(db: Db) {
    return db.withPlugin(this.plugin).withTables<AccountSchema>();
  }

  async touchSession(db: Db, tokenHash: Buffer, at: Date): Promise<void> {
    await this.on(db).updateTable('account_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
  }

  /** The second factor was given: the session opens, until `expiresAt`. */
  async completeSecondFactor(db: Db, tokenHash: Buffer, at: Date, expiresAt: Date): Promise<void> {
    await this.on(db).updateTable('account_sessions').set({ second_factor_pending: false, last_seen_at: at, expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
  }

  async deleteSession(db: Db, tokenHash: Buffer): Promise<void> {
    await this.on(db).deleteFrom('account_sessions').where('token_hash', '=', tokenHash).execute();
  }

  /** Every session of the person but `keep` (when given): how many ended. */
  async deleteSessions(db: Db, personId: string, keep?: Buffer): Promise<number> {
    let query = this.on(db).deleteFrom('account_sessions').where('account_person_id', '=', personId);
    if (keep !== undefined) query = query.where('token_hash', '!=', keep);
    return (await query.returning('id').execute()).length;
  }

  /** Ends one session of the person, never `keep` (the asking one): false when there is no such other session. */
  async deleteOneSession(db: Db, personId: string, id: string, keep: Buffer): Promise<boolean> {
    const deleted = await this.on(db)
      .deleteFrom('account_sessions')
      .where('account_person_id', '=', personId)
      .where('id', '=', id)
      .where('token_hash', '!=', keep)
      .returning('id')
      .executeTakeFirst();
    return deleted !== undefined;
  }

  /** Sessions past their absolute end (the idle ones are refused when read, and go here later). */
  async deleteExpiredSessions(db: Db, before: Date): Promise<void> {
    await this.on(db).deleteFrom('account_sessions').where('expires_at', '<=', before).execute();
  }

  /** The person's sessions still alive at `now` (before their absolute end, seen since `seenSince`), newest first; never a token's hash. */
  async listSessions(db: Db, personId: string, now: Date, seenSince: Date): Promise<ListedSession[]> {
    return this.on(db)
      .selectFrom('account_sessions')
      .select(['id', 'user_agent', 'second_factor_pending', 'created_at', 'last_seen_at'])
      .where('account_person_id', '=', personId)
      .where('expires_at', '>', now)
      .where('last_seen_at', '>', seenSince)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
  }

  /** A new password hash (an invitation used, a change by the person, a reset link used). */
  async setPasswordHash(db: Db, personId: string, passwordHash: string, at: Date): Promise<void> {
    await this.on(db).updateTable('account_people').set({ password_hash: passwordHash, updated_at: at }).where('id', '=', personId).execute();
  }

  /** A new TOTP secret awaiting its first code (two-factor stays off until it is confirmed). */
  async setPendingTotp(db: Db, personId: string, sealed: Buffer, at: Date): Promise<void> {
    await this.on(db)
      .updateTable('account_people')
      .set({ totp_secret_sealed: sealed, totp_enabled_at: null, totp_last_step: null, updated_at: at })
      .where('id', '=', personId)
      .execute();
  }

  /** Two-factor on, from the step of the confirming code; the recovery codes replace any earlier ones. */
  async enableTotp(db: Db, personId: string, step: number, recoveryCodeHashes: readonly Buffer[], at: Date): Promise<void> {
    const on = this.on(db);
    await on.updateTable('account_people').set({ totp_enabled_at: at, totp_last_step: step, updated_at: at }).where('id', '=', personId).execute();
    await on.deleteFrom('account_recovery_codes').where('account_person_id', '=', personId).execute();
    await on
      .insertInto('account_recovery_codes')
      .values(recoveryCodeHashes.map((code_hash) => ({ account_person_id: personId, code_hash, used_at: null })))
      .execute();
  }

  /** Two-factor off: the secret and the recovery codes go. */
  async clearTotp(db: Db, personId: string, at: Date): Promise<void> {
    const on = this.on(db);
    await on
      .updateTable('account_people')
      .set({ totp_secret_sealed: null, totp_enabled_at: null, totp_last_step: null, updated_at: at })
      .where('id', '=', personId)
      .execute();
    await on.deleteFrom('account_recovery_codes').where('account_person_id', '=', personId).execute();
  }

  /**
   * Records the step of an accepted code, only if it is later than the last one: false when a
   * concurrent sign-in used this step (or a later one) first, so a code works once.
   */
  async advanceTotpStep(db: Db, personId: string, step: number): Promise<boolean> {
    const moved = await this.on(db)
      .updateTable('account_people')
      .set({ totp_last_step: step })
      .where('id', '=', personId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .returning('id')
      .executeTakeFirst();
    return moved !== undefined;
  }

  /** Uses a recovery code once: false when it is not one of the person's unused codes. */
  async useRecoveryCode(db: Db, personId: string, codeHash: Buffer, at: Date): Promise<boolean> {
    const used = await this.on(db)
      .updateTable('account_recovery_codes')
      .set({ used_at: at })
      .where('account_person_id', '=', personId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .returning('code_hash')
      .executeTakeFirst();
    return used !== undefined;
  }

  async countUnusedRecoveryCodes(db: Db, personId: string): Promise<number> {
    const row = await this.on(db)
      .selectFrom('account_recovery_codes')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('account_person_id', '=', personId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}

/** Uses a one-time link (an invitation, a password reset) if it is still unused and unexpired: false when it was used, voided or expired meanwhile. */
export async function useOneTimeLink(db: Db, table: 'cabinet_invitations' | 'cabinet_password_resets' | 'operator_invitations', id: string, at: Date): Promise<boolean> {
  const used = await db
    .updateTable(table)
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .returning('id')
    .executeTakeFirst();
  return used !== undefined;
}

/** A session as the account page lists it: never its token's hash. */
export interface ListedSession {
  id: string;
  user_agent: string | null;
  second_factor_pending: boolean;
  created_at: Date;
  last_seen_at: Date;
}
