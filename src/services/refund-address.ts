import type { CurrencyRow } from '../db/schema/currencies.js';
import { checkRecipient } from '../domain/addresses/recipient-check.js';
import { ApiError } from '../errors.js';

/**
 * The one rule for a refund address, at order creation and in PUT
 * /partner/orders/{id}/refund-address alike: the address by the deposit chain's format, and its
 * memo or tag as a recipient's is checked (required where the deposit chain routes by memo,
 * refused where it uses none). 400 with what is wrong, and its item (docs/contract.md §10.4):
 * `address_invalid` on refund_address, `memo_required` or `memo_invalid` on refund_address_tag.
 */
export function checkRefundAddress(from: CurrencyRow, address: string, tag: string | undefined): void {
  const checked = checkRecipient(from, address, tag);
  if (checked.ok) return;
  const problem = (code: 'address_invalid' | 'memo_required' | 'memo_invalid', field: string, detail: string) =>
    ApiError.field('bad_request', { code, field }, detail);
  switch (checked.problem) {
    case 'invalid_address':
      throw problem('address_invalid', 'refund_address', `refund_address is not a valid ${from.network} address: ${checked.reason}`);
    case 'memo_not_used':
      throw problem('memo_invalid', 'refund_address_tag', `refund_address_tag: ${from.network} does not use a memo`);
    case 'invalid_tag':
      throw problem('memo_invalid', 'refund_address_tag', `refund_address_tag is not valid: ${checked.reason}`);
    case 'memo_required':
      throw problem('memo_required', 'refund_address_tag', `refund_address_tag is required: a refund on ${from.network} needs a memo or destination tag`);
  }
}
