import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ADDRESS_FORMATS } from '../../domain/address-format.js';
import { DECIMAL_PATTERN } from '../../domain/money.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { readBodyAmountTexts } from '../amount-input.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { adminCurrencyView } from './currency-view.js';

/** Read exactly (number literals as written), then checked against the coin's decimals by CatalogEdits. */
const CURRENCY_AMOUNTS = ['min_amount', 'max_amount', 'payout_fee'] as const;

/** Send a string for an exact value with more than 15 significant digits. */
const Amount = Type.Union([Type.String({ pattern: DECIMAL_PATTERN }), Type.Number({ minimum: 0 })]);
const Code = Type.String({ pattern: '^[A-Z0-9]{1,12}$' });
const Url = (placeholder: string) => Type.String({ maxLength: 512, pattern: `^https://[^\\s]*\\{${placeholder}\\}[^\\s]*$` });

const Body = Type.Object(
  {
    coin: Code,
    network: Code,
    chain: Type.String({ pattern: '^[A-Z0-9]{1,12}$', description: "the catalog chain it lives on (GET /admin/v1/currencies shows each row's): its address space, node and keys" }),
    name: Type.String({ minLength: 1, maxLength: 64 }),
    decimals: Type.Integer({ minimum: 0, maximum: 18 }),
    token_contract: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], { description: 'the token contract; absent or null for the chain\'s own coin' })),
    price_symbol: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{1,12}$', description: 'what price feeds call it; default: coin' })),
    min_amount: Amount,
    max_amount: Amount,
    payout_fee: Type.Optional(Amount),
    min_confirmations: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
    address_format: Type.Optional(Type.Union(ADDRESS_FORMATS.map((format) => Type.Literal(format)))),
    deposit_strategy: Type.Optional(Type.Union([Type.Literal('hd'), Type.Literal('memo'), Type.Literal('pool')])),
    is_memo: Type.Optional(Type.Boolean()),
    explorer_tx_url: Type.Optional(Type.Union([Url('txid'), Type.Null()])),
    explorer_address_url: Type.Optional(Type.Union([Url('address'), Type.Null()])),
    icon_url: Type.Optional(Type.Union([Type.String({ maxLength: 512, pattern: '^https://' }), Type.Null()])),
    is_active: Type.Optional(Type.Boolean()),
    is_deposit_enabled: Type.Optional(Type.Boolean()),
    is_withdraw_enabled: Type.Optional(Type.Boolean()),
    sort_order: Type.Optional(Type.Integer({ minimum: -100000, maximum: 100000 })),
  },
  { additionalProperties: false },
);

/**
 * POST /admin/v1/currencies (docs/contract.md §12): a coin, token or network added at run time, on a
 * chain the catalog has (its address space, node and keys: a new chain is a release). What the
 * body leaves out comes from the chain's other rows (address format, deposit strategy,
 * confirmations, memo, explorer links), so a token needs little more than its contract, decimals
 * and limits. Every process's catalog reloads (CatalogChanges); a token on a watched EVM chain
 * is watched from its first order (the watcher reads each order's contract).
 */
export function registerCreateCurrency(app: App, { catalogEdits: edits }: Services): void {
  app.post(
    '/admin/v1/currencies',
    {
      schema: {
        tags: ['admin'],
        summary: 'Add a coin, token or network to the catalog (no migration)',
        security: adminSecurity,
        body: Body,
        response: { 201: Type.Ref('AdminCurrency'), ...errorResponses(400, 401, 409, 415, 422, 500) },
      },
    },
    async (request, reply) => {
      const { row, chain } = await edits.add({ ...request.body, ...readBodyAmountTexts(request, CURRENCY_AMOUNTS, { zero: true, storable: true }) });
      return sendJsonText(reply, toJson(adminCurrencyView(row, chain)), 201);
    },
  );
}
