import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { insertCurrency } from '../../db/repositories/currencies-repository.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { NewCurrency } from '../../db/schema/currencies.js';
import { ADDRESS_FORMATS } from '../../domain/address-format.js';
import { Decimal, DECIMAL_PATTERN } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { readBodyAmounts } from '../amount-input.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { adminCurrencyView } from './currency-view.js';
import { checkTokenContract } from './token-contract-check.js';

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
export function registerCreateCurrency(app: App, { database, catalog, catalogChanges }: Services): void {
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
      const body = request.body;
      const chain = catalog.chains().get(body.chain);
      if (chain === undefined) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'chain' }, `no chain ${body.chain} in the catalog: a new chain needs a release`);
      // The chain's own coin (else its first row) gives what the body leaves out.
      const sibling = catalog.all().find((row) => row.chain === body.chain && row.token_contract === null) ?? catalog.all().find((row) => row.chain === body.chain);
      const addressFormat = body.address_format ?? sibling?.address_format;
      const depositStrategy = body.deposit_strategy ?? sibling?.deposit_strategy;
      if (addressFormat === undefined || depositStrategy === undefined) {
        throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'address_format' }, `the chain ${body.chain} has no currency yet: give address_format and deposit_strategy`);
      }
      const token = body.token_contract ?? null;
      if (token !== null) checkTokenContract(catalog.all(), { chain: body.chain, format: addressFormat }, token);
      const amounts = readBodyAmounts(request, ['min_amount', 'max_amount', 'payout_fee'], { zero: true, storable: true });
      const amount = (field: 'min_amount' | 'max_amount' | 'payout_fee'): Decimal => {
        const value = amounts[field] ?? new Decimal(0);
        if (value.decimalPlaces() > body.decimals) throw ApiError.field('bad_request', { code: 'amount_invalid', field }, `${field} has more than ${body.decimals} decimals`);
        return value;
      };
      const min = amount('min_amount');
      const max = amount('max_amount');
      const fee = amount('payout_fee');
      if (min.lte(0)) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'min_amount' }, 'min_amount must be greater than 0');
      if (min.gt(max)) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'max_amount' }, 'min_amount must not exceed max_amount');
      const row: NewCurrency = {
        coin: body.coin,
        network: body.network,
        chain: body.chain,
        name: body.name,
        decimals: body.decimals,
        token_contract: token,
        price_symbol: body.price_symbol ?? body.coin,
        min_amount: min.toFixed(),
        max_amount: max.toFixed(),
        payout_fee: fee.toFixed(),
        min_confirmations: body.min_confirmations ?? sibling?.min_confirmations ?? 1,
        address_format: addressFormat,
        deposit_strategy: depositStrategy,
        is_memo: body.is_memo ?? sibling?.is_memo ?? false,
        explorer_tx_url: body.explorer_tx_url === undefined ? (sibling?.explorer_tx_url ?? null) : body.explorer_tx_url,
        explorer_address_url: body.explorer_address_url === undefined ? (sibling?.explorer_address_url ?? null) : body.explorer_address_url,
        icon_url: body.icon_url ?? null,
        is_active: body.is_active ?? true,
        is_deposit_enabled: body.is_deposit_enabled ?? true,
        is_withdraw_enabled: body.is_withdraw_enabled ?? true,
        sort_order: body.sort_order ?? Math.max(0, ...catalog.all().map((other) => other.sort_order)) + 1,
      };
      let created;
      try {
        created = await insertCurrency(database.db, row);
      } catch (error) {
        if (isUniqueViolation(error, 'currencies_coin_network_key')) throw new ApiError('conflict', `${body.coin} on ${body.network} is already in the catalog`);
        throw error;
      }
      await catalogChanges.publish();
      return sendJsonText(reply, toJson(adminCurrencyView(created, chain)), 201);
    },
  );
}
