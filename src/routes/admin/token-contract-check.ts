import type { CurrencyRow } from '../../db/schema/currencies.js';
import type { AddressFormat } from '../../domain/address-format.js';
import { validateAddress } from '../../domain/addresses/index.js';
import { ApiError } from '../../errors.js';

/**
 * A token contract a catalog row may name (POST and PATCH /admin/v1/currencies): an address of
 * the chain's format (422 address_invalid), and no other row's on the chain (409: two rows
 * would make the watcher credit one transfer to two currencies). `exceptId`: the row edited.
 */
export function checkTokenContract(
  rows: readonly CurrencyRow[],
  target: { chain: string; format: AddressFormat; exceptId?: string },
  contract: string,
): void {
  const check = validateAddress(target.format, contract);
  if (!check.ok) throw ApiError.field('unprocessable', { code: 'address_invalid', field: 'token_contract' }, `token_contract is not a ${target.format} address: ${check.reason}`);
  const taken = rows.find((row) => row.id !== target.exceptId && row.chain === target.chain && row.token_contract?.toLowerCase() === contract.toLowerCase());
  if (taken !== undefined) throw new ApiError('conflict', `the contract is already in the catalog as ${taken.coin} (${taken.network})`);
}
