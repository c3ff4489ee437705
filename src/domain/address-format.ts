/**
 * How a network spells its addresses. Stored per currency row (`currencies.address_format`) and
 * shared by address validation and deposit-address derivation, so both agree on one list.
 */
export const ADDRESS_FORMATS = [
  'bitcoin',
  'litecoin',
  'dogecoin',
  'evm',
  'tron',
  'solana',
  'xrp',
  'stellar',
  'ton',
] as const;

export type AddressFormat = (typeof ADDRESS_FORMATS)[number];
