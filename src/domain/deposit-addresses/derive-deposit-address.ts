import type { HDKey } from '@scure/bip32';
import type { HdFormat } from './hd-formats.js';
import { evmAccountId, p2pkhAddress, p2wpkhAddress, toChecksumAddress, tronAddress } from './address-encoding.js';

/** BIP-44 external (receive) chain; the internal chain 1 is for the wallet's own change. */
const RECEIVE_CHAIN = 0;
/** Public derivation only reaches unhardened indexes: 0 .. 2^31 - 1. */
export const MAX_ADDRESS_INDEX = 0x7fffffff;
/** Dogecoin mainnet P2PKH version byte: addresses start with `D`. */
const DOGECOIN_P2PKH_VERSION = 0x1e;

/**
 * The receive address at `<account>/0/<index>`. An out-of-range index is a caller bug (indexes
 * come from a database sequence), so it throws a RangeError rather than a user-facing error.
 */
export function deriveDepositAddress(format: HdFormat, account: HDKey, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > MAX_ADDRESS_INDEX) {
    throw new RangeError(`Deposit address index must be an integer in 0..${MAX_ADDRESS_INDEX}, got ${index}`);
  }
  const publicKey = account.deriveChild(RECEIVE_CHAIN).deriveChild(index).publicKey;
  if (!publicKey) throw new Error('Derived key has no public key');
  switch (format) {
    case 'bitcoin':
      return p2wpkhAddress('bc', publicKey);
    case 'litecoin':
      return p2wpkhAddress('ltc', publicKey);
    case 'dogecoin':
      return p2pkhAddress(DOGECOIN_P2PKH_VERSION, publicKey);
    case 'evm':
      return toChecksumAddress(evmAccountId(publicKey));
    case 'tron':
      return tronAddress(evmAccountId(publicKey));
  }
}
