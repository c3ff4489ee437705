import { Type, type TSchema } from '@sinclair/typebox';
import type { preValidationHookHandler } from 'fastify';
import { ERROR_STATUS } from '../errors.js';

/** Documents the `{detail, code}` envelope for the listed statuses of a route. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const known = new Set<number>(Object.values(ERROR_STATUS));
  return Object.fromEntries(
    statuses.map((status) => {
      if (!known.has(status)) throw new Error(`no error code maps to status ${status}`);
      return [status, Type.Ref('Error')];
    }),
  );
}

/** A decimal amount written as an exact JSON number, never with more digits than the coin has. */
export const DecimalNumber = (description: string) => Type.Number({ description });

export const CurrencySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'internal currency row id' }),
    coin: Type.String({ description: 'ticker symbol' }),
    network: Type.String({ description: 'network identifier, e.g. ERC20 or TRC20' }),
    name: Type.String({ description: 'human-readable coin name' }),
    is_active: Type.Boolean({ description: 'currency is enabled' }),
    is_deposit_enabled: Type.Boolean({ description: 'deposits accepted' }),
    is_withdraw_enabled: Type.Boolean({ description: 'withdrawals accepted' }),
    min_amount: DecimalNumber("minimum amount per order, in the coin's units"),
    max_amount: DecimalNumber("maximum amount per order, in the coin's units"),
    min_confirmations: Type.Integer({ description: 'confirmations needed for the deposit to clear' }),
    decimals: Type.Integer({ description: 'decimal precision for display and rounding' }),
    is_memo: Type.Boolean({ description: 'the network requires a memo or destination tag' }),
    explorer_tx_url: Type.Union([Type.String(), Type.Null()], {
      description: 'block-explorer template for transaction hashes ({txid} placeholder)',
    }),
    explorer_address_url: Type.Union([Type.String(), Type.Null()], {
      description: 'block-explorer template for addresses ({address} placeholder)',
    }),
    icon_url: Type.Union([Type.String(), Type.Null()], {
      description: 'relative path to the coin icon served by the service',
    }),
    contract_address: Type.Union([Type.String(), Type.Null()], {
      description: 'v1.1: the token contract (ERC-20, BEP-20, TRC-20, SPL), null for a native coin',
    }),
    chain_id: Type.Union([Type.Integer(), Type.Null()], {
      description: 'v1.1: the EIP-155 chain id on an EVM network (1 Ethereum, 56 BNB Smart Chain), else null',
    }),
  },
  { $id: 'Currency', additionalProperties: false },
);

export const UuidParam = Type.String({ format: 'uuid' });

/**
 * For a route whose JSON body is optional: a request sent without one is validated as `{}`.
 * Fastify validates an absent body as undefined, which an object schema refuses ("body must be
 * object"), so a client that sends nothing would get a 400 for leaving out what is optional.
 */
export const absentBodyAsEmpty: preValidationHookHandler = (request, _reply, done) => {
  request.body ??= {};
  done();
};
