import { advanceDepositIndex, highestDepositIndex, peekDepositIndex, retireDepositAddress } from '../db/repositories/deposit-addresses-repository.js';
import type { Db } from '../db/schema/index.js';
import { deriveDepositAddress } from '../domain/deposit-addresses/index.js';
import type { DepositWallets } from './deposit-wallets.js';

/** An hd address this database has not handed out, to look for on chain. */
export interface ProbedAddress {
  index: number;
  /** As the API would hand it out (the reader spells it for its node). */
  address: string;
}

/** What a chain watcher needs to notice an address used on chain that the database never handed out. */
export interface DepositIndexProbe {
  /** Token contracts (lower case) and null (the chain's own coin): every way a deposit can arrive. */
  readonly contracts: readonly (string | null)[];
  /** The addresses to look for on this pass. */
  addresses(): Promise<ProbedAddress[]>;
  /**
   * `index` was paid on chain: the address is retired (no order can be given it, even from a
   * process's stock) and the sequence moves past it plus the gap. Null when it was retired before.
   */
  seen(index: number): Promise<{ nextBefore: number; nextAfter: number } | null>;
}

/**
 * After a restore (docs/adr/0054-backups.md) the database knows only the indexes handed out before its backup;
 * the orders placed after it are gone, but their deposits are on chain. The resync at start moves
 * the sequence past the known indexes plus ADDRESS_RESYNC_GAP (deposit-index-resync.ts); this is
 * what catches the indexes past that gap: the chain's node watcher looks, in every block it
 * scans, for payments to the addresses above the highest index the database knows up to `gap`
 * past the sequence's next one (the indexes drawn ahead by running processes included). A hit is
 * an address some order got that this database does not know: it is written down as retired
 * (a deposit_addresses row bound to no order, which the unique index then refuses to any order,
 * an index already drawn into a running process's stock included) and the sequence moves past
 * it plus the gap, never back.
 *
 * Only hd chains: a memo chain's tags are not on chain in a way a block scan can attribute.
 */
/** At most this many addresses a pass (the newest): about a second of derivations, once. */
const MAX_PROBED = 5000;

export function depositIndexProbe(db: Db, wallets: DepositWallets, chain: string, contracts: readonly (string | null)[], gap: number): DepositIndexProbe | undefined {
  const wallet = wallets.hd.get(chain);
  if (wallet === undefined) return undefined;
  /** Derivations are ~250 µs each: made once per index for the life of the watcher. */
  const derived = new Map<number, string>();
  const addressOf = (index: number): string => {
    let address = derived.get(index);
    if (address === undefined) {
      address = deriveDepositAddress(wallet.format, wallet.account, index);
      derived.set(index, address);
    }
    return address;
  };
  return {
    contracts,
    async addresses() {
      // From the highest index an order has: an index drawn into a process's stock is above it.
      const to = (await peekDepositIndex(db, chain)) + gap;
      const from = Math.max(((await highestDepositIndex(db, chain, true)) ?? -1) + 1, to - MAX_PROBED);
      const probed: ProbedAddress[] = [];
      for (let index = from; index < to; index++) probed.push({ index, address: addressOf(index) });
      // Indexes below the window belong to orders now: their derivations are not needed again.
      for (const index of derived.keys()) if (index < from) derived.delete(index);
      return probed;
    },
    async seen(index) {
      if (!(await retireDepositAddress(db, chain, addressOf(index), index))) return null;
      const nextBefore = await peekDepositIndex(db, chain);
      const target = index + 1 + gap;
      const nextAfter = nextBefore >= target ? nextBefore : await advanceDepositIndex(db, chain, target);
      return { nextBefore, nextAfter };
    },
  };
}
