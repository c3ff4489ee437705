import { Decimal } from '../domain/money.js';
import type { Clock } from '../clock.js';
import type { PricingConfig } from '../config.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import { etaSeconds } from '../domain/chain-facts.js';
import type { PartnerRow } from '../db/schema/partners.js';
import {
  assertFiniteAmount,
  reverseAmountFrom,
  type AmountOutOfRange,
  type CurrencyTerms,
  type OfferedPairResult,
  type PairUnavailable,
  type PriceMissing,
  type RateType,
  type TooManyDecimals,
} from '../domain/pricing/index.js';
import { quoteRow, tableQuote, type QuoteRow } from '../domain/pricing/quote-table.js';
import { USD_PLACES } from '../domain/pricing/partner-commission.js';
import { ApiError } from '../errors.js';
import { ProblemList } from '../problem-list.js';
import type { CurrencyCatalog } from './currency-catalog.js';
import { resolveCurrency } from './currency-resolve.js';
import type { FixedQuoteClaim, FixedQuoteTokens, QuoteTokenProblem } from './fixed-quote-tokens.js';
import type { HotWalletLiquidity } from './hot-wallet-liquidity.js';

export interface QuoteRequest {
  coinFrom: string;
  coinTo: string;
  networkFrom?: string | undefined;
  networkTo?: string | undefined;
  /** In coin_from units; the pair's min_amount when omitted (and amountTo is too). */
  amount?: Decimal | undefined;
  /**
   * In coin_to units, instead of `amount` (a reverse quote, docs/contract.md §7.1): the smallest coin_from
   * amount whose payout reaches it is quoted. Callers pass at most one of the two.
   */
  amountTo?: Decimal | undefined;
  rateType: RateType;
  /** The calling partner; its markup applies, else the default markup. */
  partner?: PartnerRow | undefined;
  /**
   * The markup to price with instead, in bps: an order's stored one (docs/contract.md §10.1), when the
   * exchange prices a float order again.
   */
  markupBps?: number | undefined;
  /** A sandbox key's request (docs/contract.md §7.6): paid out by the simulator, so any chain's payouts are open to it. */
  sandbox?: boolean | undefined;
}

/** A priced pair: what a quote response and an order are built from. */
export interface PricedQuote {
  from: CurrencyRow;
  to: CurrencyRow;
  rateType: RateType;
  amountFrom: Decimal;
  amountTo: Decimal;
  /** Published rate, rounded down to coin_to decimals. */
  rate: Decimal;
  /** Exact net rate (up to 40 significant digits): what a fixed order locks. */
  exactRate: Decimal;
  /** The partner's markup it was priced with, bps: what an order made from it stores (docs/contract.md §10.1). */
  markupBps: number;
  minAmount: Decimal;
  maxAmount: Decimal;
  /** The same limits in coin_to: the payouts at minAmount and maxAmount (rounded down). */
  minAmountTo: Decimal;
  maxAmountTo: Decimal;
  /**
   * The payout network fee the pricing deducted from amountTo (docs/contract.md §10.6): coin_to's
   * payout_fee, in coin_to, and its USD value at the coin_to price quoted (USD_PLACES, rounded
   * down, as partner_fee's).
   */
  networkFee: Decimal;
  networkFeeUsd: Decimal;
  /** Seconds from the deposit to the payout seen on chain, estimated from the catalog (domain/chain-facts.ts). */
  etaSeconds: number;
}

/** An amount outside the pair's limits, with the limits in both units (docs/contract.md §7.1). */
export type AmountOutOfRangeBothUnits = AmountOutOfRange & { minAmountTo: Decimal; maxAmountTo: Decimal };

/** Too many decimals, and which amount had them (amount_to is checked against coin_to). */
export type TooManyDecimalsOf = TooManyDecimals & { field: 'amount' | 'amount_to' };

/** pricePair's outcome as a value (tryPricePair). */
export type PairPriceResult =
  | ({ ok: true } & PricedQuote)
  | PairUnavailable
  | AmountOutOfRangeBothUnits
  | TooManyDecimalsOf
  | PriceMissing;

export interface PriceLookup {
  getPriceUsd(symbol: string): Decimal | undefined;
  /** The last instant getPriceUsd's price is made of fresh observations (PriceBook); undefined without a price. */
  getPriceFreshUntil(symbol: string): Date | undefined;
}

type Side = 'from' | 'to';

/**
 * What a request calls its two amounts, for the field of an amount item (docs/contract.md §10.4): the
 * rates query says `amount` and `amount_to`, an order's body `amount_from` and `amount_to`.
 */
export interface AmountFieldNames {
  amount: string;
  amountTo: string;
}

/** GET /partner/rates' names. */
export const RATES_AMOUNT_FIELDS: AmountFieldNames = { amount: 'amount', amountTo: 'amount_to' };

/** A resolved pair as far as it goes: each side that was found, and whether the pair may be quoted. */
export interface ResolvedPair {
  from: CurrencyRow | undefined;
  to: CurrencyRow | undefined;
  /** Both sides found and usable (active, deposits and payouts on and configured, not the same). */
  usable: boolean;
}

/**
 * The per-pair half of a quote (offerPair), kept with the very inputs it was computed from. It is
 * reused only while they are the same: the same row objects (the catalog replaces every row on
 * refresh), the same price Decimal instances (the price book hands out one instance until a poll
 * or a freshness boundary changes the price) and the same fee settings.
 */
interface PairMemo {
  from: CurrencyRow;
  to: CurrencyRow;
  priceFromUsd: Decimal;
  priceToUsd: Decimal;
  spreadBps: number;
  fixedPremiumBps: number;
  /** The quote table's row, and what a quote shows that does not depend on the amount. */
  pair: { row: QuoteRow; networkFee: Decimal; networkFeeUsd: Decimal; etaSeconds: number };
}

/** Pair memos kept at most; the memo is cleared when it reaches this many (pairs × rate types × markups). */
const PAIR_MEMO_LIMIT = 10_000;

/**
 * Turns a request for a pair into a priced quote, with the contract's 400/422 outcomes.
 * Reads only memory (catalog snapshot, price book, config): no quote touches a database, a
 * fixed one included (its quote_id is a signed token, FixedQuoteTokens).
 */
export class QuoteService {
  constructor(
    private readonly catalog: CurrencyCatalog,
    private readonly prices: PriceLookup,
    private readonly settings: PricingConfig,
    private readonly fixedQuotes: FixedQuoteTokens,
    private readonly clock: Clock,
  ) {}

  /** What the hot wallets can pay (docs/contract.md §11.7); without one nothing is checked (the worker, tests). */
  private liquidity: Pick<HotWalletLiquidity, 'canPay' | 'hasLeft'> | undefined;

  /** Checks live quotes and orders against what the signer's hot wallets can pay (runtime.ts). */
  useLiquidity(liquidity: Pick<HotWalletLiquidity, 'canPay' | 'hasLeft'>): void {
    this.liquidity = liquidity;
  }

  /** `${from.id}|${to.id}|${rateType}|${markupBps}` -> the pair as last priced. */
  private readonly pairMemo = new Map<string, PairMemo>();

  price(request: QuoteRequest): PricedQuote {
    const { from, to } = this.resolvePair(request);
    const quote = this.pricePair(from, to, request);
    this.checkLiquidity(quote, request.sandbox === true);
    return quote;
  }

  /**
   * 422 pair_unavailable, item insufficient_liquidity, when the hot wallet cannot pay this
   * quote's amount_to beside the payouts already waiting (docs/contract.md §11.7): a partner never gets a
   * quote, nor creates an order, that the exchange could not pay now. Live callers only: a
   * sandbox order is paid by the simulator. How much the wallet holds is not told.
   */
  checkLiquidity(quote: Pick<PricedQuote, 'to' | 'amountTo'>, sandbox: boolean): void {
    if (sandbox || this.liquidity === undefined || this.liquidity.canPay(quote.to, quote.amountTo)) return;
    throw ApiError.field(
      'pair_unavailable',
      { code: 'insufficient_liquidity', field: 'coin_to' },
      `the exchange cannot pay out ${quote.amountTo.toFixed()} ${label(quote.to)} now: try a smaller amount, or again later`,
    );
  }

  /** The two currencies of a request, with the 400 (unknown) and 422 (unusable) outcomes, every problem listed. */
  resolvePair(request: Pick<QuoteRequest, 'coinFrom' | 'coinTo' | 'networkFrom' | 'networkTo' | 'sandbox'>): {
    from: CurrencyRow;
    to: CurrencyRow;
  } {
    const problems = new ProblemList();
    const { from, to } = this.resolvePairInto(request, problems);
    problems.throwIfAny();
    if (from === undefined || to === undefined) throw new Error('a pair resolved without a problem lacks a side');
    return { from, to };
  }

  /**
   * resolvePair, its problems recorded in `problems` (both sides' at once, docs/contract.md §10.4) rather
   * than thrown: what was found, for a caller that goes on to find the request's other problems.
   * The checks run in v1.1's order, so the first problem is the one v1.1 answered.
   */
  resolvePairInto(
    request: Pick<QuoteRequest, 'coinFrom' | 'coinTo' | 'networkFrom' | 'networkTo' | 'sandbox'>,
    problems: ProblemList,
  ): ResolvedPair {
    const from = problems.check(() => this.resolve('from', request.coinFrom, request.networkFrom));
    const to = problems.check(() => this.resolve('to', request.coinTo, request.networkTo));
    if (from === undefined || to === undefined) return { from, to, usable: false };
    if (from.id === to.id) {
      problems.add(new ApiError('pair_unavailable', `cannot exchange ${label(from)} for itself`));
      return { from, to, usable: false };
    }
    const before = problems.empty;
    this.checkUsable(from, to, request.sandbox === true, problems);
    return { from, to, usable: before === problems.empty };
  }

  /** Prices a resolved pair: limits, rate and amount_to, or the 400/422 amount outcomes (items named by `fields`). */
  pricePair(
    from: CurrencyRow,
    to: CurrencyRow,
    request: Pick<QuoteRequest, 'amount' | 'amountTo' | 'rateType' | 'partner' | 'markupBps'>,
    fields: AmountFieldNames = RATES_AMOUNT_FIELDS,
  ): PricedQuote {
    const result = this.tryPricePair(from, to, request);
    if (result.ok) return result;
    switch (result.reason) {
      case 'no_price':
        throw new ApiError('pair_unavailable', `no fresh price for ${result.coin}: try again shortly`);
      case 'pair_unavailable':
        throw new ApiError('pair_unavailable', `the pair ${label(from)} → ${label(to)} is not available`);
      case 'too_many_decimals': {
        const field = result.field === 'amount' ? fields.amount : fields.amountTo;
        throw ApiError.field(
          'bad_request',
          { code: 'amount_invalid', field },
          `${field} has more than ${result.decimals} decimals for ${result.field === 'amount' ? from.coin : to.coin}`,
        );
      }
      case 'below_min':
      case 'above_max': {
        const field = request.amountTo === undefined ? fields.amount : fields.amountTo;
        const below = result.reason === 'below_min';
        throw ApiError.field(
          'amount_out_of_range',
          { code: below ? 'amount_below_min' : 'amount_above_max', field },
          `${field} is ${below ? 'below the minimum' : 'above the maximum'} for ${label(from)} → ${label(to)}`,
          {
            min_amount: result.minAmount,
            max_amount: result.maxAmount,
            min_amount_to: result.minAmountTo,
            max_amount_to: result.maxAmountTo,
          },
        );
      }
    }
  }

  /**
   * pricePair's outcomes as values, for callers that decide instead of answering a request (the
   * worker's exchange step): the priced quote, or why the pair cannot be priced at this amount now.
   * Throws only for a bug (a non-finite amount, malformed currency terms).
   */
  tryPricePair(
    from: CurrencyRow,
    to: CurrencyRow,
    request: Pick<QuoteRequest, 'amount' | 'amountTo' | 'rateType' | 'partner' | 'markupBps'>,
  ): PairPriceResult {
    const fromTerms = terms(from);
    const priceFromUsd = this.prices.getPriceUsd(from.price_symbol);
    if (priceFromUsd === undefined) return { ok: false, reason: 'no_price', coin: from.coin };
    const priceToUsd = this.prices.getPriceUsd(to.price_symbol);
    if (priceToUsd === undefined) return { ok: false, reason: 'no_price', coin: to.coin };
    const markupBps = request.markupBps ?? request.partner?.markup_bps ?? this.settings.defaultMarkupBps;
    // One quote gives both the outcome and the limits. Without an amount the source minimum is
    // quoted, and the pair's (larger) minimum when the destination side raises it.
    const amount = request.amount ?? fromTerms.minAmount;
    // Before the pair is validated, as quoteAmount does: a non-finite amount is reported as such.
    assertFiniteAmount(amount);
    const pair = this.quoteTableRow(from, to, priceFromUsd, priceToUsd, request.rateType, markupBps);
    const offered = pair.row.offered;
    // The amount quoted: the one asked, a reverse quote's computed one, or the pair's minimum.
    let quoted = amount;
    if (request.amountTo !== undefined) {
      const reverse = reverseAmountFrom(offered, request.amountTo);
      if (reverse.ok) quoted = reverse.amountFrom;
      else return this.refusal(reverse, 'amount_to', offered);
    }
    let result = tableQuote(pair.row, quoted);
    if (request.amount === undefined && request.amountTo === undefined && !result.ok && result.reason === 'below_min') {
      quoted = result.minAmount;
      result = tableQuote(pair.row, quoted);
    }
    if (!result.ok) return this.refusal(result, 'amount', offered);
    if (!offered.ok) throw new Error('a quote from a pair that is not offered');
    const quote = result;
    return {
      ok: true,
      from,
      to,
      rateType: request.rateType,
      amountFrom: quoted,
      amountTo: quote.amountTo,
      rate: quote.rate,
      exactRate: quote.exactRate,
      markupBps,
      minAmount: quote.minAmount,
      maxAmount: quote.maxAmount,
      minAmountTo: offered.minAmountTo,
      maxAmountTo: offered.maxAmountTo,
      networkFee: pair.networkFee,
      networkFeeUsd: pair.networkFeeUsd,
      etaSeconds: pair.etaSeconds,
    };
  }

  /**
   * When a float quote's prices stop being fresh (docs/contract.md §10.6, its expires_at): the earlier of the
   * two prices' freshness bounds. Read in the same handler as the quote, so the same prices; a
   * price gone meanwhile answers now.
   */
  priceFreshUntil(quote: Pick<PricedQuote, 'from' | 'to'>): Date {
    const now = this.clock.now().getTime();
    const bounds = [quote.from.price_symbol, quote.to.price_symbol].map((symbol) => this.prices.getPriceFreshUntil(symbol)?.getTime() ?? now);
    return new Date(Math.min(...bounds));
  }

  /** A refusal with the limits in both units and, for decimals, the amount that had too many. */
  private refusal(
    result: PairUnavailable | AmountOutOfRange | TooManyDecimals,
    field: TooManyDecimalsOf['field'],
    offered: OfferedPairResult,
  ): PairPriceResult {
    if (result.reason === 'too_many_decimals') return { ...result, field };
    if (result.reason === 'pair_unavailable') return result;
    if (!offered.ok) throw new Error('an amount refused by a pair that is not offered');
    return { ...result, minAmountTo: offered.minAmountTo, maxAmountTo: offered.maxAmountTo };
  }

  /**
   * A fixed quote's id: a token signed under the quote-signing key holding what the quote
   * promises (pair, amounts, rates, caller, expiry), so issuing it writes nothing and any process
   * can honour it. `partnerId` undefined: asked without a key (any partner's order may lock it).
   * `amountToAsked` is the amount_to of a reverse quote, which an order may send back instead of
   * amount_from.
   */
  issueFixedQuote(quote: PricedQuote, partnerId: string | undefined, amountToAsked?: Decimal): { id: string; expiresIn: number; expiresAt: Date } {
    const ttl = this.settings.fixedQuoteTtlSeconds;
    const expiresAtMs = this.clock.now().getTime() + ttl * 1000;
    const { token } = this.fixedQuotes.issue({
      partnerId: partnerId ?? null,
      currencyFromId: quote.from.id,
      currencyToId: quote.to.id,
      amountFrom: quote.amountFrom,
      amountTo: quote.amountTo,
      amountToRequested: amountToAsked,
      rate: quote.rate,
      exactRate: quote.exactRate,
      markupBps: quote.markupBps,
      expiresAtMs,
    });
    return { id: token, expiresIn: ttl, expiresAt: new Date(expiresAtMs) };
  }

  /**
   * The markup a fixed quote was priced with, which an order locking it stores (docs/contract.md §10.1): the
   * one in its token; a token of the previous format carries none, and was priced with the default
   * markup when asked without a key, else with the partner's (taken as it is now).
   */
  fixedQuoteMarkup(claim: FixedQuoteClaim, partner: PartnerRow): number {
    return claim.markupBps ?? (claim.partnerId === null ? this.settings.defaultMarkupBps : partner.markup_bps);
  }

  /** What a fixed quote's id promises, if this service signed it (expiry and match are the caller's to check). */
  openFixedQuote(quoteId: string): FixedQuoteClaim | QuoteTokenProblem {
    return this.fixedQuotes.open(quoteId);
  }

  private resolve(side: Side, rawCoin: string, rawNetwork: string | undefined): CurrencyRow {
    return resolveCurrency(this.catalog.networksOf(rawCoin.toUpperCase()), rawCoin, rawNetwork, {
      coin: `coin_${side}`,
      network: `network_${side}`,
    });
  }

  /**
   * The switches, and what the server has configured (CurrencyCatalog: deposit wallets, payout
   * paths, docs/contract.md §11.1): one item per side that stops the pair, its first reason (inactive, then
   * switched off, then not configured), listed in v1.1's order of checks so the first is the one
   * v1.1 answered.
   */
  private checkUsable(from: CurrencyRow, to: CurrencyRow, sandbox: boolean, problems: ProblemList): void {
    const reasons: { rank: number; field: string; detail: string; code?: 'insufficient_liquidity' }[] = [];
    if (!from.is_active) reasons.push({ rank: 0, field: 'coin_from', detail: `${label(from)} is not active` });
    else if (!from.is_deposit_enabled) reasons.push({ rank: 1, field: 'coin_from', detail: `deposits of ${label(from)} are disabled` });
    else if (!this.catalog.depositEnabled(from)) {
      reasons.push({ rank: 2, field: 'coin_from', detail: `deposits of ${label(from)} are not configured on this server` });
    }
    if (!to.is_active) reasons.push({ rank: 0, field: 'coin_to', detail: `${label(to)} is not active` });
    else if (!to.is_withdraw_enabled) reasons.push({ rank: 1, field: 'coin_to', detail: `withdrawals of ${label(to)} are disabled` });
    else if (!this.catalog.withdrawEnabled(to, sandbox)) {
      reasons.push({ rank: 2, field: 'coin_to', detail: `payouts of ${label(to)} are not configured on this server for live orders` });
    } else if (!sandbox && this.liquidity !== undefined && !this.liquidity.hasLeft(to)) {
      reasons.push({ rank: 3, field: 'coin_to', detail: `the exchange cannot pay out ${label(to)} now: try again later`, code: 'insufficient_liquidity' });
    }
    // Stable: within a rank, coin_from (pushed first) stays first, as v1.1 checked it first.
    reasons.sort((a, b) => a.rank - b.rank);
    for (const { field, detail, code } of reasons) problems.add(ApiError.field('pair_unavailable', { code: code ?? 'pair_unavailable', field }, detail));
  }

  /**
   * The quote table's row for these inputs (docs/adr/0058-quote-tables.md), from the memo while
   * they are the same objects (see PairMemo): built once per pair, rate type and markup each time
   * a price changes, so a quote only prices its amount.
   */
  private quoteTableRow(
    from: CurrencyRow,
    to: CurrencyRow,
    priceFromUsd: Decimal,
    priceToUsd: Decimal,
    rateType: RateType,
    markupBps: number,
  ): PairMemo['pair'] {
    const { spreadBps, fixedPremiumBps } = this.settings;
    const key = `${from.id}|${to.id}|${rateType}|${markupBps}`;
    const memo = this.pairMemo.get(key);
    if (
      memo !== undefined &&
      memo.from === from &&
      memo.to === to &&
      memo.priceFromUsd === priceFromUsd &&
      memo.priceToUsd === priceToUsd &&
      memo.spreadBps === spreadBps &&
      memo.fixedPremiumBps === fixedPremiumBps
    ) {
      return memo.pair;
    }
    const toTerms = terms(to);
    const pair = {
      row: quoteRow({ from: terms(from), to: toTerms, priceFromUsd, priceToUsd, rateType, markupBps, settings: { spreadBps, fixedPremiumBps } }),
      networkFee: toTerms.payoutFee,
      networkFeeUsd: toTerms.payoutFee.times(priceToUsd).toDecimalPlaces(USD_PLACES, Decimal.ROUND_DOWN),
      // The chains' facts come with the rows: a catalog refresh replaces every row, and so this memo.
      etaSeconds: etaSeconds(from.min_confirmations, this.catalog.chainOf(from), this.catalog.chainOf(to)),
    };
    if (memo === undefined && this.pairMemo.size >= PAIR_MEMO_LIMIT) this.pairMemo.clear();
    this.pairMemo.set(key, { from, to, priceFromUsd, priceToUsd, spreadBps, fixedPremiumBps, pair });
    return pair;
  }
}

/** Parsed terms per row object: rows are never changed in place (a catalog refresh replaces them). */
const termsByRow = new WeakMap<CurrencyRow, CurrencyTerms>();

function terms(row: CurrencyRow): CurrencyTerms {
  let parsed = termsByRow.get(row);
  if (parsed === undefined) {
    parsed = Object.freeze({
      coin: row.coin,
      network: row.network,
      decimals: row.decimals,
      minAmount: new Decimal(row.min_amount),
      maxAmount: new Decimal(row.max_amount),
      payoutFee: new Decimal(row.payout_fee),
    });
    termsByRow.set(row, parsed);
  }
  return parsed;
}

const label = (row: CurrencyRow): string => (row.coin === row.network ? row.coin : `${row.coin} (${row.network})`);
