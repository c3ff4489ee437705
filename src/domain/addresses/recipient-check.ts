import type { AddressFormat } from '../address-format.js';
import { validateAddress } from './index.js';
import { validateMemo } from './memo.js';

/** What a currency row says about its recipients' addresses. */
export interface RecipientTerms {
  /** Network code, e.g. XRP, for the messages. */
  network: string;
  address_format: AddressFormat;
  /** The network routes deposits by a memo or destination tag, so a recipient needs one. */
  is_memo: boolean;
}

/** Why a recipient (address, and tag where the network uses one) is refused. */
export type RecipientProblem =
  | { ok: false; problem: 'invalid_address'; reason: string }
  | { ok: false; problem: 'memo_not_used' }
  | { ok: false; problem: 'invalid_tag'; reason: string }
  | { ok: false; problem: 'memo_required' };

export type RecipientCheck = { ok: true } | RecipientProblem;

/**
 * The one recipient rule of order creation and GET /partner/addresses/validate (docs/contract.md §7.3):
 * the address by its network's checksummed format; a tag only where the network uses memos,
 * valid by that network's memo rule, and required there. `tag` undefined means none was sent.
 */
export function checkRecipient(terms: RecipientTerms, address: string, tag: string | undefined): RecipientCheck {
  const checked = validateAddress(terms.address_format, address);
  if (!checked.ok) return { ok: false, problem: 'invalid_address', reason: checked.reason };
  if (tag !== undefined) {
    if (!terms.is_memo) return { ok: false, problem: 'memo_not_used' };
    const memo = validateMemo(terms.address_format, tag);
    if (!memo.ok) return { ok: false, problem: 'invalid_tag', reason: memo.reason };
  } else if (terms.is_memo) {
    return { ok: false, problem: 'memo_required' };
  }
  return { ok: true };
}
