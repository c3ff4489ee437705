/**
 * EIP-1559 fees of the signer's EVM transactions, in wei per gas, bounded by the operator
 * (docs/contract.md §11.7: a bounded estimate is never used silently; the caller reports it).
 */

export interface EvmFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface EvmFeeBounds {
  /** The priority fee (tip) is never less: SIGNER_MIN_PRIORITY_FEE_GWEI_<CHAIN>, in wei. */
  minPriorityFee: bigint;
  /** maxFeePerGas is never more, replacements included: SIGNER_MAX_FEE_GWEI_<CHAIN>, in wei. */
  maxFee: bigint;
}

/**
 * The node's view made into fees: the tip the node suggests (`eth_maxPriorityFeePerGas`), and
 * a fee cap of twice the latest base fee plus the tip (room for six full blocks of base-fee
 * rises, the usual wallet rule). Then bounded: the tip raised to the floor, the cap lowered to
 * the ceiling, the tip never above the cap. `bounded` says whether a bound changed anything.
 */
export function boundedFees(baseFee: bigint, suggestedTip: bigint, bounds: EvmFeeBounds): { estimate: EvmFees; used: EvmFees; bounded: boolean } {
  const estimate = { maxPriorityFeePerGas: suggestedTip, maxFeePerGas: 2n * baseFee + suggestedTip };
  const tip = max(suggestedTip, bounds.minPriorityFee);
  const cap = min(2n * baseFee + tip, bounds.maxFee);
  const used = { maxFeePerGas: cap, maxPriorityFeePerGas: min(tip, cap) };
  return { estimate, used, bounded: used.maxFeePerGas !== estimate.maxFeePerGas || used.maxPriorityFeePerGas !== estimate.maxPriorityFeePerGas };
}

/**
 * A replacement's fees: at least 10 % above the replaced transaction's, both the cap and the
 * tip (what geth and most nodes require to replace a transaction of the same nonce; rounded up,
 * and at least one wei more), and at least what the node suggests now. Undefined when the cap
 * would pass the ceiling: the transaction then waits as it is.
 */
export function replacementFees(old: EvmFees, now: EvmFees, bounds: EvmFeeBounds): EvmFees | undefined {
  const maxFeePerGas = max(bump(old.maxFeePerGas), now.maxFeePerGas);
  const maxPriorityFeePerGas = min(max(bump(old.maxPriorityFeePerGas), now.maxPriorityFeePerGas), maxFeePerGas);
  if (maxFeePerGas > bounds.maxFee) return undefined;
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** ⌈x × 1.1⌉, and never x itself. */
export function bump(x: bigint): bigint {
  return max((x * 110n + 99n) / 100n, x + 1n);
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
