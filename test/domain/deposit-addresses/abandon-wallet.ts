// Shared fixture: the BIP-39 test mnemonic that BIP-84 and most wallet test suites publish
// vectors for. Test-only — production code never sees a mnemonic.
import { HDKey } from '@scure/bip32';
import type { Versions } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';

export const ABANDON_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

const seed = mnemonicToSeedSync(ABANDON_MNEMONIC);

/** The private HD key at `path` of the abandon wallet, serialized with `versions`. */
export function abandonKeyAt(path: string, versions?: Versions): HDKey {
  return HDKey.fromMasterSeed(seed, versions).derive(path);
}
