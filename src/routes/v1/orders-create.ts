import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { parseEndUserIp, type EndUserIp } from '../../domain/end-user-ip.js';
import { ApiError } from '../../errors.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { partnerAccess } from '../../plugins/partner-auth.js';
import { BodyAmount, readBodyAmounts } from '../amount-input.js';
import { AmountError, errorResponses } from '../schemas.js';
import { orderJson } from './order-view.js';

/** Bounds of `metadata` (docs/contract.md §10.8). */
const METADATA_KEYS_MAX = 10;
const METADATA_KEY_MAX = 40;
const METADATA_VALUE_MAX = 64;

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
      BodyAmount('amount to send; greater than 0 (a number, or v1.2 a decimal string). Exactly one of amount_from and amount_to'),
    ),
    amount_to: Type.Optional(
      BodyAmount(
        'v1.1: the amount the recipient should get, in coin_to, instead of amount_from; the order is priced at the smallest amount_from (coin_from decimals) whose payout reaches it',
      ),
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
    external_id: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description:
          'v1.2: your own reference for the order (1 to 64 characters), shown on the Order and in webhooks, found by ' +
          'GET /partner/orders?search=. Unique per partner and mode: a second order with it is 409 external_id_conflict ' +
          'with the existing order\'s id in order_id (an Idempotency-Key replay still answers 201 with the order)',
      }),
    ),
    metadata: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {},
            {
              additionalProperties: Type.String({ maxLength: METADATA_VALUE_MAX }),
              maxProperties: METADATA_KEYS_MAX,
              propertyNames: { minLength: 1, maxLength: METADATA_KEY_MAX },
            },
          ),
          Type.Null(),
        ],
        {
          description:
            `v1.2: your own string map, stored on the order and shown on it and in webhooks: at most ${METADATA_KEYS_MAX} keys ` +
            `of 1 to ${METADATA_KEY_MAX} characters, each value a string of at most ${METADATA_VALUE_MAX}; anything else is 400`,
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Headers = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description: 'extension: safe retries' }),
  ),
  'x-end-user-ip': Type.Optional(
    Type.String({
      description:
        'v1.2: the end user\'s IP address (one IPv4 or IPv6 address, no port or zone): stored on the order for the operator ' +
        '(never shown to partners) and checked against the operator\'s blocklist of countries and ranges: 403 region_restricted',
    }),
  ),
});

/** X-End-User-IP as an address, or 400 (its value is not echoed: it may be anything). */
function endUserIp(header: string | undefined): EndUserIp | undefined {
  if (header === undefined) return undefined;
  const ip = parseEndUserIp(header);
  if (ip === undefined) {
    throw new ApiError('bad_request', 'X-End-User-IP must be one IPv4 or IPv6 address, such as 192.0.2.10 or 2001:db8::10 (no port, zone or list)');
  }
  return ip;
}

/** POST /api/v1/partner/orders (API key). */
export function registerCreateOrder(app: App, { partnerAuth, orders, clock, linkBase }: Services): void {
  app.post(
    '/api/v1/partner/orders',
    {
      preValidation: partnerAuth.required,
      // docs/contract.md §10.9: a client key may call it, from the pages of its partner's cors_origins.
      config: { cors: 'partner' },
      schema: {
        tags: ['partner'],
        summary: 'Create an exchange order',
        operationId: 'createOrder',
        description:
          'Returns the order in waiting_deposit with its deposit address; it expires when no deposit arrives within 30 minutes. ' +
          'Extension: an Idempotency-Key header makes retries safe (replays answer 201 with Idempotent-Replayed: true). ' +
          'v1.1: amount_to instead of amount_from (exactly one); 422 codes amount_out_of_range (with the limits in both units), ' +
          'pair_unavailable and quote_invalid. v1.2: amounts also as decimal strings ("0.1"); every error lists each problem ' +
          'found in `errors` (both addresses, the memo, the amount and the pair at once), each with its code and field; ' +
          'external_id and metadata (409 external_id_conflict with order_id for an external_id already used), ' +
          'and the X-End-User-IP header (403 region_restricted when the operator does not serve that address).',
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
      const ip = endUserIp(request.headers['x-end-user-ip']);
      if ((body.amount_from === undefined) === (body.amount_to === undefined)) {
        const field = body.amount_from === undefined ? 'amount_from' : 'amount_to';
        throw ApiError.field('bad_request', { code: 'bad_request', field }, 'body must have exactly one of "amount_from" and "amount_to"');
      }
      const amounts = readBodyAmounts(request, ['amount_from', 'amount_to']);
      const { order, replayed } = await orders.create(
        access.partner,
        {
          coinFrom: body.coin_from,
          networkFrom: body.network_from,
          coinTo: body.coin_to,
          networkTo: body.network_to,
          amountFrom: amounts.amount_from,
          amountTo: amounts.amount_to,
          rateType: body.rate_type,
          recipientAddress: body.recipient_address,
          recipientAddressTag: body.recipient_address_tag ?? undefined,
          refundAddress: body.refund_address ?? undefined,
          refundAddressTag: body.refund_address_tag ?? undefined,
          quoteId: body.quote_id ?? undefined,
          sandbox: access.mode === 'sandbox',
          keyId: access.actor.keyId,
          externalId: body.external_id ?? undefined,
          metadata: body.metadata ?? undefined,
          endUserIp: ip,
          clientKey: access.onlyCreatedBy !== undefined,
        },
        key === undefined ? undefined : { key, body: request.rawBody ?? Buffer.alloc(0) },
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return sendJsonText(reply, orderJson(order, clock.now(), linkBase), 201);
    },
  );
}
