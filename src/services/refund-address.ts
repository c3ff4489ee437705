import type { CurrencyRow } from '../db/schema/currencies.js';
import { checkRecipient } from '../domain/addresses/recipient-check.js';
import { ApiError } from '../errors.js';

/**
 * The one rule for a refund address (issue 26.3), at order creation and in PUT
 * /partner/orders/{id}/refund-address alike: the address by the deposit chain's format, and its
 * memo or tag as a recipient's is checked (required where the deposit chain routes by memo,
 * refused where it uses none). 400 with what is wrong.
 */
export function checkRefundAddress(from: CurrencyRow, address: string, tag: string | undefined): void {
  const checked = checkRecipient(from, address, tag);
  if (checked.ok) return;
  switch (checked.problem) {
    case 'invalid_address':
      throw new ApiError('bad_request', `refund_address is not a valid ${from.network} address: ${checked.reason}`);
    case 'memo_not_used':
      throw new ApiError('bad_request', `refund_address_tag: ${from.network} does not use a memo`);
    case 'invalid_tag':
      throw new ApiError('bad_request', `refund_address_tag is not valid: ${checked.reason}`);
    case 'memo_required':
      throw new ApiError('bad_request', `refund_address_tag is required: a refund on ${from.network} needs a memo or destination tag`);
  }
}
