/**
 * An Edge swap plugin for this Partner API (issue 27.8), written against edge-core-js's own types:
 * what a multi-exchange wallet ships for each instant exchange (EdgeSwapPlugin). It quotes by the
 * amount sent or received (or the wallet's maximum), creates the order at quote time with the
 * user's refund address (and the memos a memo chain needs), turns native amounts into the API's
 * decimal strings and back exactly, takes `expirationDate` from the order's `expires_at`, puts the
 * deposit memo into the spend, cancels the order when the wallet closes a quote it did not approve,
 * and tracks an order through its public status link (`orderUri`). Every refusal is read from the
 * error items' codes (docs/contract.md §10.4), never from detail text, and becomes Edge's error class.
 *
 * Standalone on purpose: the wallet's `io.fetch` and lossless-json, nothing of the server.
 */
import { isLosslessNumber, parse, stringify } from 'lossless-json';
import {
  SwapAboveLimitError,
  SwapBelowLimitError,
  SwapCurrencyError,
  SwapPermissionError,
  type EdgeCorePluginOptions,
  type EdgeCurrencyWallet,
  type EdgeMemo,
  type EdgeSpendInfo,
  type EdgeSwapApproveOptions,
  type EdgeSwapInfo,
  type EdgeSwapPlugin,
  type EdgeSwapQuote,
  type EdgeSwapRequest,
  type EdgeSwapResult,
  type EdgeTokenId,
  type JsonObject,
} from 'edge-core-js/types';
import { decimalToNative, multiplierDecimals, nativeToDecimal } from './native-amounts.js';

/** `initOptions` of the plugin, as the wallet passes them to the context. */
export interface PartnerApiInitOptions {
  /** An API key. A client key (pk_client_…) is the one made to ship inside an app; it cannot cancel (see close). */
  apiKey: string;
  /** The service's origin, e.g. https://exchange.example (the API is under /api/v1). */
  apiUrl: string;
  /** 'fixed' (default): the rate is locked for the order (isEstimate false); 'float': priced when the deposit arrives. */
  rateType?: 'fixed' | 'float';
  /**
   * For a wallet that calls the API through its own server: the end user's IP address, sent as
   * X-End-User-IP so the operator's region rules apply to the user, not to the server.
   */
  endUserIp?: string;
  /** How the wallet names the plugin; default pluginId `partnerapi`. */
  pluginId?: string;
  displayName?: string;
  supportEmail?: string;
}

/**
 * A request may carry the memos of its two addresses: `toMemo` for a payout to an account that
 * routes by memo or destination tag (an exchange's XRP address, say), `refundMemo` for the refund
 * address on a memo chain. Edge's own request has neither; a wallet that knows them adds them.
 */
export type PartnerApiSwapRequest = EdgeSwapRequest & { toMemo?: string; refundMemo?: string };

/** One item of an error body's `errors` (docs/contract.md §10.4), amounts as decimal text. */
export interface ErrorItem {
  code: string;
  field: string | null;
  detail: string;
  min_amount?: string;
  max_amount?: string;
  min_amount_to?: string;
  max_amount_to?: string;
}

/**
 * A refusal Edge has no class for: an address or memo the exchange refuses (address_invalid,
 * memo_required, memo_invalid), a quote that could not be kept (quote_invalid, after one retry), an
 * amount with more decimals than the coin's (amount_invalid), a key that may not do this (scope).
 * `items` says what, field by field.
 */
export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly items: readonly ErrorItem[],
    detail: string,
  ) {
    super(detail);
  }

  /** The first item with one of these codes. */
  item(...codes: string[]): ErrorItem | undefined {
    return this.items.find((item) => codes.includes(item.code));
  }
}

/** The order statuses Edge asks of an exchange's status API. */
export type EdgeOrderStatus = 'pending' | 'processing' | 'infoNeeded' | 'expired' | 'refunded' | 'completed';

export interface OrderStatusReport {
  /** The order as the status page names it (EX-…). */
  shortId: string;
  status: EdgeOrderStatus;
  /** The API's own status (waiting_deposit, confirming, …, completed). */
  apiStatus: string;
  depositTxid: string | null;
  payoutTxid: string | null;
  refundTxid: string | null;
}

/** The plugin: Edge's interface, plus status tracking by a quote's orderUri. */
export interface PartnerApiSwapPlugin extends EdgeSwapPlugin {
  checkOrderStatus(orderUri: string): Promise<OrderStatusReport>;
}

/** API status → Edge status: funds moving are `processing`; an order for the operator to look at is `infoNeeded`. */
const EDGE_STATUS: Record<string, EdgeOrderStatus> = {
  waiting_deposit: 'pending',
  confirming: 'processing',
  exchanging: 'processing',
  sending: 'processing',
  refunding: 'processing',
  completed: 'completed',
  expired: 'expired',
  refunded: 'refunded',
  failed: 'infoNeeded',
};

/**
 * CAIP-2 chain of an Edge currency plugin that is not EVM (an EVM wallet is `eip155:{evmChainId}`).
 * The catalog gives each row's CAIP-2 id (docs/contract.md §10.7): this table is the whole mapping.
 */
const CAIP2_BY_EDGE_PLUGIN: Readonly<Record<string, string>> = {
  bitcoin: 'bip122:000000000019d6689c085ae165831e93',
  litecoin: 'bip122:12a765e31ffd4059bada1e25190f6e98',
  dogecoin: 'bip122:1a91e3dace36e2be3bf030a65679fe82',
  tron: 'tron:728126428',
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  ripple: 'xrpl:0',
  stellar: 'stellar:pubnet',
  ton: 'tvm:-239',
};

/** The catalog re-read after this long (a wallet keeps its plugins for the whole session). */
const CATALOG_TTL_MS = 10 * 60_000;

type Json = Record<string, unknown>;

interface CatalogRow {
  coin: string;
  network: string;
  caip2: string;
  contract: string | null;
  /** What wallets call the memo (Destination tag, Memo); null where the chain has none. */
  memoName: string | null;
  isMemo: boolean;
}

/** One side of a swap: the wallet's asset, its catalog row and its native unit. */
interface Side {
  wallet: EdgeCurrencyWallet;
  tokenId: EdgeTokenId;
  row: CatalogRow;
  /** Decimals of the wallet's native unit (its first denomination). */
  decimals: number;
}

/** A failed call: the status, the top-level code and every item. */
class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly items: ErrorItem[],
    detail: string,
  ) {
    super(detail);
  }
}

/** A JSON value as decimal text: numbers are read losslessly, so 18 decimals survive. */
const text = (value: unknown): string => (isLosslessNumber(value) ? value.value : String(value));
const optionalText = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : text(value));
const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function readInitOptions(options: JsonObject): Required<Omit<PartnerApiInitOptions, 'endUserIp'>> & { endUserIp: string | undefined } {
  const string = (name: string): string | undefined => {
    // JsonObject's values are `any`: read as unknown, and checked.
    const value: unknown = options[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') throw new TypeError(`initOptions.${name} must be a non-empty string`);
    return value;
  };
  const apiKey = string('apiKey');
  const apiUrl = string('apiUrl');
  if (apiKey === undefined || apiUrl === undefined) throw new TypeError('initOptions needs apiKey and apiUrl');
  const rateType = string('rateType') ?? 'fixed';
  if (rateType !== 'fixed' && rateType !== 'float') throw new TypeError("initOptions.rateType is 'fixed' or 'float'");
  return {
    apiKey,
    apiUrl: new URL(apiUrl).origin,
    rateType,
    endUserIp: string('endUserIp'),
    pluginId: string('pluginId') ?? 'partnerapi',
    displayName: string('displayName') ?? 'Partner API exchange',
    supportEmail: string('supportEmail') ?? '',
  };
}

function readItems(body: Json): ErrorItem[] {
  const items = Array.isArray(body.errors) ? (body.errors as Json[]) : [];
  return items.map((item) => ({
    code: String(item.code),
    field: typeof item.field === 'string' ? item.field : null,
    detail: String(item.detail),
    min_amount: optionalText(item.min_amount),
    max_amount: optionalText(item.max_amount),
    min_amount_to: optionalText(item.min_amount_to),
    max_amount_to: optionalText(item.max_amount_to),
  }));
}

export function makePartnerApiSwapPlugin(opts: EdgeCorePluginOptions): PartnerApiSwapPlugin {
  const { io, log } = opts;
  const init = readInitOptions(opts.initOptions);
  const swapInfo: EdgeSwapInfo = { pluginId: init.pluginId, displayName: init.displayName, isDex: false, supportEmail: init.supportEmail };
  const apiBase = `${init.apiUrl}/api/v1`;
  let catalog: { rows: Promise<CatalogRow[]>; at: number } | undefined;

  async function call(method: 'GET' | 'POST', path: string, body?: Json, extraHeaders: Record<string, string> = {}): Promise<Json> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${init.apiKey}`, ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await io.fetch(`${apiBase}${path}`, { method, headers, ...(body === undefined ? {} : { body: stringify(body) ?? '' }) });
    const raw = await res.text();
    const json = (raw === '' ? {} : parse(raw)) as Json;
    if (res.ok) return json;
    throw new ApiProblem(res.status, String(json.code), readItems(json), `${method} ${path}: ${res.status} ${String(json.code)}: ${String(json.detail)}`);
  }

  function currencies(): Promise<CatalogRow[]> {
    if (catalog === undefined || Date.now() - catalog.at > CATALOG_TTL_MS) {
      const rows = call('GET', '/currencies').then((list) =>
        (list as unknown as Json[]).map((c) => ({
          coin: String(c.coin),
          network: String(c.network),
          caip2: String(c.caip2),
          contract: stringOrNull(c.contract_address),
          memoName: stringOrNull(c.memo_name),
          isMemo: c.is_memo === true,
        })),
      );
      catalog = { rows, at: Date.now() };
      rows.catch(() => (catalog = undefined));
    }
    return catalog.rows;
  }

  /** The catalog row of a wallet's asset: its chain by CAIP-2, then the token's contract (none for the chain's coin). */
  async function side(wallet: EdgeCurrencyWallet, tokenId: EdgeTokenId): Promise<Side | undefined> {
    const { evmChainId, pluginId } = wallet.currencyInfo;
    const caip2 = evmChainId === undefined ? CAIP2_BY_EDGE_PLUGIN[pluginId] : `eip155:${evmChainId}`;
    if (caip2 === undefined) return undefined;
    let contract: string | null = null;
    let denominations = wallet.currencyInfo.denominations;
    if (tokenId !== null) {
      const token = wallet.currencyConfig.allTokens[tokenId];
      const location: unknown = token?.networkLocation?.contractAddress;
      if (token === undefined || typeof location !== 'string') return undefined;
      contract = location;
      denominations = token.denominations;
    }
    const multiplier = denominations[0]?.multiplier;
    if (multiplier === undefined) return undefined;
    const evm = caip2.startsWith('eip155:');
    const same = (a: string | null): boolean =>
      a === null || contract === null ? a === contract : evm ? a.toLowerCase() === contract.toLowerCase() : a === contract;
    const row = (await currencies()).find((r) => r.caip2 === caip2 && same(r.contract));
    return row === undefined ? undefined : { wallet, tokenId, row, decimals: multiplierDecimals(multiplier) };
  }

  /** The wallet's receive address for the asset (its first, which Edge lists as the one to show). */
  async function addressOf(wallet: EdgeCurrencyWallet, tokenId: EdgeTokenId): Promise<string> {
    const [first] = await wallet.getAddresses({ tokenId });
    if (first === undefined) throw new Error(`wallet ${wallet.id} has no receive address`);
    return first.publicAddress;
  }

  /** Best effort: an order nobody will pay expires by itself anyway (30 minutes). */
  async function cancel(orderId: string): Promise<void> {
    try {
      await call('POST', `/partner/orders/${encodeURIComponent(orderId)}/cancel`, {});
    } catch (error) {
      // 403 scope: a client key may not cancel; 409: a deposit was seen meanwhile. Either way the order stands.
      log.warn(`order ${orderId} not cancelled: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** An API refusal as Edge's error class, by the items' codes, in Edge's order of priority. */
  function edgeError(problem: ApiProblem, request: EdgeSwapRequest, direction: 'from' | 'to', typed: Side): Error {
    const has = (...codes: string[]): ErrorItem | undefined => problem.items.find((item) => codes.includes(item.code));
    if (has('region_restricted') !== undefined) return new SwapPermissionError(swapInfo, 'geoRestriction');
    if (has('currency_unsupported', 'network_unsupported', 'pair_unavailable') !== undefined) {
      // The catalog changed under us: read it again next time.
      if (has('currency_unsupported', 'network_unsupported') !== undefined) catalog = undefined;
      return new SwapCurrencyError(swapInfo, request);
    }
    const limit = has('amount_below_min', 'amount_above_max');
    if (limit !== undefined) {
      // The limit in the unit the user typed, in that asset's native unit; a minimum rounds up and a maximum down, so either is itself within the limits.
      const below = limit.code === 'amount_below_min';
      const value = direction === 'from' ? (below ? limit.min_amount : limit.max_amount) : below ? limit.min_amount_to : limit.max_amount_to;
      const native = value === undefined ? undefined : decimalToNative(value, typed.decimals, below ? 'up' : 'down');
      return below ? new SwapBelowLimitError(swapInfo, native, direction) : new SwapAboveLimitError(swapInfo, native, direction);
    }
    return new PartnerApiError(problem.status, problem.code, problem.items, problem.message);
  }

  async function fetchSwapQuote(request: EdgeSwapRequest): Promise<EdgeSwapQuote> {
    const { fromWallet, toWallet, fromTokenId, toTokenId } = request;
    const memos = request as PartnerApiSwapRequest;
    const [from, to] = await Promise.all([side(fromWallet, fromTokenId), side(toWallet, toTokenId)]);
    if (from === undefined || to === undefined) throw new SwapCurrencyError(swapInfo, request);
    const [refundAddress, payoutAddress] = await Promise.all([addressOf(fromWallet, fromTokenId), addressOf(toWallet, toTokenId)]);

    let nativeAmount = request.nativeAmount;
    // 'max': all the wallet can send (after its network fee), quoted as the amount sent.
    if (request.quoteFor === 'max') nativeAmount = await fromWallet.getMaxSpendable({ tokenId: fromTokenId, spendTargets: [{ publicAddress: refundAddress }] });
    const direction = request.quoteFor === 'to' ? 'to' : 'from';
    const typed = direction === 'from' ? from : to;
    const amount = nativeToDecimal(nativeAmount, typed.decimals);

    const pair = { coin_from: from.row.coin, network_from: from.row.network, coin_to: to.row.coin, network_to: to.row.network };
    // A refund to a memo chain needs its memo; without one the refund address is left out (the
    // operator asks for it if a refund is ever due) rather than refused.
    const refund =
      from.row.isMemo && memos.refundMemo === undefined
        ? {}
        : { refund_address: refundAddress, ...(memos.refundMemo === undefined ? {} : { refund_address_tag: memos.refundMemo }) };
    const orderBody: Json = {
      ...pair,
      [direction === 'from' ? 'amount_from' : 'amount_to']: amount,
      rate_type: init.rateType,
      recipient_address: payoutAddress,
      ...(memos.toMemo === undefined ? {} : { recipient_address_tag: memos.toMemo }),
      ...refund,
    };
    const orderHeaders: Record<string, string> = init.endUserIp === undefined ? {} : { 'x-end-user-ip': init.endUserIp };

    /** The order, created now: a fixed one from a fresh quote (asked again once if the quote went stale on the way). */
    const createOrder = async (retries: number): Promise<Json> => {
      if (init.rateType === 'float') return call('POST', '/partner/orders', orderBody, orderHeaders);
      const query = new URLSearchParams({ ...pair, [direction === 'from' ? 'amount' : 'amount_to']: amount, rate_type: 'fixed' });
      const quote = await call('GET', `/partner/rates?${query.toString()}`);
      try {
        return await call('POST', '/partner/orders', { ...orderBody, quote_id: String(quote.quote_id) }, orderHeaders);
      } catch (error) {
        if (error instanceof ApiProblem && error.code === 'quote_invalid' && retries > 0) return createOrder(retries - 1);
        throw error;
      }
    };
    let order: Json;
    try {
      order = await createOrder(1);
    } catch (error) {
      throw error instanceof ApiProblem ? edgeError(error, request, direction, typed) : error;
    }

    const orderId = String(order.id);
    const fromNativeAmount = decimalToNative(text(order.amount_from_expected), from.decimals, 'up');
    const toNativeAmount = decimalToNative(text(order.amount_to_expected), to.decimals, 'down');
    const depositTag = stringOrNull(order.deposit_address_tag);
    const depositMemos: EdgeMemo[] =
      depositTag === null
        ? []
        : [{ type: fromWallet.currencyInfo.memoOptions?.[0]?.type ?? 'text', value: depositTag, ...(from.row.memoName === null ? {} : { memoName: from.row.memoName }) }];
    const orderUri = new URL(String(order.status_url), init.apiUrl).href;
    const spendInfo: EdgeSpendInfo = {
      tokenId: fromTokenId,
      spendTargets: [{ nativeAmount: fromNativeAmount, publicAddress: String(order.deposit_address) }],
      memos: depositMemos,
      networkFeeOption: 'high',
      assetAction: { assetActionType: 'swap' },
      savedAction: {
        actionType: 'swap',
        swapInfo,
        orderId,
        orderUri,
        isEstimate: init.rateType === 'float',
        fromAsset: { pluginId: fromWallet.currencyInfo.pluginId, tokenId: fromTokenId, nativeAmount: fromNativeAmount },
        toAsset: { pluginId: toWallet.currencyInfo.pluginId, tokenId: toTokenId, nativeAmount: toNativeAmount },
        payoutAddress,
        payoutWalletId: toWallet.id,
        ...('refund_address' in refund ? { refundAddress } : {}),
      },
    };

    let tx;
    try {
      tx = await fromWallet.makeSpend(spendInfo);
    } catch (error) {
      // InsufficientFundsError and the like reach the wallet as they are; the order made for them goes.
      await cancel(orderId);
      throw error;
    }

    let state: 'open' | 'sent' | 'closed' = 'open';
    return {
      swapInfo,
      request,
      isEstimate: init.rateType === 'float',
      fromNativeAmount,
      toNativeAmount,
      expirationDate: new Date(String(order.expires_at)),
      maxFulfillmentSeconds: Number(text(order.eta_seconds)),
      networkFee: {
        currencyCode: fromWallet.currencyInfo.currencyCode,
        tokenId: null,
        nativeAmount: tx.networkFees.find((fee) => fee.tokenId === null)?.nativeAmount ?? '0',
      },
      pluginId: swapInfo.pluginId,
      async approve(approveOptions?: EdgeSwapApproveOptions): Promise<EdgeSwapResult> {
        if (state !== 'open') throw new Error(`quote for order ${orderId} is ${state}`);
        tx.metadata = { ...approveOptions?.metadata, ...tx.metadata };
        const signed = await fromWallet.signTx(tx);
        // From here the funds may be on their way: the order is never cancelled after this.
        state = 'sent';
        const sent = await fromWallet.broadcastTx(signed);
        await fromWallet.saveTx(sent);
        return { transaction: sent, orderId, destinationAddress: payoutAddress };
      },
      async close(): Promise<void> {
        if (state !== 'open') return;
        state = 'closed';
        await cancel(orderId);
      },
    };
  }

  return {
    swapInfo,
    fetchSwapQuote: (request) => fetchSwapQuote(request),
    async checkOrderStatus(orderUri: string): Promise<OrderStatusReport> {
      const token = /\/status\/([^/?#]+)/.exec(new URL(orderUri).pathname)?.[1];
      if (token === undefined) throw new Error(`not a status link: ${orderUri}`);
      // The public twin of the status page (docs/contract.md §10.10): no key.
      const res = await io.fetch(`${apiBase}/public/orders/${token}`, { method: 'GET', headers: { accept: 'application/json' } });
      const body = parse(await res.text()) as Json;
      if (!res.ok) throw new PartnerApiError(res.status, String(body.code), readItems(body), String(body.detail));
      const apiStatus = String(body.status);
      return {
        shortId: String(body.short_id),
        status: EDGE_STATUS[apiStatus] ?? 'processing',
        apiStatus,
        depositTxid: stringOrNull(body.deposit_txid),
        payoutTxid: stringOrNull(body.payout_txid),
        refundTxid: stringOrNull(body.refund_txid),
      };
    },
  };
}
