import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { assetName } from '../../domain/asset-name.js';
import { Decimal, DECIMAL_PATTERN } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { TRANSFER_ACCOUNTS } from '../../services/treasury.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity, STORABLE_TEXT_PATTERN } from './admin-schemas.js';
import { SignedAmount } from './ledger-schemas.js';
import { Actor } from './payouts.js';

const TransferAccount = Type.Union(TRANSFER_ACCOUNTS.map((account) => Type.Literal(account)));

/**
 * POST /admin/v1/ledger/transfers: the operator records coins it moved on chain outside any
 * order (docs/contract.md §11.5): into the hot wallet from its own capital (`equity`) or swept from the
 * deposit addresses (`deposits`), or back. Without it the ledger's hot wallet knows only what
 * left it, and the treasury's drift stays the funding nobody posted.
 */
export function registerLedgerTransfers(app: App, { treasury, catalog }: Services): void {
  app.post(
    '/admin/v1/ledger/transfers',
    {
      schema: {
        tags: ['admin'],
        summary: 'Record a transfer between the hot wallet and the deposits or the operator capital',
        security: adminSecurity,
        body: Type.Object(
          {
            asset: Type.String({ pattern: '^[A-Z0-9_]{1,40}$', description: 'the asset: BTC, or COIN_NETWORK for a token (USDT_ETH)' }),
            from: TransferAccount,
            to: TransferAccount,
            amount: Type.String({ pattern: DECIMAL_PATTERN, description: 'positive, exact, in the asset' }),
            memo: Type.String({ minLength: 1, maxLength: 500, pattern: STORABLE_TEXT_PATTERN, description: 'why (the txid, say)' }),
            by: Actor,
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object(
            {
              transaction_id: Type.String({ format: 'uuid' }),
              kind: Type.Literal('transfer'),
              created_at: Type.String({ format: 'date-time' }),
              memo: Type.String(),
              actor: Type.String(),
              entries: Type.Array(Type.Object({ account: Type.String(), asset: Type.String(), amount: SignedAmount('debit positive') }, { additionalProperties: false })),
            },
            { additionalProperties: false },
          ),
          ...errorResponses(400, 401, 415, 500),
        },
      },
    },
    async (request, reply) => {
      const { asset, from, to, memo, by } = request.body;
      if (from === to) throw new ApiError('bad_request', 'from and to must be two accounts');
      if (from !== 'hot_wallet' && to !== 'hot_wallet') throw new ApiError('bad_request', 'a transfer moves coins into or out of the hot_wallet');
      const amount = new Decimal(request.body.amount);
      if (amount.isZero()) throw new ApiError('bad_request', 'amount must be positive');
      if (!catalog.all().some((row) => assetName(row.coin, row.network) === asset)) throw new ApiError('bad_request', `unknown asset ${asset}`);
      const done = await treasury.transfer({ asset, from, to, amount, memo, actor: by });
      return sendJsonText(
        reply,
        toJson({
          transaction_id: done.transaction_id,
          kind: 'transfer',
          created_at: done.created_at.toISOString(),
          memo,
          actor: by,
          entries: done.posting.entries.map(({ account, asset: entryAsset, amount: entryAmount }) => ({ account, asset: entryAsset, amount: entryAmount })),
        }),
        201,
      );
    },
  );
}
