import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { parseDecimalInput } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { QueryAmount } from '../amount-input.js';
import { AmountError, errorResponses } from '../schemas.js';

const Ticker = (description: string) =>
  Type.String({ minLength: 1, maxLength: 12, pattern: '^[A-Za-z0-9]+$', description });

const Query = Type.Object(
  {
    coin_from: Ticker('source coin ticker (case-insensitive)'),
    coin_to: Ticker('destination coin ticker (case-insensitive)'),
    network_from: Type.Optional(Ticker('source network; required when the coin is on several networks')),
    network_to: Type.Optional(Ticker('destination network; required when the coin is on several networks')),
    amount: Type.Optional(
      QueryAmount(
        'amount to exchange, a decimal number such as 0.5 (no exponent, at most the coin\'s decimals); min_amount when omitted (and amount_to is too)',
      ),
    ),
    amount_to: Type.Optional(
      QueryAmount(
        'v1.1, instead of amount: what the recipient should get, in coin_to; the quote prices the smallest amount_from (coin_from decimals, rounded up) whose amount_to reaches it. Both: 400',
      ),
    ),
    rate_type: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('fixed')], { default: 'float' })),
  },
  { additionalProperties: false },
);

/** The payout network fee of a quote and an Order (docs/contract.md §10.6). */
export const NetworkFee = Type.Object(
  {
    amount: Type.Number({ description: 'the payout network fee, in coin_to: already deducted from amount_to' }),
    coin: Type.String({ description: 'coin_to' }),
    usd: Type.Number({ description: 'its USD value at the coin_to price the quote used (8 decimals, rounded down)' }),
  },
  {
    additionalProperties: false,
    description: 'v1.2: the payout network fee in coin_to, already deducted from amount_to, and its USD value',
  },
);

const RateQuote = Type.Object(
  {
    coin_from: Type.String(),
    coin_to: Type.String(),
    rate_type: Type.Union([Type.Literal('float'), Type.Literal('fixed')]),
    rate: Type.Number({ description: 'units of coin_to per 1 coin_from, net of all fees, for the amount' }),
    min_amount: Type.Number({ description: 'minimum exchange amount for this pair, in coin_from' }),
    max_amount: Type.Number({ description: 'maximum exchange amount for this pair, in coin_from' }),
    amount_from: Type.Number({
      description: 'v1.1: the amount quoted, in coin_from: amount, the one computed for amount_to, or min_amount',
    }),
    amount_to: Type.Number({ description: 'v1.1: what the recipient gets for amount_from, in coin_to, rounded down' }),
    expires_in: Type.Union([Type.Integer(), Type.Null()], {
      description: 'null for float; for a fixed quote, seconds left to create an order with quote_id',
    }),
    expires_at: Type.String({
      format: 'date-time',
      description:
        'v1.2: fixed, when quote_id expires; float, when the prices this quote used stop being fresh (the price feed\'s ' +
        'freshness bound: the oldest price observation used plus PRICE_MAX_AGE_SECONDS; a newer price may move the rate earlier)',
    }),
    network_fee: NetworkFee,
    eta_seconds: Type.Integer({
      minimum: 0,
      description:
        'v1.2: estimated seconds from the deposit being sent to the payout seen on chain: the deposit\'s confirmations × ' +
        'the deposit chain\'s block time, plus the payout chain\'s payout allowance (from the catalog)',
    }),
    quote_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'fixed quotes only (extension): an opaque token to pass to POST /partner/orders, which then locks this rate and amount. ' +
          'A quote asked with a key can be locked only with a key of the same partner; one asked without a key, by any partner',
      }),
    ),
  },
  { additionalProperties: false },
);

/** GET /api/v1/partner/rates (public; a key prices with that partner's markup). */
export function registerRates(app: App, { partnerAuth, quotes }: Services): void {
  app.get(
    '/api/v1/partner/rates',
    {
      preValidation: partnerAuth.optional,
      // docs/contract.md §10.9: public, so any web page may call it; a client key may too.
      config: { cors: 'any' },
      schema: {
        tags: ['partner'],
        summary: 'Rate and limits for a pair',
        operationId: 'getRates',
        description:
          'Public. With an X-API-Key (or Bearer) header the quote reflects that partner\'s pricing; an invalid key is 401. ' +
          'An amount outside the limits is 422 amount_out_of_range with min_amount and max_amount (coin_from) and, v1.1, ' +
          'min_amount_to and max_amount_to (coin_to) in the body; a pair that cannot be quoted now is 422 pair_unavailable. ' +
          'v1.2: every error lists each problem in `errors` (both coins unknown: two items; an amount item carries the limits).',
        security: [{}, { apiKeyHeader: [] }, { bearerAuth: [] }],
        querystring: Query,
        response: { 200: RateQuote, 422: AmountError, ...errorResponses(400, 401, 403, 429, 500) },
      },
    },
    // A plain handler (no promise per request): a quote, a fixed one included, reads only memory.
    (request, reply) => {
      const query = request.query;
      if (query.amount !== undefined && query.amount_to !== undefined) {
        throw ApiError.field('bad_request', { code: 'bad_request', field: 'amount_to' }, 'send amount or amount_to, not both');
      }
      const amount = query.amount === undefined ? undefined : parseDecimalInput(query.amount);
      const amountTo = query.amount_to === undefined ? undefined : parseDecimalInput(query.amount_to);
      const rateType = query.rate_type ?? 'float';
      const quote = quotes.price({
        coinFrom: query.coin_from,
        coinTo: query.coin_to,
        networkFrom: query.network_from,
        networkTo: query.network_to,
        amount,
        amountTo,
        rateType,
        partner: request.partner,
        sandbox: request.access === undefined ? undefined : request.access.mode === 'sandbox',
      });
      // A fixed quote's id is a signed token: issuing one writes nothing (docs/adr/0005-quotes-and-prices.md).
      const fixed = rateType === 'fixed' ? quotes.issueFixedQuote(quote, request.partner?.id, amountTo) : undefined;
      sendJsonText(
        reply,
        toJson({
          coin_from: quote.from.coin,
          coin_to: quote.to.coin,
          rate_type: rateType,
          rate: quote.rate,
          min_amount: quote.minAmount,
          max_amount: quote.maxAmount,
          amount_from: quote.amountFrom,
          amount_to: quote.amountTo,
          expires_in: fixed?.expiresIn ?? null,
          expires_at: (fixed?.expiresAt ?? quotes.priceFreshUntil(quote)).toISOString(),
          network_fee: { amount: quote.networkFee, coin: quote.to.coin, usd: quote.networkFeeUsd },
          eta_seconds: quote.etaSeconds,
          ...(fixed === undefined ? {} : { quote_id: fixed.id }),
        }),
      );
    },
  );
}
