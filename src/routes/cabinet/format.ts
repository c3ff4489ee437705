import { Decimal } from '../../domain/money.js';

/** An exact decimal (NUMERIC text) as people read it: no trailing zeros, never a float. */
export function amount(text: string | null): string {
  if (text === null) return '—';
  return new Decimal(text).toFixed();
}

/** A status as words ("waiting_deposit" → "waiting deposit"). */
export function statusWords(status: string): string {
  return status.replace(/_/g, ' ');
}

/** Why an order went where it is (`status_reason`), as a sentence. */
const REASON_SENTENCES: Readonly<Record<string, string>> = {
  amount_below_min: 'The amount received was below the minimum for this pair.',
  amount_above_max: 'The amount received was above the maximum for this pair.',
  fixed_rate_mismatch: 'The amount received differs from the amount the fixed rate was quoted for.',
  late_deposit: 'The deposit arrived after the order had expired.',
  exchange_failed: 'The exchange could not be made.',
  payout_failed: 'The payout could not be sent.',
  operator: 'The operator ended the order.',
  cancelled: 'It was cancelled before any deposit.',
  awaiting_liquidity: 'The payout waits until the exchange’s wallet can cover it, and is sent as soon as it can.',
};

/** What each timeline line tells (order_events.reason: the event, or the reason it gave). */
const EVENT_SENTENCES: Readonly<Record<string, string>> = {
  created: 'Order created',
  deposit_seen: 'Deposit seen on the chain',
  confirmations: 'Deposit confirmations',
  confirmed: 'Deposit confirmed',
  deposit_dropped: 'Deposit dropped from the chain (a reorganisation)',
  time_limit: 'No deposit in time: the order expired',
  exchange_filled: 'Exchanged',
  payout_sent: 'Payout sent',
  payout_waiting: 'Payout waiting',
  refund_sent: 'Refund sent',
  operator_fail: 'Failed by the operator',
  cancel: 'Cancelled',
  cancelled: 'Cancelled',
  set_refund_address: 'Refund address set',
  continue: 'Continued at the current rate',
  refund: 'Refund asked for',
  hold_expired: 'The time to choose ran out: the refund proceeds',
};

export function reasonSentence(reason: string): string {
  return REASON_SENTENCES[reason] ?? reason.replace(/_/g, ' ');
}

export function eventSentence(reason: string | null): string {
  if (reason === null) return 'Changed';
  return EVENT_SENTENCES[reason] ?? REASON_SENTENCES[reason] ?? reason.replace(/_/g, ' ');
}

/** What a status badge must tell apart beyond the status itself (docs/contract.md §9.1). */
export interface BadgeFacts {
  status: string;
  status_reason: string | null;
  refund_hold_until: Date | null;
  refund_address: string | null;
  refund_address_tag: string | null;
  deposit_address_tag: string | null;
}

/**
 * An order's state as a person needs it (as it reads at `now`): the label and its tone (a CSS
 * class). A cancelled order says cancelled, not expired; a refund says whether it is held for
 * a choice, waits for an address, or is on its way.
 */
export function orderBadge(order: BadgeFacts, now: Date): { label: string; tone: 'wait' | 'good' | 'bad' | 'act' | 'done' } {
  switch (order.status) {
    case 'waiting_deposit':
      return { label: 'waiting for deposit', tone: 'wait' };
    case 'expired':
      return order.status_reason === 'cancelled' ? { label: 'cancelled', tone: 'done' } : { label: 'expired', tone: 'done' };
    case 'refunding': {
      if (order.refund_hold_until !== null && order.refund_hold_until > now) return { label: 'refund held: your choice', tone: 'act' };
      const hasAddress = order.refund_address !== null && (order.deposit_address_tag === null || order.refund_address_tag !== null);
      return hasAddress ? { label: 'refund in progress', tone: 'wait' } : { label: 'waiting for refund address', tone: 'act' };
    }
    case 'sending':
      return order.status_reason === 'awaiting_liquidity' ? { label: 'sending (waiting for funds)', tone: 'wait' } : { label: 'sending', tone: 'wait' };
    case 'completed':
      return { label: 'completed', tone: 'good' };
    case 'refunded':
      return { label: 'refunded', tone: 'done' };
    case 'failed':
      return { label: 'failed', tone: 'bad' };
    default:
      return { label: statusWords(order.status), tone: 'wait' };
  }
}

/**
 * An amount for a list or a total: exact, at most the coin's decimals (rounded down: an amount
 * stored never has more), trailing zeros dropped, thousands grouped with commas (12,345.6789).
 */
export function formatAmount(text: string | null, decimals = 18): string {
  if (text === null) return '—';
  const fixed = new Decimal(text).toDecimalPlaces(decimals, Decimal.ROUND_DOWN).toFixed();
  const [whole = '0', fraction] = fixed.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign === '' ? whole : whole.slice(1);
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}
