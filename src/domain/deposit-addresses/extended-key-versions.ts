import type { HdFormat } from './hd-formats.js';

/**
 * BIP-32 serialization version bytes (SLIP-0132) that matter for deposit-address derivation.
 * The version only labels the key: the key material is identical, so any public version is
 * parseable. What the label tells us is which addresses the operator's own wallet watches.
 */
export interface KeyVersion {
  readonly name: string;
  readonly public: number;
  readonly private: number;
}

export const XPUB: KeyVersion = { name: 'xpub', public: 0x0488b21e, private: 0x0488ade4 };
export const YPUB: KeyVersion = { name: 'ypub', public: 0x049d7cb2, private: 0x049d7878 };
export const ZPUB: KeyVersion = { name: 'zpub', public: 0x04b24746, private: 0x04b2430c };
export const TPUB: KeyVersion = { name: 'tpub', public: 0x043587cf, private: 0x04358394 };
export const VPUB: KeyVersion = { name: 'vpub', public: 0x045f1cf6, private: 0x045f18bc };
export const LTUB: KeyVersion = { name: 'Ltub', public: 0x019da462, private: 0x019d9cfe };
export const MTUB: KeyVersion = { name: 'Mtub', public: 0x01b26ef6, private: 0x01b26792 };
export const DGUB: KeyVersion = { name: 'dgub', public: 0x02facafd, private: 0x02fac398 };

const ALL_VERSIONS: readonly KeyVersion[] = [XPUB, YPUB, ZPUB, TPUB, VPUB, LTUB, MTUB, DGUB];

/**
 * Public versions accepted per format; the first one is what the demo wallet emits.
 * - `xpub` is accepted everywhere because many wallets (Ledger Live, hardware exports, EVM and
 *   TRON tooling) label every account key `xpub` whatever the coin.
 * - `zpub` is the native-segwit label for Bitcoin and, with the same bytes, for Litecoin
 *   (Trezor, Electrum-LTC), so it cannot tell the two coins apart.
 * - `ypub` / `Mtub` are refused: they announce a wallet that watches wrapped-segwit (`3…` / `M…`)
 *   addresses, while we derive native segwit, so deposits would not show up in that wallet.
 * - Testnet versions (`tpub`, `vpub`) are refused: the addresses would be mainnet ones.
 */
export const ACCEPTED_VERSIONS: Readonly<Record<HdFormat, readonly KeyVersion[]>> = {
  bitcoin: [ZPUB, XPUB],
  litecoin: [ZPUB, LTUB, XPUB],
  dogecoin: [DGUB, XPUB],
  evm: [XPUB],
  tron: [XPUB],
};

export function findVersion(version: number): { kind: 'public' | 'private'; version: KeyVersion } | undefined {
  for (const v of ALL_VERSIONS) {
    if (v.public === version) return { kind: 'public', version: v };
    if (v.private === version) return { kind: 'private', version: v };
  }
  return undefined;
}
