import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { listPartnerPeople } from '../db/repositories/cabinet-accounts-repository.js';
import { cancelPendingPayoutAddresses, insertPayoutAddress, partnerPayoutAddresses } from '../db/repositories/commission-payouts-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Database, Db } from '../db/schema/index.js';
import type { PartnerPayoutAddressRow } from '../db/schema/payouts.js';
import { checkRecipient } from '../domain/addresses/recipient-check.js';
import type { TwoFactor } from './two-factor.js';
import type { CabinetUserRow } from '../db/schema/cabinet-accounts.js';
import type { CurrencyCatalog } from './currency-catalog.js';
import type { Mailer } from './mailer.js';

/** A new or changed commission payout address takes effect this long after it is asked for. */
export const PAYOUT_ADDRESS_DELAY_MS = 24 * 60 * 60 * 1000;

/** One currency's commission payout address: the one in force now and a change waiting, if any. */
export interface PayoutAddressView {
  currency: CurrencyRow;
  current: PartnerPayoutAddressRow | undefined;
  pending: PartnerPayoutAddressRow | undefined;
}

export type PayoutAddressChange =
  | { ok: true; effectiveAt: Date }
  | { ok: false; problem: 'unknown-currency' | 'wrong-password' | 'wrong-code' | 'no-two-factor' | 'invalid-address'; reason?: string };

/** Who asks (a cabinet person of the partner). */
export interface Requester {
  id: string;
  email: string;
}

/**
 * The partner's commission payout addresses (docs/contract.md §11.6; docs/decisions.md, "Commission
 * payouts"). Setting or changing one needs the person's password and a current two-factor
 * code, takes effect 24 hours later (a stolen session cannot redirect the next payout at once:
 * the partner's people are told by mail and can cancel it meanwhile), and is told by mail to
 * every person of the partner, queued in the change's own transaction.
 */
export class PartnerPayoutAddresses {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly catalog: Pick<CurrencyCatalog, 'all' | 'byId'>,
    private readonly twoFactor: Pick<TwoFactor<CabinetUserRow>, 'confirmWithPasswordAndCode'>,
    private readonly mailer: Mailer,
  ) {}

  /** Every currency of the catalog with the partner's address in force and the change pending. */
  async list(partnerId: string): Promise<PayoutAddressView[]> {
    const now = this.clock.now();
    const rows = await partnerPayoutAddresses(this.db, partnerId);
    return [...this.catalog.all()]
      .sort((a, b) => a.coin.localeCompare(b.coin) || a.network.localeCompare(b.network))
      .map((currency) => {
        const mine = rows.filter((row) => row.currency_id === currency.id);
        return { currency, current: mine.find((row) => row.effective_at <= now), pending: mine.find((row) => row.effective_at > now) };
      });
  }

  /** Asks for a new address of a currency, effective in 24 hours; a change already pending for it is replaced. */
  async request(partnerId: string, person: Requester, input: { currencyId: string; address: string; tag: string | undefined; password: string; code: string }): Promise<PayoutAddressChange> {
    const currency = this.catalog.byId(input.currencyId);
    if (currency === undefined) return { ok: false, problem: 'unknown-currency' };
    const checked = checkRecipient(currency, input.address, input.tag);
    if (!checked.ok) {
      const reason = checked.problem === 'invalid_address' ? checked.reason : checked.problem === 'memo_required' ? `${currency.network} needs a memo (tag)` : checked.problem === 'memo_not_used' ? `${currency.network} uses no memo (tag)` : checked.reason;
      return { ok: false, problem: 'invalid-address', reason };
    }
    const confirmed = await this.twoFactor.confirmWithPasswordAndCode(person.id, input.password, input.code);
    if (confirmed !== 'ok') return { ok: false, problem: confirmed };
    const now = this.clock.now();
    const effectiveAt = new Date(now.getTime() + PAYOUT_ADDRESS_DELAY_MS);
    await this.db.transaction().execute(async (tx) => {
      await cancelPendingPayoutAddresses(tx, partnerId, currency.id, now, person.id);
      await insertPayoutAddress(tx, { partner_id: partnerId, currency_id: currency.id, address: input.address, tag: input.tag ?? null, requested_by: person.id, requested_at: now, effective_at: effectiveAt });
      const label = `${currency.coin} (${currency.network})`;
      await this.tellEveryone(
        tx,
        partnerId,
        `Commission payout address for ${label} changes on ${effectiveAt.toISOString()}`,
        [
          `${person.email} asked to pay your commission in ${label} to:`,
          '',
          `  ${input.address}${input.tag === undefined ? '' : ` (tag ${input.tag})`}`,
          '',
          `It takes effect on ${effectiveAt.toISOString()} (24 hours after the request). Until then the address before it stays in force.`,
          'If nobody of yours asked for this, sign in to the cabinet, cancel the change under "Payouts" and change your password.',
        ].join('\n'),
      );
    });
    return { ok: true, effectiveAt };
  }

  /** Cancels the pending change of a currency (the person's session suffices: cancelling moves nothing). False when none was pending. */
  async cancel(partnerId: string, person: Requester, currencyId: string): Promise<boolean> {
    const currency = this.catalog.byId(currencyId);
    if (currency === undefined) return false;
    const now = this.clock.now();
    return this.db.transaction().execute(async (tx) => {
      if ((await cancelPendingPayoutAddresses(tx, partnerId, currency.id, now, person.id)) === 0) return false;
      const label = `${currency.coin} (${currency.network})`;
      await this.tellEveryone(tx, partnerId, `Commission payout address change for ${label} cancelled`, `${person.email} cancelled the pending change of your commission payout address for ${label}. The address in force stays as it was.`);
      return true;
    });
  }

  private async tellEveryone(tx: Db, partnerId: string, subject: string, text: string): Promise<void> {
    const now = this.clock.now();
    const people = await listPartnerPeople(tx, partnerId, now, now);
    await this.mailer.enqueue(people.map((person) => ({ to: person.email, subject, text })), tx);
  }
}
