import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';

const base58check = createBase58check(sha256);

/** Address prefixes of one Bitcoin-family network. */
interface NetworkPrefixes {
  /** Bech32 human-readable part; undefined where the network has no SegWit addresses. */
  hrp?: string;
  p2pkh: number;
  /** Every P2SH version byte the network accepts; the first is the one written. */
  p2sh: readonly number[];
}

/**
 * Prefixes per chain and per network name as `getblockchaininfo` reports it (`chain`).
 * Litecoin's mainnet accepts both the current P2SH byte 0x32 ("M") and the old 0x05 ("3").
 */
const PREFIXES: Readonly<Record<string, Readonly<Record<string, NetworkPrefixes>>>> = {
  BTC: {
    main: { hrp: 'bc', p2pkh: 0x00, p2sh: [0x05] },
    test: { hrp: 'tb', p2pkh: 0x6f, p2sh: [0xc4] },
    testnet4: { hrp: 'tb', p2pkh: 0x6f, p2sh: [0xc4] },
    signet: { hrp: 'tb', p2pkh: 0x6f, p2sh: [0xc4] },
    regtest: { hrp: 'bcrt', p2pkh: 0x6f, p2sh: [0xc4] },
  },
  LTC: {
    main: { hrp: 'ltc', p2pkh: 0x30, p2sh: [0x32, 0x05] },
    test: { hrp: 'tltc', p2pkh: 0x6f, p2sh: [0x3a, 0xc4] },
    regtest: { hrp: 'rltc', p2pkh: 0x6f, p2sh: [0x3a, 0xc4] },
  },
  DOGE: {
    main: { p2pkh: 0x1e, p2sh: [0x16] },
    test: { p2pkh: 0x71, p2sh: [0xc4] },
    regtest: { p2pkh: 0x6f, p2sh: [0xc4] },
  },
};

/** Chains whose addresses this module can map (the Bitcoin-family node watcher's chains). */
export const BITCOIN_FAMILY_CHAINS: readonly string[] = Object.keys(PREFIXES);

/** True when the network name is one `nodeNetworkAddress` knows for the chain. */
export function knowsNetwork(chain: string, network: string): boolean {
  return PREFIXES[chain]?.[network] !== undefined;
}

/**
 * The same output script as `address` (a MAINNET address, as the service derives and
 * validates them), spelled for the network the node runs. On `main` it is the address itself.
 *
 * Why: a regtest or testnet node reports outputs with its own prefixes (`rltc1q…`, `bcrt1q…`,
 * base58 with the test version byte), while the service only ever hands out mainnet addresses.
 * The witness program or key hash is the same on every network, so re-encoding it with the
 * node's prefix names the very same script. This is only used to MATCH what a node reports;
 * the API's address validation stays mainnet-only.
 */
export function nodeNetworkAddress(chain: string, network: string, address: string): string {
  const main = PREFIXES[chain]?.main;
  const target = PREFIXES[chain]?.[network];
  if (main === undefined || target === undefined) throw new Error(`no address prefixes for ${chain} on network "${network}"`);
  if (network === 'main') return address;

  if (main.hrp !== undefined && address.toLowerCase().startsWith(`${main.hrp}1`)) {
    if (target.hrp === undefined) throw new Error(`${chain} ${network} has no SegWit addresses`);
    const { prefix, words, encoding } = decodeSegwit(address);
    if (prefix !== main.hrp) throw new Error(`not a ${chain} mainnet SegWit address: ${address}`);
    return encoding.encode(target.hrp, words);
  }

  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    throw new Error(`not a ${chain} mainnet address: ${address}`);
  }
  const [version] = payload;
  if (payload.length !== 21 || version === undefined) throw new Error(`not a ${chain} mainnet address: ${address}`);
  const hash = payload.subarray(1);
  if (version === main.p2pkh) return base58check.encode(Uint8Array.of(target.p2pkh, ...hash));
  if (main.p2sh.includes(version)) return base58check.encode(Uint8Array.of(target.p2sh[0]!, ...hash));
  throw new Error(`not a ${chain} mainnet address: ${address}`);
}

/** Witness v0 is bech32 (BIP-173), v1 and later bech32m (BIP-350). */
function decodeSegwit(address: string): { prefix: string; words: number[]; encoding: typeof bech32 } {
  for (const encoding of [bech32, bech32m]) {
    let decoded: { prefix: string; words: number[] };
    try {
      decoded = encoding.decode(address as `${string}1${string}`);
    } catch {
      continue;
    }
    const version = decoded.words[0];
    if (version === undefined) break;
    if ((version === 0) === (encoding === bech32)) return { ...decoded, encoding };
  }
  throw new Error(`not a valid SegWit address: ${address}`);
}

/** Address prefixes in the shape @scure/btc-signer takes (its BTC_NETWORK). */
export interface SignerNetwork {
  bech32: string;
  pubKeyHash: number;
  scriptHash: number;
  wif: number;
}

/**
 * The chain's MAINNET prefixes as signer networks, one per P2SH byte it accepts (Litecoin's "M"
 * and old "3"): what the signer decodes a payout's mainnet address with into an output script,
 * the same on every network. The WIF byte is never used (no key leaves as WIF): 0x80.
 */
export function mainnetSignerNetworks(chain: string): SignerNetwork[] {
  const main = PREFIXES[chain]?.main;
  if (main === undefined) throw new Error(`no address prefixes for ${chain}`);
  // A chain without SegWit gets an hrp no address can carry (bech32 needs a "1" after it).
  return main.p2sh.map((scriptHash) => ({ bech32: main.hrp ?? 'none', pubKeyHash: main.p2pkh, scriptHash, wif: 0x80 }));
}
