import { ConfigError } from '../config.js';
import { Decimal, DECIMAL_PATTERN } from '../domain/money.js';

/**
 * The signer's own limits (docs/contract.md §11.3), read from the signer's environment and nothing else:
 * a compromised API or database can ask for payouts, but never raise what the signer will sign.
 *
 * An asset is named as the catalog's coin when it is its chain's own coin (`BTC`, `ETH`) and
 * `<COIN>_<NETWORK>` for a token (`USDT_ETH`), in upper case: `SIGNER_MAX_PAYOUT_USDT_ETH`.
 */
export interface AssetLimits {
  /** SIGNER_MAX_PAYOUT_<ASSET>: no single payout above it is ever signed. */
  maxPayout: Decimal;
  /** SIGNER_MAX_DAILY_<ASSET>: what the signer signs of the asset in any 24 hours, at most. */
  maxDaily: Decimal;
  /** SIGNER_APPROVAL_ABOVE_<ASSET>: a payout above it waits for an operator's approval; null: none does. */
  approvalAbove: Decimal | null;
}

export type SignerPolicy = ReadonlyMap<string, AssetLimits>;

/** The asset name of a catalog currency, as the policy variables spell it (and the ledger, docs/contract.md §11.4). */
export { assetName } from '../domain/asset-name.js';

const VARIABLE = /^SIGNER_(MAX_PAYOUT|MAX_DAILY|APPROVAL_ABOVE)_([A-Z0-9_]+)$/;
const AMOUNT = new RegExp(DECIMAL_PATTERN);

/**
 * Every asset with limits. Both maxima are required for an asset (one without the other is a
 * mistake, refused at start naming the variable that is missing); an asset without limits is
 * never paid out (judgePayout: `failed`, `policy`): the safe default for a key holder.
 */
export function parseSignerPolicy(env: NodeJS.ProcessEnv): SignerPolicy {
  const found = new Map<string, Partial<Record<'MAX_PAYOUT' | 'MAX_DAILY' | 'APPROVAL_ABOVE', Decimal>>>();
  for (const [name, raw] of Object.entries(env)) {
    const match = VARIABLE.exec(name);
    if (match === null || raw === undefined) continue;
    const [, kind, asset] = match as unknown as [string, 'MAX_PAYOUT' | 'MAX_DAILY' | 'APPROVAL_ABOVE', string];
    if (!AMOUNT.test(raw.trim()) || new Decimal(raw.trim()).lte(0)) throw new ConfigError(name, 'must be a positive decimal amount of the asset, like 0.5');
    found.set(asset, { ...found.get(asset), [kind]: new Decimal(raw.trim()) });
  }
  const policy = new Map<string, AssetLimits>();
  for (const [asset, limits] of [...found].sort(([a], [b]) => a.localeCompare(b))) {
    if (limits.MAX_PAYOUT === undefined) throw new ConfigError(`SIGNER_MAX_PAYOUT_${asset}`, `required with SIGNER_MAX_DAILY_${asset} or SIGNER_APPROVAL_ABOVE_${asset}`);
    if (limits.MAX_DAILY === undefined) throw new ConfigError(`SIGNER_MAX_DAILY_${asset}`, `required with SIGNER_MAX_PAYOUT_${asset}`);
    if (limits.MAX_DAILY.lt(limits.MAX_PAYOUT)) throw new ConfigError(`SIGNER_MAX_DAILY_${asset}`, `below SIGNER_MAX_PAYOUT_${asset}: no payout of the maximum could ever be signed`);
    policy.set(asset, { maxPayout: limits.MAX_PAYOUT, maxDaily: limits.MAX_DAILY, approvalAbove: limits.APPROVAL_ABOVE ?? null });
  }
  return policy;
}

/** A payout as the signer sees it before signing. */
export interface PayoutToJudge {
  asset: string;
  amount: Decimal;
  /** What the order says must be sent (its amount_to_final, or the refund's amount). */
  expectedAmount: Decimal;
  /** The destination is one of this exchange's own deposit addresses. */
  toOwnAddress: boolean;
  /** An operator approved this payout (recorded with who and when). */
  approved: boolean;
}

export type PolicyVerdict =
  | { action: 'sign' }
  | { action: 'await_approval'; reason: string }
  /** Never signed: the payout fails with this reason. */
  | { action: 'refuse'; reason: string };

/**
 * The signer's verdict on one payout, given what it has signed of the asset in the last 24 hours
 * (`signedLast24h`, from its own records of signed payouts). Checked again on every claim, so a
 * limit lowered between a request and its signing applies.
 */
export function judgePayout(payout: PayoutToJudge, policy: SignerPolicy, signedLast24h: Decimal): PolicyVerdict {
  const limits = policy.get(payout.asset);
  if (limits === undefined) return { action: 'refuse', reason: `no signer limits for ${payout.asset} (SIGNER_MAX_PAYOUT_${payout.asset}, SIGNER_MAX_DAILY_${payout.asset})` };
  if (payout.amount.lte(0)) return { action: 'refuse', reason: 'the amount is not positive' };
  if (!payout.amount.eq(payout.expectedAmount)) return { action: 'refuse', reason: `the amount ${payout.amount.toFixed()} is not what the order says (${payout.expectedAmount.toFixed()})` };
  if (payout.toOwnAddress) return { action: 'refuse', reason: "the destination is one of the exchange's own deposit addresses" };
  if (payout.amount.gt(limits.maxPayout)) return { action: 'refuse', reason: `above SIGNER_MAX_PAYOUT_${payout.asset} (${limits.maxPayout.toFixed()})` };
  if (signedLast24h.plus(payout.amount).gt(limits.maxDaily)) {
    return { action: 'refuse', reason: `would pass SIGNER_MAX_DAILY_${payout.asset} (${limits.maxDaily.toFixed()}; ${signedLast24h.toFixed()} signed in the last 24 hours)` };
  }
  if (limits.approvalAbove !== null && payout.amount.gt(limits.approvalAbove) && !payout.approved) {
    return { action: 'await_approval', reason: `above SIGNER_APPROVAL_ABOVE_${payout.asset} (${limits.approvalAbove.toFixed()})` };
  }
  return { action: 'sign' };
}
