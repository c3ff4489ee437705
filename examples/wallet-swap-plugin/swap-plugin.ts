/**
 * A wallet's swap plugin for this Partner API: the shape multi-exchange wallets (Edge and the
 * like) give every instant-exchange plugin. It quotes by the amount sent or by the amount
 * received, reports limits in the unit the user typed, tells an unsupported pair from an amount
 * out of range by the error `code` (never by detail text), and finds tokens by contract address
 * and chain id. Amounts stay decimal strings end to end (JSON numbers read losslessly).
 *
 * Standalone on purpose: it uses only `fetch` and lossless-json, as a wallet would.
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/** A wallet's asset: a native coin (no contract) or a token (contract + chain id). */
export interface WalletAsset {
  /** Ticker as the wallet shows it, e.g. USDT; used for native coins. */
  currencyCode: string;
  /** Token contract; absent for a chain's own coin. Compared case-insensitively. */
  contractAddress?: string;
  /** EIP-155 chain id for EVM assets (1 Ethereum, 56 BNB Smart Chain). */
  chainId?: number;
  /** Network name for non-EVM assets on several networks, e.g. TRC20. */
  network?: string;
}

export interface SwapRequest {
  from: WalletAsset;
  to: WalletAsset;
  /** Decimal string, in the unit named by quoteFor. */
  amount: string;
  /** 'from': amount is what the user sends; 'to': what the recipient should get. */
  quoteFor: 'from' | 'to';
  /** 'fixed' locks the rate for the quote's lifetime. */
  rateType?: 'float' | 'fixed';
}

export interface SwapQuote {
  amountFrom: string;
  amountTo: string;
  rate: string;
  /** Seconds left on a fixed quote; null for float. */
  expiresIn: number | null;
  /** Creates the order: the user then sends amountFrom to depositAddress (with the tag, if any). */
  approve(recipientAddress: string, recipientTag?: string): Promise<SwapOrder>;
}

export interface SwapOrder {
  id: string;
  depositAddress: string;
  depositTag: string | null;
  amountFrom: string;
  amountTo: string;
}

/** The wallet's three swap errors: unsupported, and a limit in the unit the user typed. */
export class SwapUnsupportedError extends Error {
  override readonly name = 'SwapUnsupportedError';
}
export class SwapLimitError extends Error {
  override readonly name = 'SwapLimitError';
  constructor(
    readonly kind: 'below' | 'above',
    /** The limit in the unit of the request's quoteFor ('from': coin_from, 'to': coin_to). */
    readonly limit: string,
    readonly direction: 'from' | 'to',
  ) {
    super(`amount is ${kind} the ${kind === 'below' ? 'minimum' : 'maximum'} ${limit} (${direction})`);
  }
}

interface CurrencyRow {
  coin: string;
  network: string;
  contract_address: string | null;
  chain_id: number | null;
}

type Json = Record<string, unknown>;
/** A JSON value as decimal text: numbers are read losslessly, so 18 decimals survive. */
const text = (value: unknown): string => (isLosslessNumber(value) ? value.value : String(value));

/** Sign of a − b for plain non-negative decimal strings, without floats. */
export function compareDecimal(a: string, b: string): number {
  const [aw = '0', af = ''] = a.split('.');
  const [bw = '0', bf = ''] = b.split('.');
  const width = Math.max(af.length, bf.length);
  const diff = BigInt(aw + af.padEnd(width, '0')) - BigInt(bw + bf.padEnd(width, '0'));
  return diff > 0n ? 1 : diff < 0n ? -1 : 0;
}

export class PartnerApiSwapPlugin {
  private currencies: CurrencyRow[] | undefined;

  /** `baseUrl` ends with /api/v1; a sandbox key (pk_test_…) never moves real funds. */
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async fetchSwapQuote(request: SwapRequest): Promise<SwapQuote> {
    const from = await this.match(request.from);
    const to = await this.match(request.to);
    const rateType = request.rateType ?? 'float';
    const query = new URLSearchParams({
      coin_from: from.coin, network_from: from.network, coin_to: to.coin, network_to: to.network,
      [request.quoteFor === 'from' ? 'amount' : 'amount_to']: request.amount, rate_type: rateType,
    });
    const quote = await this.call('GET', `/partner/rates?${query.toString()}`, undefined, request);
    const amountFrom = text(quote.amount_from);
    const orderBody: Json = {
      coin_from: from.coin, network_from: from.network, coin_to: to.coin, network_to: to.network,
      // By the amount the user typed: a float order by amount_to is re-priced to still reach it.
      [request.quoteFor === 'from' ? 'amount_from' : 'amount_to']: new LosslessNumber(request.amount), rate_type: rateType,
      ...(typeof quote.quote_id === 'string' ? { quote_id: quote.quote_id } : {}),
    };
    return {
      amountFrom,
      amountTo: text(quote.amount_to),
      rate: text(quote.rate),
      expiresIn: quote.expires_in === null ? null : Number(text(quote.expires_in)),
      approve: async (recipientAddress, recipientTag) => {
        const body = { ...orderBody, recipient_address: recipientAddress, ...(recipientTag === undefined ? {} : { recipient_address_tag: recipientTag }) };
        const order = await this.call('POST', '/partner/orders', body, request);
        return {
          id: String(order.id),
          depositAddress: String(order.deposit_address),
          depositTag: typeof order.deposit_address_tag === 'string' ? order.deposit_address_tag : null,
          amountFrom: text(order.amount_from_expected),
          amountTo: text(order.amount_to_expected),
        };
      },
    };
  }

  /** The catalog row of a wallet asset: by contract and chain id for tokens, else by ticker. */
  private async match(asset: WalletAsset): Promise<CurrencyRow> {
    this.currencies ??= ((await this.call('GET', '/currencies')) as unknown as Json[]).map((c) => ({
      coin: String(c.coin),
      network: String(c.network),
      contract_address: typeof c.contract_address === 'string' ? c.contract_address : null,
      chain_id: c.chain_id === null ? null : Number(text(c.chain_id)),
    }));
    const contract = asset.contractAddress?.toLowerCase();
    const row = this.currencies.find(
      (c) =>
        (contract === undefined
          ? c.contract_address === null && c.coin === asset.currencyCode.toUpperCase()
          : c.contract_address?.toLowerCase() === contract) &&
        (asset.chainId === undefined || c.chain_id === asset.chainId) &&
        (asset.network === undefined || c.network === asset.network.toUpperCase()),
    );
    if (row === undefined) throw new SwapUnsupportedError(`${asset.currencyCode} is not offered`);
    return row;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: Json, request?: SwapRequest): Promise<Json> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: stringify(body) }),
    });
    const json = parse(await res.text()) as Json;
    if (res.ok) return json;
    // Told apart by code alone; the limits come in both units, so the wallet shows the one typed.
    if (json.code === 'pair_unavailable') throw new SwapUnsupportedError(String(json.detail));
    if (json.code === 'amount_out_of_range' && request !== undefined) {
      const [min, max] = request.quoteFor === 'from' ? [text(json.min_amount), text(json.max_amount)] : [text(json.min_amount_to), text(json.max_amount_to)];
      const below = compareDecimal(request.amount, min) < 0;
      throw new SwapLimitError(below ? 'below' : 'above', below ? min : max, request.quoteFor);
    }
    throw new Error(`${method} ${path}: ${res.status} ${String(json.code)}: ${String(json.detail)}`);
  }
}
