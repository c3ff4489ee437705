import { Type } from '@sinclair/typebox';
import { Decimal } from '../../domain/money.js';
import type { App, Services } from '../../app-types.js';
import { findCurrency, updateCurrency } from '../../db/repositories/currencies-repository.js';
import type { CurrencyUpdate } from '../../db/schema/currencies.js';
import { DECIMAL_PATTERN } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { toJson } from '../../json.js';
import { readBodyAmounts } from '../amount-input.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { adminCurrencyView } from './currency-view.js';
import { checkTokenContract } from './token-contract-check.js';

/** Send a string for an exact value with more than 15 significant digits. */
const Amount = Type.Union([Type.String({ pattern: DECIMAL_PATTERN }), Type.Number({ minimum: 0 })]);

const Body = Type.Object(
  {
    is_active: Type.Optional(Type.Boolean()),
    is_deposit_enabled: Type.Optional(Type.Boolean()),
    is_withdraw_enabled: Type.Optional(Type.Boolean()),
    min_amount: Type.Optional(Amount),
    max_amount: Type.Optional(Amount),
    payout_fee: Type.Optional(Amount),
    min_confirmations: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    token_contract: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "a token's contract (a native coin has none)" })),
    price_symbol: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{1,12}$' })),
    explorer_tx_url: Type.Optional(Type.Union([Type.String({ maxLength: 512, pattern: '^https://[^\\s]*\\{txid\\}[^\\s]*$' }), Type.Null()])),
    explorer_address_url: Type.Optional(Type.Union([Type.String({ maxLength: 512, pattern: '^https://[^\\s]*\\{address\\}[^\\s]*$' }), Type.Null()])),
    icon_url: Type.Optional(Type.Union([Type.String({ maxLength: 512, pattern: '^https://' }), Type.Null()])),
    sort_order: Type.Optional(Type.Integer({ minimum: -100000, maximum: 100000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export function registerUpdateCurrency(app: App, { database, catalog, catalogChanges }: Services): void {
  app.patch(
    '/admin/v1/currencies/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Change flags, limits, confirmations, payout fee, name, contract, price symbol, links or order (not decimals)',
        security: adminSecurity,
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        body: Body,
        response: { 200: Type.Ref('AdminCurrency'), ...errorResponses(400, 401, 404, 415, 422, 500) },
      },
    },
    async (request, reply) => {
      const current = await findCurrency(database.db, request.params.id);
      if (current === undefined) throw new ApiError('not_found', 'currency not found');
      // The amounts are read exactly below (readBodyAmounts), not from the parsed body.
      const { min_amount: _min, max_amount: _max, payout_fee: _fee, token_contract, ...rest } = request.body;
      const changes: CurrencyUpdate = { ...rest };
      if (token_contract !== undefined) {
        // A native coin stays one: its "contract" would make the watcher look for token transfers.
        if (current.token_contract === null) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'token_contract' }, `${current.coin} on ${current.network} is the chain's own coin: it has no contract`);
        checkTokenContract(catalog.all(), { chain: current.chain, format: current.address_format, exceptId: current.id }, token_contract);
        changes.token_contract = token_contract;
      }
      const amounts = readBodyAmounts(request, ['min_amount', 'max_amount', 'payout_fee'], { zero: true, storable: true });
      const amount = (field: 'min_amount' | 'max_amount' | 'payout_fee'): Decimal | undefined => {
        const value = amounts[field];
        if (value !== undefined && value.decimalPlaces() > current.decimals) {
          throw new ApiError('bad_request', `${field} has more than ${current.decimals} decimals`);
        }
        return value;
      };
      const min = amount('min_amount') ?? new Decimal(current.min_amount);
      const max = amount('max_amount') ?? new Decimal(current.max_amount);
      const fee = amount('payout_fee');
      if (min.lte(0)) throw new ApiError('unprocessable', 'min_amount must be greater than 0');
      if (min.gt(max)) throw new ApiError('unprocessable', 'min_amount must not exceed max_amount');
      changes.min_amount = min.toFixed();
      changes.max_amount = max.toFixed();
      if (fee !== undefined) changes.payout_fee = fee.toFixed();
      const row = await updateCurrency(database.db, current.id, changes);
      if (row === undefined) throw new ApiError('not_found', 'currency not found');
      await catalogChanges.publish();
      return sendJsonText(reply, toJson(adminCurrencyView(row, catalog.chainOf(row))));
    },
  );
}
