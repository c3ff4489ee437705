import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { DECIMAL_PATTERN } from '../../domain/money.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { toJson } from '../../json.js';
import { readBodyAmountTexts } from '../amount-input.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { adminCurrencyView } from './currency-view.js';

/** Read exactly (number literals as written), then checked against the coin's decimals by CatalogEdits. */
const CURRENCY_AMOUNTS = ['min_amount', 'max_amount', 'payout_fee'] as const;

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

export function registerUpdateCurrency(app: App, { catalogEdits: edits }: Services): void {
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
      const { row, chain } = await edits.change(request.params.id, { ...request.body, ...readBodyAmountTexts(request, CURRENCY_AMOUNTS, { zero: true, storable: true }) });
      return sendJsonText(reply, toJson(adminCurrencyView(row, chain)));
    },
  );
}
