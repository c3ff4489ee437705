import { Type } from '@sinclair/typebox';
import { parseNumberLiteral, type Decimal } from '../../domain/money.js';
import { isLosslessNumber, parse } from 'lossless-json';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { sendJsonText } from '../../plugins/json-reply.js';
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
    amount_from: Type.Number({ exclusiveMinimum: 0, description: 'amount to send; greater than 0' }),
    rate_type: Type.Union([Type.Literal('float'), Type.Literal('fixed')]),
    recipient_address: Type.String({ minLength: 1, maxLength: 128, description: 'wallet receiving the payout' }),
    recipient_address_tag: OptionalText('memo or tag, required where the destination network needs one'),
    refund_address: OptionalText('address for a refund if the exchange fails'),
    quote_id: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: 'extension: a fixed quote from GET /partner/rates whose rate this order locks',
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
  min_amount: Type.Optional(Type.Number()),
  max_amount: Type.Optional(Type.Number()),
});

/**
 * The exact literal of `amount_from`: JSON.parse has already turned it into a binary float,
 * so the raw body is read again without losing digits.
 */
function exactAmount(rawBody: Buffer | undefined): Decimal {
  let parsed: { amount_from?: unknown };
  try {
    parsed = parse(rawBody?.toString('utf8') ?? '') as { amount_from?: unknown };
  } catch (error) {
    // JSON.parse accepted the body, so this is a field sent twice with different values
    // (JSON.parse keeps the last, lossless-json refuses): ambiguous, so refused.
    throw new ApiError('bad_request', `request body is ambiguous: ${error instanceof Error ? error.message : 'unreadable'}`);
  }
  const literal = parsed.amount_from;
  if (!isLosslessNumber(literal)) throw new ApiError('bad_request', 'body/amount_from must be a number');
  const amount = parseNumberLiteral(literal.toString());
  if (amount === undefined) throw new ApiError('bad_request', 'body/amount_from is out of range');
  return amount;
}

/** POST /api/v1/partner/orders (API key). */
export function registerCreateOrder(app: App, { partnerAuth, orders, clock }: Services): void {
  app.post(
    '/api/v1/partner/orders',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'Create an exchange order',
        description:
          'Returns the order in waiting_deposit with its deposit address; it expires when no deposit arrives within 30 minutes. ' +
          'Extension: an Idempotency-Key header makes retries safe (replays answer 201 with Idempotent-Replayed: true).',
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
      const partner = request.partner;
      if (partner === undefined) throw new Error('partner auth hook did not run');
      const body = request.body;
      const key = request.headers['idempotency-key'];
      const { order, replayed } = await orders.create(
        partner,
        {
          coinFrom: body.coin_from,
          networkFrom: body.network_from,
          coinTo: body.coin_to,
          networkTo: body.network_to,
          amountFrom: exactAmount(request.rawBody),
          rateType: body.rate_type,
          recipientAddress: body.recipient_address,
          recipientAddressTag: body.recipient_address_tag ?? undefined,
          refundAddress: body.refund_address ?? undefined,
          quoteId: body.quote_id ?? undefined,
        },
        key === undefined ? undefined : { key, body: request.rawBody ?? Buffer.alloc(0) },
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return sendJsonText(reply, orderJson(order, clock.now()), 201);
    },
  );
}
