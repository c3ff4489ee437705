import { Type } from '@sinclair/typebox';

/** An exact signed decimal as a string (debit positive): `-0.5`, `12.000000000000000001`. */
export const SignedAmount = (description: string) => Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description });

const Account = Type.String({ description: 'the account (docs/adr/0039-ledger.md); `sandbox:` prefixed for sandbox orders' });
const Asset = Type.String({ description: 'the asset: the coin (BTC), or COIN_NETWORK for a token (USDT_ETH)' });

/** GET /admin/v1/ledger/trial-balance (docs/contract.md §11.5). */
export const TrialBalanceSchema = Type.Object(
  {
    accounts: Type.Array(
      Type.Object({ account: Account, asset: Asset, balance: SignedAmount('the sum of its lines, debit positive') }, { additionalProperties: false }),
    ),
    totals: Type.Record(Type.String(), SignedAmount('the sum of every account in the asset: "0" in balanced books'), {
      description: 'per asset',
    }),
  },
  { additionalProperties: false },
);

/** A line of GET /admin/v1/ledger/entries; the CSV export has the same columns in this order. */
export const LedgerLineSchema = Type.Object(
  {
    created_at: Type.String({ format: 'date-time', description: 'when its ledger transaction was posted' }),
    transaction_id: Type.String({ format: 'uuid' }),
    kind: Type.String({ description: 'opening, deposit, exchange, refund_owed, refund_declined, payout, refund, network_fee, transfer' }),
    account: Account,
    asset: Asset,
    amount: SignedAmount('debit positive, credit negative'),
    order_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    partner_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    memo: Type.Union([Type.String(), Type.Null()], { description: "a transfer's memo" }),
  },
  { additionalProperties: false },
);
