import { setImmediate as nextTurn } from 'node:timers/promises';

/** How many sequence numbers one draw takes (one statement per this many orders of a chain). */
export const DEPOSIT_INDEX_BLOCK = 32;
/** How many addresses are kept made ahead of the requests that will take them. */
export const DEPOSIT_ADDRESSES_AHEAD = 8;

/** One address made from a sequence number: an HD child or a memo tag. */
export interface StockedAddress {
  /** The sequence number it was made from. */
  index: number;
  address: string;
  tag: string | null;
}

type Waiter = { resolve: (address: StockedAddress) => void; reject: (error: unknown) => void };

/**
 * A chain's deposit addresses made ahead of the requests: sequence numbers are drawn
 * in blocks of DEPOSIT_INDEX_BLOCK (one statement, outside any order's transaction), and up to
 * DEPOSIT_ADDRESSES_AHEAD addresses are derived from them in the background, one per event-loop
 * turn, so an order takes a ready address without a round trip or a derivation of its own.
 *
 * The cost is gaps in the wallet (docs/adr/0004-deposit-addresses.md): numbers drawn and not
 * used when the process stops are never used, and several processes use their blocks side by
 * side, so the indexes in use are not consecutive.
 */
export class DepositAddressStock {
  private readonly ready: StockedAddress[] = [];
  private drawn: number[] = [];
  private readonly waiting: Waiter[] = [];
  private filling: Promise<void> | undefined;
  private closed = false;

  constructor(
    /** Draws `count` numbers of the chain's sequence. */
    private readonly draw: (count: number) => Promise<number[]>,
    /** Makes the address of a number (pure, synchronous: a derivation or a tag). */
    private readonly make: (index: number) => Omit<StockedAddress, 'index'>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** An address nobody else has or will get. Waits for a draw or a derivation only when none is ready. */
  take(): Promise<StockedAddress> {
    if (this.closed) return Promise.reject(new Error('deposit address stock closed'));
    const address = this.ready.shift();
    this.fill();
    if (address !== undefined) return Promise.resolve(address);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.fill();
    });
  }

  /**
   * An address taken for an order the database certainly refused (nothing was written): it is
   * handed out next, so a refused order leaves no gap. Never for an error whose outcome is unknown.
   */
  giveBack(address: StockedAddress): void {
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter.resolve(address);
    else this.ready.unshift(address);
  }

  /** Waits for a draw or derivation in progress, then refuses more. */
  async close(): Promise<void> {
    this.closed = true;
    await this.filling;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error('deposit address stock closed'));
  }

  private fill(): void {
    if (this.filling !== undefined || this.closed) return;
    if (this.waiting.length === 0 && this.ready.length >= DEPOSIT_ADDRESSES_AHEAD) return;
    this.filling = this.refill()
      .catch((error: unknown) => {
        for (const waiter of this.waiting.splice(0)) waiter.reject(error);
        this.onError(error);
      })
      .finally(() => {
        this.filling = undefined;
        // A request that arrived during the last turn.
        if (this.waiting.length > 0) this.fill();
      });
  }

  private async refill(): Promise<void> {
    while (!this.closed && (this.waiting.length > 0 || this.ready.length < DEPOSIT_ADDRESSES_AHEAD)) {
      if (this.drawn.length === 0) this.drawn = await this.draw(DEPOSIT_INDEX_BLOCK);
      const index = this.drawn.shift();
      if (index === undefined) continue;
      const address = { index, ...this.make(index) };
      const waiter = this.waiting.shift();
      if (waiter !== undefined) waiter.resolve(address);
      else this.ready.push(address);
      // One derivation per turn: requests keep being served while the stock fills.
      if (this.waiting.length === 0) await nextTurn();
    }
  }
}
