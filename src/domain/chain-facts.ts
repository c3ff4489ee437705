import type { AddressFormat } from './address-format.js';

/**
 * What a Currency row tells a wallet about its chain (docs/contract.md §10.7), and what an ETA is made of
 * (§10.6). The facts come from the catalog's chains table (migration 0045); the shape is here so
 * the domain reads them without the database layer.
 */
export interface ChainFacts {
  /** The chain as the API shows it: bitcoin, ethereum, bsc, tron. */
  name: string;
  /** CAIP-2 chain id. */
  caip2: string;
  /** SLIP-44 coin type of the native coin. */
  slip44: number;
  /** CAIP-19 asset namespace of the chain's tokens (erc20, trc20, token); null where none. */
  token_namespace: string | null;
  /** Average block interval, milliseconds. */
  block_time_ms: number;
  /** Seconds from the exchange to the payout seen on chain. */
  payout_seconds: number;
  /** What wallets call the routing tag; null where the chain has none. */
  memo_name: string | null;
}

/**
 * CAIP-19 asset type of a currency: `{caip2}/slip44:{coin type}` for the chain's native coin,
 * `{caip2}/{token namespace}:{contract}` for a token. An EVM contract is written in lower case, as
 * the CAIP-21 (erc20) examples are: the reference is an identifier, not a checksummed display
 * form. Other chains' contracts are case-sensitive base58 and stay as they are.
 */
export function caip19(chain: ChainFacts, tokenContract: string | null, addressFormat: AddressFormat): string {
  if (tokenContract === null) return `${chain.caip2}/slip44:${chain.slip44}`;
  if (chain.token_namespace === null) throw new Error(`chain ${chain.name} lists a token but has no CAIP-19 token namespace`);
  const reference = addressFormat === 'evm' ? tokenContract.toLowerCase() : tokenContract;
  return `${chain.caip2}/${chain.token_namespace}:${reference}`;
}

/**
 * Seconds from a deposit being sent to its payout seen on chain (docs/contract.md §10.6): the deposit's
 * confirmations at the deposit chain's block time (rounded up to a whole second), then the payout
 * chain's allowance. An estimate from averages, never a promise.
 */
export function etaSeconds(confirmations: number, deposit: Pick<ChainFacts, 'block_time_ms'>, payout: Pick<ChainFacts, 'payout_seconds'>): number {
  return Math.ceil((confirmations * deposit.block_time_ms) / 1000) + payout.payout_seconds;
}
