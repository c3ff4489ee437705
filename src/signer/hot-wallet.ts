import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { nodeNetworkAddress } from '../chains/nodes/node-network-address.js';
import { deriveDepositAddress, HD_ACCOUNT_PATHS, type HdFormat } from '../domain/deposit-addresses/index.js';
import type { FamilyMnemonics, KeyFamily } from './key-file.js';

/** The chains the signer can hold a hot wallet for, with their family and address format. */
export const HOT_WALLET_CHAINS: Readonly<Record<string, { family: KeyFamily; format: HdFormat }>> = {
  BTC: { family: 'bitcoin', format: 'bitcoin' },
  LTC: { family: 'bitcoin', format: 'litecoin' },
  DOGE: { family: 'bitcoin', format: 'dogecoin' },
  ETH: { family: 'evm', format: 'evm' },
  BSC: { family: 'evm', format: 'evm' },
};

/**
 * The chains this release signs payouts on: BIP-84 (P2WPKH) Bitcoin-family chains, and EVM
 * chains. DOGE has hot-wallet keys (BIP-44) but no payer: its P2PKH inputs need the whole
 * previous transaction signed over, and no Dogecoin node is here to prove a payer against.
 */
export const SIGNED_CHAINS: readonly string[] = ['BTC', 'LTC', 'ETH', 'BSC'];

/**
 * The signer's keys, derived from the key file's mnemonics on the standard account paths of
 * each format (BIP-84 for BTC and LTC, BIP-44 for DOGE and EVM: HD_ACCOUNT_PATHS), so any wallet
 * restored from the same words sees the same coins. The funding address, where the operator
 * sends the float, is the account's receive address 0; EVM chains use that one address for every
 * payout (one nonce sequence per chain).
 *
 * Private keys never leave this object except into a signature made in the signer process.
 */
export class HotWallet {
  private readonly accounts = new Map<string, HDKey>();

  constructor(mnemonics: FamilyMnemonics) {
    const roots = new Map<KeyFamily, HDKey>();
    for (const [chain, { family, format }] of Object.entries(HOT_WALLET_CHAINS)) {
      let root = roots.get(family);
      if (root === undefined) {
        root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonics[family]));
        roots.set(family, root);
      }
      this.accounts.set(chain, root.derive(HD_ACCOUNT_PATHS[format]));
    }
  }

  /** The chain's account key (private). */
  account(chain: string): HDKey {
    const account = this.accounts.get(chain);
    if (account === undefined) throw new Error(`no hot wallet for ${chain}`);
    return account;
  }

  /**
   * The address the operator funds the chain's hot wallet at, as mainnet spells it, or as the
   * node of `network` (`regtest`, `test`: getblockchaininfo's name) spells it for Bitcoin-family
   * chains (EVM addresses are the same on every network).
   */
  fundingAddress(chain: string, network = 'main'): string {
    const entry = HOT_WALLET_CHAINS[chain];
    if (entry === undefined) throw new Error(`no hot wallet for ${chain}`);
    const mainnet = deriveDepositAddress(entry.format, publicOnly(this.account(chain)), 0);
    return entry.family === 'bitcoin' && network !== 'main' ? nodeNetworkAddress(chain, network, mainnet) : mainnet;
  }
}

/** Derivation of addresses needs no private key: the public twin keeps it out of that code. */
function publicOnly(account: HDKey): HDKey {
  return HDKey.fromExtendedKey(account.publicExtendedKey, account.versions);
}
