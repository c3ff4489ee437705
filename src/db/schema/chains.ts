import type { Selectable } from 'kysely';
import type { ChainFacts } from '../../domain/chain-facts.js';

/**
 * The facts of one chain (migration 0045, docs/contract.md §10.6 and §10.7), each column as ChainFacts
 * describes it, under the catalog's chain code. `currencies.chain` references `code`.
 */
export interface ChainTable extends ChainFacts {
  /** The catalog's chain code, upper case: BTC, ETH, BSC, TRON (currencies.chain). */
  code: string;
}

export type ChainRow = Selectable<ChainTable>;
