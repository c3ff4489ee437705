import assert from 'node:assert/strict';
import { Decimal } from '../../src/domain/money.js';
import type { LightMyRequestResponse } from 'fastify';
import { quoteAmount, type CurrencyTerms, type Quote, type RateType } from '../../src/domain/pricing/index.js';
import type { TestApp } from '../helpers/test-app.js';
import { assertErrorItems } from '../helpers/error-items.js';

/**
 * Currency terms copied by hand from migration 0002 (the seed catalog), so the oracle below does
 * not read them through the code under test. Key: `COIN` or `COIN/NETWORK`.
 */
const SEED: Record<string, { decimals: number; min: string; max: string; fee: string }> = {
  BTC: { decimals: 8, min: '0.0002', max: '10', fee: '0.00002' },
  ETH: { decimals: 18, min: '0.005', max: '250', fee: '0.0005' },
  'USDT/ERC20': { decimals: 6, min: '20', max: '500000', fee: '4' },
  'USDT/TRC20': { decimals: 6, min: '10', max: '500000', fee: '1.5' },
  'USDT/BEP20': { decimals: 18, min: '10', max: '500000', fee: '0.3' },
  LTC: { decimals: 8, min: '0.05', max: '5000', fee: '0.0001' },
  DOGE: { decimals: 8, min: '50', max: '3000000', fee: '1' },
  TRX: { decimals: 6, min: '50', max: '5000000', fee: '1' },
  SOL: { decimals: 9, min: '0.1', max: '20000', fee: '0.001' },
};

/** Starting static prices from migration 0003. */
export const SEED_PRICES: Record<string, string> = {
  BTC: '67000', ETH: '3500', USDT: '1', LTC: '85', DOGE: '0.15', TRX: '0.12', SOL: '150',
};

/** Pricing defaults from config.ts. */
export const SPREAD_BPS = 50;
export const FIXED_PREMIUM_BPS = 100;
export const DEFAULT_MARKUP_BPS = 50;

export function seedTerms(key: string): CurrencyTerms {
  const seed = SEED[key];
  if (seed === undefined) throw new Error(`no seed terms for ${key}`);
  const [coin = key, network = coin] = key.split('/');
  return {
    coin,
    network,
    decimals: seed.decimals,
    minAmount: new Decimal(seed.min),
    maxAmount: new Decimal(seed.max),
    payoutFee: new Decimal(seed.fee),
  };
}

export interface OracleInput {
  /** Seed key, e.g. `BTC` or `USDT/TRC20`. */
  from: string;
  to: string;
  /** Omitted: quote the pair's min_amount, as the API does. */
  amount?: string;
  rateType?: RateType;
  markupBps?: number;
  /** USD price overrides by coin; default SEED_PRICES. */
  prices?: Record<string, string>;
}

/** The pure engine with the same inputs as the service: what the API must publish. */
export function oracle(input: OracleInput): Quote {
  const from = seedTerms(input.from);
  const to = seedTerms(input.to);
  const price = (coin: string): Decimal => new Decimal(input.prices?.[coin] ?? SEED_PRICES[coin] ?? 'NaN');
  const pricing = {
    from,
    to,
    priceFromUsd: price(from.coin),
    priceToUsd: price(to.coin),
    rateType: input.rateType ?? 'float',
    markupBps: input.markupBps ?? DEFAULT_MARKUP_BPS,
    settings: { spreadBps: SPREAD_BPS, fixedPremiumBps: FIXED_PREMIUM_BPS },
  };
  let result = quoteAmount(pricing, new Decimal(input.amount ?? from.minAmount));
  if (input.amount === undefined && !result.ok && result.reason === 'below_min') {
    result = quoteAmount(pricing, result.minAmount);
  }
  assert.ok(result.ok, `oracle could not quote ${input.from} -> ${input.to}: ${JSON.stringify(result)}`);
  return result;
}

let nextAddress = 0;

/**
 * A distinct client address per call, so the per-address public rate limit (60 a minute) never
 * interferes with what these files test. Keyed calls count against the key, not the address.
 */
export function freshAddress(): string {
  nextAddress++;
  return `10.${(nextAddress >> 16) & 255}.${(nextAddress >> 8) & 255}.${nextAddress & 255}`;
}

/** GET /api/v1/partner/rates with the given query string (raw, so odd spellings reach the server). */
export function getRates(t: TestApp, query: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'GET',
    url: `/api/v1/partner/rates${query === '' ? '' : `?${query}`}`,
    headers,
    remoteAddress: freshAddress(),
  });
}

/**
 * The literal JSON text of a top-level number field, e.g. `"rate":18.95` -> `18.95`: JSON.parse
 * would round a long decimal through a binary float, so exact values are compared as text.
 */
export function rawNumber(body: string, field: string): string {
  const match = new RegExp(`"${field}":(-?[0-9][^,}\\]]*)`).exec(body);
  assert.ok(match?.[1] !== undefined, `no number field "${field}" in ${body}`);
  return match[1];
}

/** Asserts a plain decimal literal (no exponent, no sign) with at most `decimals` fraction digits. */
export function assertPlainDecimal(literal: string, decimals: number, what: string): void {
  assert.match(literal, /^(0|[1-9][0-9]*)(\.[0-9]+)?$/, `${what} is not a plain decimal: ${literal}`);
  const fraction = literal.split('.')[1] ?? '';
  assert.ok(fraction.length <= decimals, `${what} has ${fraction.length} fraction digits, more than ${decimals}: ${literal}`);
  assert.ok(!fraction.endsWith('0'), `${what} has trailing zeros: ${literal}`);
}

/** Asserts an error response: the status, `{detail: string, code}` and returns the parsed body. */
export function assertError(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  extraKeys: readonly string[] = [],
): { detail: string; code: string } & Record<string, unknown> {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<{ detail: string; code: string } & Record<string, unknown>>();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'errors', ...extraKeys].sort(), res.body);
  assertErrorItems(body);
  assert.equal(typeof body.detail, 'string');
  assert.ok(body.detail.length > 0);
  assert.equal(body.code, code, res.body);
  return body;
}

/** Currency row ids by `COIN/NETWORK`, from the operator API. */
export async function currencyIds(t: TestApp): Promise<Map<string, string>> {
  const res = await t.admin('GET', '/admin/v1/currencies');
  assert.equal(res.statusCode, 200, res.body);
  const rows = res.json<{ id: string; coin: string; network: string }[]>();
  return new Map(rows.map((row) => [`${row.coin}/${row.network}`, row.id]));
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A fixed quote's id: `fq2.<payload>.<16-byte MAC>`, both base64url (src/services/fixed-quote-tokens.ts). */
export const QUOTE_ID = /^fq2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;
