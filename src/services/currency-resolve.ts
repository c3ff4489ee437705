import type { CurrencyRow } from '../db/schema/currencies.js';
import { ApiError } from '../errors.js';

/** The request fields that name a currency: coin_from/network_from, coin_to/network_to, or coin/network. */
export interface CurrencyFields {
  coin: string;
  network: string;
}

/**
 * The catalog row a request names, or the 400 saying what is wrong, with its item (docs/contract.md §10.4):
 * an unknown coin is `currency_unsupported`, a network the coin is not on `network_unsupported`,
 * and a coin on several networks without one is a `bad_request` on the network field. The
 * top-level code stays v1.1's `bad_request`. `rows` are the coin's rows (catalog.networksOf).
 */
export function resolveCurrency(
  rows: readonly CurrencyRow[],
  rawCoin: string,
  rawNetwork: string | undefined,
  fields: CurrencyFields,
): CurrencyRow {
  const coin = rawCoin.toUpperCase();
  if (rows.length === 0) {
    throw ApiError.field('bad_request', { code: 'currency_unsupported', field: fields.coin }, `${fields.coin} "${rawCoin}" is not a known coin`);
  }
  const networks = rows.map((row) => row.network).sort().join(', ');
  if (rawNetwork === undefined) {
    if (rows.length === 1 && rows[0] !== undefined) return rows[0];
    throw ApiError.field(
      'bad_request',
      { code: 'bad_request', field: fields.network },
      `${coin} exists on several networks (${networks}): pass ${fields.network}`,
    );
  }
  const row = rows.find((candidate) => candidate.network === rawNetwork.toUpperCase());
  if (row === undefined) {
    throw ApiError.field(
      'bad_request',
      { code: 'network_unsupported', field: fields.network },
      `${fields.network} "${rawNetwork}" is not a network of ${coin} (${networks})`,
    );
  }
  return row;
}
