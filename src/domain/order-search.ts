import { hexToBytes } from '@noble/hashes/utils.js';
import { toChecksumAddress } from './deposit-addresses/address-encoding.js';

/** An EVM account: 0x and 40 hex digits, in any case. */
const EVM_ADDRESS = /^0[xX]([0-9a-fA-F]{40})$/;
/** A transaction hash in hex (EVM with 0x; Bitcoin family, TRON, XRP without): 64 digits. */
const HEX_HASH = /^(0[xX])?([0-9a-fA-F]{64})$/;

/**
 * The stored spellings an order-list search value (docs/contract.md §7.2) is compared with, each exactly,
 * so the search stays an equality on the indexed columns (an index scan per column, as before)
 * while hex values match whatever their case:
 *
 * - An EVM address is one account in any case (EIP-55's mixed case is only a checksum). Every
 *   EVM address the service stores is one of three spellings: all lower case, all upper case (the
 *   address validator accepts single-case input as sent) or the EIP-55 checksum (the validator
 *   refuses any other mixed case; derived deposit addresses are written in it). So those three.
 * - A hex hash has no checksum case: nodes report it in lower case (XRP's ledger in upper case),
 *   so lower and upper case (a `0x` prefix written in lower case).
 * - Anything else (base58, bech32, memo text, ids) is matched exactly as sent: base58 case is data.
 *
 * The value as sent is always one of the spellings, so an exact match is never lost.
 */
export function searchSpellings(search: string): string[] {
  const address = EVM_ADDRESS.exec(search)?.[1];
  if (address !== undefined) {
    const lower = address.toLowerCase();
    return unique([search, `0x${lower}`, `0x${address.toUpperCase()}`, toChecksumAddress(hexToBytes(lower))]);
  }
  const hash = HEX_HASH.exec(search);
  if (hash?.[2] !== undefined) {
    const prefix = hash[1] === undefined ? '' : '0x';
    return unique([search, `${prefix}${hash[2].toLowerCase()}`, `${prefix}${hash[2].toUpperCase()}`]);
  }
  return [search];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
