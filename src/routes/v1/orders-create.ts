import { Type } from '@sinclair/typebox';
import { parseNumberLiteral, type Decimal } from '../../domain/money.js';
import { isLosslessNumber, parse } from 'lossless-json';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { partnerAccess } from '../../plugins/partner-auth.js';
import { errorResponses } from '../schemas.js';
import { orderJson } from './order-view.js';

const Ticker = (description: string) =>
  Type.String({ minLength: 1, maxLength: 12, pattern: '^[A-Za-z0-9]+$', description });
/** Optional text fields also accept null, which clients commonly send for "none". */
const OptionalText = (description: string) =>
  Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], { description }));

const Body = Type.Object(
  {
    coin_from: Ticker('source coin ticker'),
    network_from: Ticker('source network'),
    coin_to: Ticker('destination coin ticker'),
    network_to: Ticker('destination network'),
    amount_from: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'amount to send; greater than 0. Exactly one of amount_from and amount_to' }),
    ),
    amount_to: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description:
          'v1.1: the amount the recipient should get, in coin_to, instead of amount_from; the order is priced at the smallest amount_from (coin_from decimals) whose payout reaches it',
      }),
    ),
    rate_type: Type.Union([Type.Literal('float'), Type.Literal('fixed')]),
    recipient_address: Type.String({ minLength: 1, maxLength: 128, description: 'wallet receiving the payout' }),
    recipient_address_tag: OptionalText('memo or tag, required where the destination network needs one'),
    refund_address: OptionalText('address for a refund if the exchange fails'),
    refund_address_tag: OptionalText(
      'v1.1: the refund address\'s memo or tag: required with refund_address where the source network needs one (XRP, XLM, …), ' +
        'refused where it uses none; checked as PUT …/refund-address checks it',
    ),
    quote_id: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()], {
        description:
          'extension: the quote_id of a fixed quote from GET /partner/rates (with rate_type fixed, the same pair and amount); the order locks its rate. ' +
          'Expired, altered, used, another partner\'s or not matching: 422 quote_invalid',
      }),
    ),
  },
  { additionalProperties: false },
);

const Headers = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description: 'extension: safe retries' }),
  ),
});

const AmountError = Type.Object({
  detail: Type.String(),
  code: Type.String(),
  min_amount: Type.Optional(Type.Number({ description: 'amount errors: the pair minimum, in coin_from' })),
  max_amount: Type.Optional(Type.Number({ description: 'amount errors: the pair maximum, in coin_from' })),
  min_amount_to: Type.Optional(Type.Number({ description: 'amount errors (v1.1): the payout at min_amount, in coin_to' })),
  max_amount_to: Type.Optional(Type.Number({ description: 'amount errors (v1.1): the payout at max_amount, in coin_to' })),
});

type AmountField = 'amount_from' | 'amount_to';

/**
 * The exact literal of `amount_from` or `amount_to`: JSON.parse has already turned it into a
 * binary float, so the raw body is read again without losing digits.
 */
function exactAmount(rawBody: Buffer | undefined, field: AmountField): Decimal {
  let parsed: Partial<Record<AmountField, unknown>>;
  try {
    parsed = parse(rawBody?.toString('utf8') ?? '') as Partial<Record<AmountField, unknown>>;
  } catch (error) {
    // JSON.parse accepted the body, so this is a field sent twice with different values
    // (JSON.parse keeps the last, lossless-json refuses): ambiguous, so refused.
    throw new ApiError('bad_request', `request body is ambiguous: ${error instanceof Error ? error.message : 'unreadable'}`);
  }
  const literal = parsed[field];
  if (!isLosslessNumber(literal)) throw new ApiError('bad_request', `body/${field} must be a number`);
  const amount = parseNumberLiteral(literal.toString());
  if (amount === undefined) throw new ApiError('bad_request', `body/${field} is out of range`);
  return amount;
}

/** POST /api/v1/partner/orders (API key). */
export function registerCreateOrder(app: App, { partnerAuth, orders, clock, linkBase }: Services): void {
  app.post(
    '/api/v1/partner/orders',
    {
      preValidation: partnerAuth.required,
      // DESIGN §10.9: a client key may call it, from the pages of its partner's cors_origins.
      config: { cors: 'partner' },
      schema: {
        tags: ['partner'],
        summary: 'Create an exchange order',
        operationId: 'createOrder',
        description:
          'Returns the order in waiting_deposit with its deposit address; it expires when no deposit arrives within 30 minutes. ' +
          'Extension: an Idempotency-Key header makes retries safe (replays answer 201 with Idempotent-Replayed: true). ' +
          'v1.1: amount_to instead of amount_from (exactly one); 422 codes amount_out_of_range (with the limits in both units), ' +
          'pair_unavailable and quote_invalid.',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        headers: Headers,
        body: Body,
        response: {
          201: { $ref: 'Order#' },
          422: AmountError,
          ...errorResponses(400, 401, 403, 409, 413, 415, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const access = partnerAccess(request);
      const body = request.body;
      const key = request.headers['idempotency-key'];
      if ((body.amount_from === undefined) === (body.amount_to === undefined)) {
        throw new ApiError('bad_request', 'body must have exactly one of "amount_from" and "amount_to"');
      }
      const { order, replayed } = await orders.create(
        access.partner,
        {
          coinFrom: body.coin_from,
          networkFrom: body.network_from,
          coinTo: body.coin_to,
          networkTo: body.network_to,
          amountFrom: body.amount_from === undefined ? undefined : exactAmount(request.rawBody, 'amount_from'),
          amountTo: body.amount_to === undefined ? undefined : exactAmount(request.rawBody, 'amount_to'),
          rateType: body.rate_type,
          recipientAddress: body.recipient_address,
          recipientAddressTag: body.recipient_address_tag ?? undefined,
          refundAddress: body.refund_address ?? undefined,
          refundAddressTag: body.refund_address_tag ?? undefined,
          quoteId: body.quote_id ?? undefined,
          sandbox: access.mode === 'sandbox',
          keyId: access.actor.keyId,
          clientKey: access.onlyCreatedBy !== undefined,
        },
        key === undefined ? undefined : { key, body: request.rawBody ?? Buffer.alloc(0) },
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return sendJsonText(reply, orderJson(order, clock.now(), linkBase), 201);
    },
  );
}
