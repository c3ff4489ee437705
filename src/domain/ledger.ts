import { Decimal } from './money.js';
import type { LifecycleEvent } from './order-lifecycle.js';
import type { OrderStatus } from './order-status.js';

/**
 * The chart of accounts (docs/contract.md §11.4; the chart and its posting rules are written out in
 * docs/adr/0039-ledger.md). Every amount is signed: a debit is positive, a credit negative,
 * so every ledger transaction sums to zero in each asset, and so does the whole trial balance.
 *
 * - `deposits` (asset): coins received at our deposit addresses.
 * - `hot_wallet` (asset): coins in the signer's hot wallet; payouts and refunds leave from it.
 * - `payable` (liability, per order): what the exchange owes an order's customer.
 * - `refunds` (liability, per order): refunds owed and not yet sent.
 * - `partner_commission` (liability, per partner): commission owed to partners.
 * - `revenue` (income, per asset): the exchange's own side of every conversion, what it took in
 *   less what it gave out in that asset (the "trading account" of multi-currency books); valued
 *   at any one set of prices its sum over assets is the spread earned.
 * - `network_fees` (expense): miners' fees the hot wallet paid, in the chain's own coin.
 * - `equity` (the operator's capital): coins the operator put into (or took from) the hot wallet.
 *
 * Sandbox orders (docs/contract.md §7.6) post to the same accounts prefixed `sandbox:`.
 */
export const LEDGER_ACCOUNTS = ['deposits', 'hot_wallet', 'payable', 'refunds', 'partner_commission', 'revenue', 'network_fees', 'equity'] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];
/** An account as stored: `payable`, or `sandbox:payable` for a sandbox order's. */
export type StoredAccount = LedgerAccount | `sandbox:${LedgerAccount}`;

/** What a ledger transaction records (ledger_transactions.kind). */
export type LedgerKind =
  /** What an order's moves would have posted before the ledger existed (migration 0057). */
  | 'opening'
  /** A deposit confirmed (or a late deposit seen): deposits debit, payable credit. */
  | 'deposit'
  /** The exchange filled: payable in coin_from to revenue; revenue in coin_to to payable and the partner's commission. */
  | 'exchange'
  /** The order went to refunding: what it owed the customer becomes a refund owed. */
  | 'refund_owed'
  /** A held refund was declined (continue): the refund owed is owed as the order's again. */
  | 'refund_declined'
  /** The payout left the hot wallet (settled: sent by the simulator, confirmed by the signer). */
  | 'payout'
  /** The refund left the hot wallet. */
  | 'refund'
  /** A payout's transaction was mined and reverted: nothing was paid, its fee was spent. */
  | 'network_fee'
  /** The operator moved coins between the hot wallet and the deposits or the operator's capital. */
  | 'transfer'
  /** A partner's commission left the hot wallet (posted by the database when the payout settles, migration 0066). */
  | 'commission_payout';

export interface LedgerEntry {
  account: StoredAccount;
  /** asset-name.ts: `BTC`, `USDT_ETH`. */
  asset: string;
  /** Exact decimal, debit positive, credit negative, never zero. */
  amount: string;
  order_id: string | null;
  partner_id: string | null;
}

/** Asset names the postings need, from the currency catalog. */
export interface LedgerAssets {
  /** A currency's asset name (asset-name.ts). */
  assetOf(currencyId: string): string;
  /** The asset a chain's network fees are paid in: its own coin. */
  feeAssetOf(chain: string): string;
}

/** One ledger transaction to post: balanced per asset (the database refuses it otherwise). */
export interface LedgerPosting {
  kind: LedgerKind;
  order_id: string | null;
  memo: string | null;
  /** Who made a transfer; null for an order's posting. */
  actor: string | null;
  entries: LedgerEntry[];
}

/** The order's columns a posting is made from (after the move). */
export interface PostedOrder {
  id: string;
  partner_id: string;
  sandbox: boolean;
  amount_from_received: string | null;
  amount_to_final: string | null;
  partner_fee: string | null;
}

/** What a settled payout or refund paid, from its payouts row. */
export interface SettledPayout {
  amount: string;
  /** The payout's share of the network fee, in feeAsset; null when none is known (the simulator). */
  fee: string | null;
  /** The chain's own coin, what the fee is paid in. */
  feeAsset: string;
}

export interface MoveToPost {
  to: OrderStatus;
  event: LifecycleEvent;
  order: PostedOrder;
  /** Asset names of the order's two currencies. */
  assetFrom: string;
  assetTo: string;
  /** For payout_sent and refund_sent: the payouts row settled by the move. */
  settled?: SettledPayout;
  /** For payout_failed: the fee its reverted transaction spent (nothing else left the hot wallet). */
  spentFee?: { fee: string; feeAsset: string };
}

/**
 * The moves that post, each with the status it must end in (the table in order-lifecycle.ts
 * allows each event from one status only, so the event and its destination name the move).
 */
const POSTING_MOVES: Partial<Record<LifecycleEvent, OrderStatus>> = {
  confirmed: 'exchanging',
  late_deposit: 'refunding',
  cannot_proceed: 'refunding',
  continue: 'exchanging',
  exchange_filled: 'sending',
  payout_sent: 'completed',
  refund_sent: 'refunded',
  payout_failed: 'failed',
};

/** Whether the move `event` ending in `to` posts to the ledger (a batch of moves that do not is written without it). */
export function movePosts(event: LifecycleEvent, to: OrderStatus): boolean {
  return POSTING_MOVES[event] === to;
}

/**
 * The ledger transactions an applied move posts (in the move's own database transaction), by
 * the posting rules in docs/adr/0039-ledger.md. Pure and exact: amounts are the order's and the
 * payout row's own decimals, only signs change and the exchange adds two, so nothing is ever
 * rounded. A zero amount posts no line (a line of zero says nothing), and a transaction left
 * without lines is dropped.
 */
export function postingsForMove(move: MoveToPost): LedgerPosting[] {
  const { order, event, to } = move;
  const book = new Book(order);
  const received = order.amount_from_received;
  if (!movePosts(event, to) || received === null) return [];
  const owed = (): void => book.post('deposit', [['deposits', move.assetFrom, received], ['payable', move.assetFrom, negate(received)]]);
  const refundOwed = (): void => book.post('refund_owed', [['payable', move.assetFrom, received], ['refunds', move.assetFrom, negate(received)]]);
  switch (event) {
    case 'confirmed':
      owed();
      break;
    case 'late_deposit':
      owed();
      refundOwed();
      break;
    case 'cannot_proceed':
      refundOwed();
      break;
    case 'continue':
      book.post('refund_declined', [['refunds', move.assetFrom, received], ['payable', move.assetFrom, negate(received)]]);
      break;
    case 'exchange_filled': {
      const paidOut = order.amount_to_final ?? '0';
      const commission = order.partner_fee ?? '0';
      book.post('exchange', [
        ['payable', move.assetFrom, received],
        ['revenue', move.assetFrom, negate(received)],
        ['revenue', move.assetTo, new Decimal(paidOut).plus(commission).toFixed()],
        ['payable', move.assetTo, negate(paidOut)],
        ['partner_commission', move.assetTo, negate(commission)],
      ]);
      break;
    }
    case 'payout_sent':
    case 'refund_sent': {
      if (move.settled === undefined) throw new Error(`order ${order.id}: ${event} posts what its payouts row paid, and none was given`);
      const payout = event === 'payout_sent';
      const asset = payout ? move.assetTo : move.assetFrom;
      const { amount, fee, feeAsset } = move.settled;
      book.post(payout ? 'payout' : 'refund', [
        [payout ? 'payable' : 'refunds', asset, amount],
        ['hot_wallet', asset, negate(amount)],
        ['network_fees', feeAsset, fee ?? '0'],
        ['hot_wallet', feeAsset, negate(fee ?? '0')],
      ]);
      break;
    }
    case 'payout_failed':
      if (move.spentFee !== undefined) {
        const { fee, feeAsset } = move.spentFee;
        book.post('network_fee', [['network_fees', feeAsset, fee], ['hot_wallet', feeAsset, negate(fee)]]);
      }
      break;
  }
  return book.postings;
}

type Line = [LedgerAccount, string, string];

/** Collects an order's postings: its accounts under the order's mode, its order and partner on every line. */
class Book {
  readonly postings: LedgerPosting[] = [];
  constructor(private readonly order: PostedOrder) {}

  post(kind: LedgerKind, lines: Line[]): void {
    const entries = lines
      .filter(([, , amount]) => !new Decimal(amount).isZero())
      .map(([account, asset, amount]): LedgerEntry => ({
        account: storedAccount(account, this.order.sandbox),
        asset,
        amount: new Decimal(amount).toFixed(),
        order_id: this.order.id,
        partner_id: this.order.partner_id,
      }));
    if (entries.length > 0) this.postings.push({ kind, order_id: this.order.id, memo: null, actor: null, entries });
  }
}

/** The account as stored for a live or a sandbox order. */
export function storedAccount(account: LedgerAccount, sandbox: boolean): StoredAccount {
  return sandbox ? `sandbox:${account}` : account;
}

function negate(amount: string): string {
  return new Decimal(amount).negated().toFixed();
}

/** The sum of each asset's amounts: every ledger transaction's is zero in every asset. */
export function totalsByAsset(entries: readonly Pick<LedgerEntry, 'asset' | 'amount'>[]): Map<string, Decimal> {
  const totals = new Map<string, Decimal>();
  for (const { asset, amount } of entries) totals.set(asset, (totals.get(asset) ?? new Decimal(0)).plus(amount));
  return totals;
}
