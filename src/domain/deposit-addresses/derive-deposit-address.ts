import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import type { HDKey } from '@scure/bip32';
import type { HdFormat } from './hd-formats.js';
import { evmAccountId, p2pkhAddress, p2wpkhAddress, toChecksumAddress, tronAddress } from './address-encoding.js';

/** BIP-44 external (receive) chain; the internal chain 1 is for the wallet's own change. */
const RECEIVE_CHAIN = 0;
/** Public derivation only reaches unhardened indexes: 0 .. 2^31 - 1. */
export const MAX_ADDRESS_INDEX = 0x7fffffff;
/** Dogecoin mainnet P2PKH version byte: addresses start with `D`. */
const DOGECOIN_P2PKH_VERSION = 0x1e;

const { Point } = secp256k1;
// A wider window for G's precomputed table than noble's default (6): every order multiplies
// G once, and at 8 that costs about a third less (bench/README.md), for a table of about 1 MB.
Point.BASE.precompute(8);
type CurvePoint = InstanceType<typeof Point>;

/** `<account>/0` of an account key, with its public point decoded once. */
interface ReceiveChain {
  key: HDKey;
  publicKey: Uint8Array;
  chainCode: Uint8Array;
  point: CurvePoint;
}

const receiveChains = new WeakMap<HDKey, ReceiveChain>();

function receiveChain(account: HDKey): ReceiveChain {
  let chain = receiveChains.get(account);
  if (chain === undefined) {
    const key = account.deriveChild(RECEIVE_CHAIN);
    if (!key.publicKey || !key.chainCode) throw new Error('Derived key has no public key');
    chain = { key, publicKey: key.publicKey, chainCode: key.chainCode, point: Point.fromBytes(key.publicKey) };
    receiveChains.set(account, chain);
  }
  return chain;
}

/**
 * BIP-32 public child derivation CKDpub(<account>/0, index), as @scure/bip32's deriveChild
 * computes it, minus the work that is the same for every order: the chain key is derived and
 * its point decoded once per account, and the child point is not decoded back from bytes.
 * `multiplyUnsafe` (not constant-time) is right here: the tweak is no private key, only public
 * data hashed (this service holds no private key at all). The rare tweaks BIP-32 treats
 * specially (0, or not below the curve order) go through @scure/bip32 itself.
 */
function childPublicKey(chain: ReceiveChain, index: number): Uint8Array {
  const data = new Uint8Array(37);
  data.set(chain.publicKey, 0);
  new DataView(data.buffer).setUint32(33, index, false);
  const tweak = bytesToNumberBE(hmac(sha512, chain.chainCode, data).subarray(0, 32));
  const child = tweak === 0n || tweak >= Point.Fn.ORDER ? undefined : chain.point.add(Point.BASE.multiplyUnsafe(tweak));
  if (child === undefined || child.is0()) {
    // BIP-32's invalid children (an out-of-range tweak, or the point at infinity): @scure/bip32
    // decides them, so what happens to such an index is exactly what it does.
    const publicKey = chain.key.deriveChild(index).publicKey;
    if (!publicKey) throw new Error('Derived key has no public key');
    return publicKey;
  }
  return compressed(child);
}

/**
 * SEC1 compressed encoding from one affine conversion. noble's toBytes first checks again that
 * the point is on the curve, a second field inversion (about 25 µs of a 250 µs derivation,
 * bench/README.md); a sum of two curve points that is not infinity is on the curve.
 */
function compressed(point: CurvePoint): Uint8Array {
  const { x, y } = point.toAffine();
  const bytes = new Uint8Array(33);
  bytes[0] = (y & 1n) === 0n ? 0x02 : 0x03;
  bytes.set(Point.Fp.toBytes(x), 1);
  return bytes;
}

/**
 * The receive address at `<account>/0/<index>`. An out-of-range index is a caller bug (indexes
 * come from a database sequence), so it throws a RangeError rather than a user-facing error.
 */
export function deriveDepositAddress(format: HdFormat, account: HDKey, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > MAX_ADDRESS_INDEX) {
    throw new RangeError(`Deposit address index must be an integer in 0..${MAX_ADDRESS_INDEX}, got ${index}`);
  }
  const publicKey = childPublicKey(receiveChain(account), index);
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
