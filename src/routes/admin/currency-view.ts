import { Type } from '@sinclair/typebox';
import { Decimal } from '../../domain/money.js';
import type { CurrencyRow } from '../../db/schema/currencies.js';
import type { ChainFacts } from '../../domain/chain-facts.js';
import { publicCurrency } from '../../services/currency-catalog.js';
import { CurrencySchema } from '../schemas.js';

/** The operator's view: the public Currency plus the internal columns. */
export function adminCurrencyView(row: CurrencyRow, chain: ChainFacts): Record<string, unknown> {
  return {
    ...publicCurrency(row, chain),
    payout_fee: new Decimal(row.payout_fee),
    address_format: row.address_format,
    deposit_strategy: row.deposit_strategy,
    price_symbol: row.price_symbol,
    token_contract: row.token_contract,
    sort_order: row.sort_order,
    updated_at: row.updated_at.toISOString(),
  };
}

export const AdminCurrency = Type.Composite(
  [
    CurrencySchema,
    Type.Object({
      payout_fee: Type.Number({ description: 'network fee of one payout, in coin units' }),
      address_format: Type.String(),
      deposit_strategy: Type.String(),
      price_symbol: Type.String(),
      token_contract: Type.Union([Type.String(), Type.Null()]),
      sort_order: Type.Integer(),
      updated_at: Type.String({ format: 'date-time' }),
    }),
  ],
  { $id: 'AdminCurrency', additionalProperties: false },
);
