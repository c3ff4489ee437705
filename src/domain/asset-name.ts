/**
 * The name of a catalog currency as an asset: its coin when it is its chain's own coin (`BTC`,
 * `ETH`) and `<COIN>_<NETWORK>` for a token (`USDT_ETH`), upper case, anything else an
 * underscore. One spelling for the signer's policy variables (`SIGNER_MAX_PAYOUT_USDT_ETH`,
 * docs/contract.md §11.3) and the ledger's `asset` column (docs/contract.md §11.4), so an operator reads one name.
 */
export function assetName(coin: string, network: string): string {
  const name = coin === network ? coin : `${coin}_${network}`;
  return name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}
