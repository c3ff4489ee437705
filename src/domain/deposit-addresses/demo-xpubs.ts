import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HD_ACCOUNT_PATHS, HD_FORMATS } from './hd-formats.js';
import type { HdFormat } from './hd-formats.js';
import { ACCEPTED_VERSIONS } from './extended-key-versions.js';

/**
 * Account xpubs of a throwaway wallet, so a fresh install can hand out deposit addresses before
 * the operator configures their own keys. Only public keys leave this function: the mnemonic
 * and seed are dropped (and the seed and private keys zeroed), so nobody — including us — can
 * ever spend what is sent to these addresses. That is the point: demo deposits are unspendable.
 */
export function createDemoXpubs(): Record<HdFormat, string> {
  const seed = mnemonicToSeedSync(generateMnemonic(wordlist, 128));
  const xpubs = {} as Record<HdFormat, string>;
  for (const format of HD_FORMATS) {
    // Emit each format's preferred label (zpub for segwit, dgub for Dogecoin, xpub otherwise).
    const { public: pub, private: priv } = ACCEPTED_VERSIONS[format][0]!;
    const root = HDKey.fromMasterSeed(seed, { public: pub, private: priv });
    const account = root.derive(HD_ACCOUNT_PATHS[format]);
    xpubs[format] = account.publicExtendedKey;
    account.wipePrivateData();
    root.wipePrivateData();
  }
  seed.fill(0);
  return xpubs;
}
