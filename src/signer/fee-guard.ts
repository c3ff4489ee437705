import { Decimal } from '../domain/money.js';

/**
 * What a fee estimate must pass before the signer pays with it (docs/contract.md §11.7), beside each
 * chain's floor and ceiling: a node behind the chain is not asked for one at all, and an estimate
 * that jumped is held to a multiple of the last one used. Production peers learned both the hard
 * way: a node still syncing answers fees (and coins) of the past, and an estimator glitch once
 * paid hundreds of dollars per transaction.
 */
export interface FeeGuardSettings {
  /** SIGNER_FEE_MAX_JUMP (default 3): an estimate is used at most this many times the last one used. */
  maxJump: Decimal;
  /** SIGNER_FEE_MAX_AGE_SECONDS (default 7200): the node's newest block is at most this old. */
  maxAgeSeconds: number;
  /** SIGNER_FEE_MAX_BLOCK_LAG (default 2): the node's blocks at most this many behind the headers it knows. */
  maxBlockLag: number;
}

export const DEFAULT_FEE_GUARD: FeeGuardSettings = { maxJump: new Decimal(3), maxAgeSeconds: 7200, maxBlockLag: 2 };

/** The node's view of its chain: its block height, the best height it knows of, its newest block's time. */
export interface NodeTip {
  blocks: number;
  headers: number;
  tipTime: Date;
}

/** Why the estimate used is not the node's: none given, raised to the floor, cut to the ceiling or to the jump. */
export type FeeBound = 'missing' | 'floor' | 'ceiling' | 'jump';

/** The node is behind its chain: nothing is signed on its view until it catches up. */
export class NodeBehind extends Error {
  constructor(
    readonly chain: string,
    readonly reason: 'block_lag' | 'stale_tip',
    detail: string,
  ) {
    super(`the ${chain} node is behind (${detail}): no payout is signed on its view until it catches up`);
    this.name = 'NodeBehind';
  }
}

/** Throws NodeBehind when the node's blocks lag its headers or its newest block is too old. */
export function checkTip(chain: string, tip: NodeTip, now: Date, settings: FeeGuardSettings): void {
  const lag = tip.headers - tip.blocks;
  if (lag > settings.maxBlockLag) throw new NodeBehind(chain, 'block_lag', `${lag} blocks behind the headers it knows, SIGNER_FEE_MAX_BLOCK_LAG is ${settings.maxBlockLag}`);
  const age = Math.floor((now.getTime() - tip.tipTime.getTime()) / 1000);
  if (age > settings.maxAgeSeconds) throw new NodeBehind(chain, 'stale_tip', `its newest block is ${age} s old, SIGNER_FEE_MAX_AGE_SECONDS is ${settings.maxAgeSeconds}`);
}

/**
 * The fee to use for an estimate: the node's, raised to `floor`, cut to `lastUsed × maxJump` and
 * to `ceiling` (the ceiling wins over everything, the floor over the jump). `bounds` says what
 * changed it, empty when the estimate is used as it is.
 */
export function guardFee(
  estimate: Decimal | undefined,
  limits: { floor: Decimal; ceiling: Decimal; lastUsed: Decimal | undefined; maxJump: Decimal },
): { used: Decimal; bounds: FeeBound[] } {
  const bounds: FeeBound[] = [];
  let used = estimate ?? limits.floor;
  if (estimate === undefined) bounds.push('missing');
  if (limits.lastUsed !== undefined && used.gt(limits.lastUsed.times(limits.maxJump))) {
    used = limits.lastUsed.times(limits.maxJump);
    bounds.push('jump');
  }
  if (used.lt(limits.floor)) {
    used = limits.floor;
    if (estimate !== undefined) bounds.push('floor');
  }
  if (used.gt(limits.ceiling)) {
    used = limits.ceiling;
    bounds.push('ceiling');
  }
  return { used, bounds };
}
