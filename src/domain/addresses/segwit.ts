import { bech32, bech32m } from '@scure/base';
import { invalid, valid, type AddressCheck } from './address-check.js';

/** Human-readable parts of a SegWit network: the mainnet one we accept and test ones we name. */
export type SegwitNetwork = { hrp: string; testnetHrps: readonly string[] };

// BIP-173: a SegWit address is at most 90 characters.
const MAX_LENGTH = 90;
const BECH32_DATA = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]*$/;
const TAPROOT_VERSION = 1;
const BECH32_SHAPE = /^([a-z0-9]+1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{6,}|[A-Z0-9]+1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{6,})$/;
// A 25-byte base58check address is at most 35 characters; anything longer is not one.
const LONGEST_BASE58_ADDRESS = 35;

/**
 * Should `address` be judged as SegWit? True for the network's own prefixes, and for any longer
 * bech32-shaped string (another chain's address, e.g. "ltc1..." given as Bitcoin), so the partner
 * hears "wrong network prefix" rather than "not a valid base58 string".
 */
export function isSegwitCandidate(address: string, network: SegwitNetwork): boolean {
  const lower = address.toLowerCase();
  if ([network.hrp, ...network.testnetHrps].some((hrp) => lower.startsWith(`${hrp}1`))) return true;
  return address.length > LONGEST_BASE58_ADDRESS && BECH32_SHAPE.test(address);
}

/**
 * Native SegWit address per BIP-173 (witness v0, bech32) and BIP-350 (v1..v16, bech32m).
 *
 * Witness v1 must carry a 32-byte program: that is Taproot, and any other v1 length is not
 * defined by consensus (anyone can spend it), so accepting one would risk the payout. v2..v16
 * stay accepted at 2..40 bytes, as BIP-350 asks senders to, so future upgrades keep working.
 */
export function checkSegwitAddress(address: string, network: SegwitNetwork): AddressCheck {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return invalid('mixed-case bech32 address');
  const separator = lower.lastIndexOf('1');
  const hrp = lower.slice(0, Math.max(separator, 0));
  if (hrp !== network.hrp) {
    return invalid(network.testnetHrps.includes(hrp) ? 'testnet address' : 'wrong network prefix');
  }
  if (lower.length > MAX_LENGTH) return invalid('wrong length');
  if (!BECH32_DATA.test(lower.slice(separator + 1))) return invalid('not a valid bech32 string');

  // The checksum constant tells bech32 from bech32m; decode with both and match it to the version.
  const asBech32 = bech32.decodeUnsafe(lower, MAX_LENGTH);
  const asBech32m = bech32m.decodeUnsafe(lower, MAX_LENGTH);
  const decoded = asBech32 ?? asBech32m;
  if (!decoded) return invalid('bad checksum');
  const [version, ...programWords] = decoded.words;
  if (version === undefined) return invalid('missing witness version');
  if (version > 16) return invalid('invalid witness version');
  if ((version === 0) !== Boolean(asBech32)) {
    return invalid('bad checksum: witness v0 needs bech32, v1+ needs bech32m');
  }
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program) return invalid('invalid padding in witness program');
  const length = program.length;
  if (length < 2 || length > 40) return invalid('wrong witness program length');
  if (version === 0 && length !== 20 && length !== 32) return invalid('wrong witness program length');
  if (version === TAPROOT_VERSION && length !== 32) return invalid('wrong witness program length');
  return valid();
}
