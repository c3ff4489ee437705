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
