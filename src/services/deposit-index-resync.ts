import {
  advanceDepositIndex,
  highestDepositIndex,
  peekDepositIndex,
} from '../db/repositories/deposit-addresses-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Db } from '../db/schema/index.js';

/** One chain's sequence before and after a resync. */
export interface ResyncedChain {
  chain: string;
  /** The highest index (hd derivation index, memo tag number) this database knows was handed out; null: none. */
  highestKnown: number | null;
  /** The number the sequence would have handed out next. */
  nextBefore: number;
  /** The number it hands out next now (≥ nextBefore). */
  nextAfter: number;
}

/**
 * After a restore (docs/operations.md, "Backups, restore and PITR") the chains' index sequences
 * are back where the backup left them, while the chain has seen addresses handed out after it:
 * the next orders would get those addresses again (one address, two orders). A resync moves each
 * hd and memo chain's sequence to at least the highest index the database knows + 1 + `gap`,
 * never back. The gap (ADDRESS_RESYNC_GAP) must cover the indexes drawn between the backup and
 * the restore: they are not in the restored database. Run at every start (runtime.ts) and by
 * `npm run admin -- addresses resync` (POST /admin/v1/addresses/resync).
 */
export async function resyncDepositIndexes(db: Db, catalog: readonly CurrencyRow[], gap: number): Promise<ResyncedChain[]> {
  const chains = [...new Set(catalog.filter((row) => row.deposit_strategy === 'hd' || row.deposit_strategy === 'memo').map((row) => row.chain))].sort();
  const result: ResyncedChain[] = [];
  for (const chain of chains) {
    const highestKnown = await highestDepositIndex(db, chain);
    const nextBefore = await peekDepositIndex(db, chain);
    const target = (highestKnown ?? -1) + 1 + gap;
    const nextAfter = nextBefore >= target ? nextBefore : await advanceDepositIndex(db, chain, target);
    result.push({ chain, highestKnown, nextBefore, nextAfter });
  }
  return result;
}
