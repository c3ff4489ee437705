import { Type, type TSchema } from '@sinclair/typebox';
import type { preValidationHookHandler } from 'fastify';
import { ERROR_STATUS, amountErrorBodySchema } from '../errors.js';

/** 422 amount_out_of_range carries the pair limits at the top (v1.1) and on its item (v1.2): rates and order creation. */
export const AmountError = Type.Unsafe(amountErrorBodySchema);

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

/**
 * 304 Not Modified: the request's If-None-Match names the ETag the answer would carry; no body
 * (docs/adr/0057-order-read-cache.md).
 */
export const NotModified = Type.Null({ description: 'Not Modified: If-None-Match named the current ETag; no body' });

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
    chain: Type.String({
      description:
        'v1.2: the chain the currency lives on, lower case (bitcoin, ethereum, bsc, tron, litecoin, dogecoin, solana, xrpl, ' +
        'stellar, ton), separate from the token standard the network code names (USDT on ERC20 has chain ethereum)',
    }),
    caip2: Type.String({
      description:
        'v1.2: the chain\'s CAIP-2 id (eip155:1, eip155:56, bip122:000000000019d6689c085ae165831e93, tron:728126428, ' +
        'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp, xrpl:0, stellar:pubnet, tvm:-239)',
    }),
    caip19: Type.String({
      description:
        'v1.2: the CAIP-19 asset type: {caip2}/slip44:{SLIP-44 coin type} for a native coin (eip155:1/slip44:60), ' +
        '{caip2}/{erc20|trc20|token}:{contract} for a token (eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7; EVM contracts in lower case)',
    }),
    confirmations_required: Type.Integer({
      minimum: 0,
      description: 'v1.2: the deposit confirmations an order waits for before it exchanges (its deposit_confirmations_required)',
    }),
    memo_name: Type.Union([Type.String(), Type.Null()], {
      description: 'v1.2: what the chain\'s wallets call the memo or tag (Destination tag on XRP, Memo on XLM and TON); null where the chain has none',
    }),
    address_regex: Type.String({
      description:
        'v1.2: a regular expression (anchored, the subset every engine shares) that every address this server accepts for the ' +
        'currency matches: a pre-check for a wallet; the server\'s validation (checksums) stays the judge',
    }),
  },
  { $id: 'Currency', additionalProperties: false },
);

/**
 * For a route whose JSON body is optional: a request sent without one is validated as `{}`.
 * Fastify validates an absent body as undefined, which an object schema refuses ("body must be
 * object"), so a client that sends nothing would get a 400 for leaving out what is optional.
 */
export const absentBodyAsEmpty: preValidationHookHandler = (request, _reply, done) => {
  request.body ??= {};
  done();
};
