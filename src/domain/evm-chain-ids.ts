/**
 * EIP-155 chain ids of the EVM chains in the catalog, by the catalog's `chain` code. A wallet
 * matches a token by (chain id, contract address) (docs/contract.md §7.1), and EIP-681 payment URIs name
 * the chain with it (§7.4). A chain missing here answers chain_id null: add it with its network.
 */
export const EVM_CHAIN_IDS: Readonly<Record<string, number>> = Object.freeze({
  ETH: 1,
  BSC: 56,
});

/** The EIP-155 chain id of a catalog chain, or null for a chain that is not EVM (or not listed). */
export function evmChainId(chain: string, addressFormat: string): number | null {
  return addressFormat === 'evm' ? (EVM_CHAIN_IDS[chain] ?? null) : null;
}
