import type { AddressFormat } from '../address-format.js';

/**
 * The address formats whose deposit addresses come from BIP-32 public derivation over secp256k1.
 * The other formats (ed25519 chains, XRP, Stellar, TON) have no unhardened public derivation, so
 * their deposit addresses cannot be produced from a watch-only key this way.
 */
export const HD_FORMATS = ['bitcoin', 'litecoin', 'dogecoin', 'evm', 'tron'] as const;

export type HdFormat = (typeof HD_FORMATS)[number];

export function isHdFormat(format: AddressFormat): format is HdFormat {
  return (HD_FORMATS as readonly string[]).includes(format);
}

/**
 * The account-level path an operator's extended public key is expected to be exported from.
 * Used to document what to export and to build the demo wallet; parsing does not enforce it,
 * because the path is not recorded in the key (only its depth and last index are).
 * Receive addresses are always `<account>/0/<index>`.
 */
export const HD_ACCOUNT_PATHS: Readonly<Record<HdFormat, string>> = {
  bitcoin: "m/84'/0'/0'", // BIP-84 native segwit
  litecoin: "m/84'/2'/0'", // BIP-84 native segwit, SLIP-44 coin 2
  dogecoin: "m/44'/3'/0'", // BIP-44 P2PKH, SLIP-44 coin 3
  evm: "m/44'/60'/0'", // BIP-44, SLIP-44 coin 60 (what MetaMask and Ledger use)
  tron: "m/44'/195'/0'", // BIP-44, SLIP-44 coin 195
};
