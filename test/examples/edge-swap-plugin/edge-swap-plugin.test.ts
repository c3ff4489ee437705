import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  asMaybeInsufficientFundsError,
  asMaybeSwapAboveLimitError,
  asMaybeSwapBelowLimitError,
  asMaybeSwapCurrencyError,
  asMaybeSwapPermissionError,
  InsufficientFundsError,
  type EdgeCorePluginOptions,
  type EdgeCurrencyConfig,
  type EdgeCurrencyInfo,
  type EdgeCurrencyWallet,
  type EdgeFetchFunction,
  type EdgeIo,
  type EdgeLog,
  type EdgeSpendInfo,
  type EdgeSwapQuote,
  type EdgeTokenMap,
  type EdgeTransaction,
  type EdgeTxActionSwap,
  type JsonObject,
} from 'edge-core-js/types';
import { isLosslessNumber, parse } from 'lossless-json';
import { compareNative, decimalToNative } from '../../../examples/wallet-swap-plugin/native-amounts.js';
import {
  makePartnerApiSwapPlugin,
  PartnerApiError,
  type PartnerApiSwapPlugin,
  type PartnerApiSwapRequest,
} from '../../../examples/wallet-swap-plugin/swap-plugin.js';
import { startServer, type ApiServer } from '../../helpers/process/app-server.js';
import { createPartner, http } from '../../helpers/process/http-client.js';
import { killAll } from '../../helpers/process/managed-process.js';
import { depositWalletEnv } from '../../helpers/process/order-mix.js';
import { sleep } from '../../helpers/process/waits.js';
import { createTestDatabase, databaseEnv, newDataDir, testEngine, type TestDatabase } from '../../helpers/test-database.js';

/**
 * Issue 27.8: the Edge swap plugin (examples/wallet-swap-plugin) against the server as `npm start`
 * runs it (a child process; the run's compiled build under `npm test`), through Edge's own
 * interface and error classes: quotes from and to, the order made at quote time, native amounts,
 * expirationDate, the deposit memo in the spend, close() cancelling, status tracking by the
 * order's link, and every error item code a quote or an order can meet. Wallets are fakes with
 * the members the plugin uses; their "chain" pays a sandbox order through the sandbox deposit.
 * Each case prints one line (`# edge: …`).
 *
 * Edge's error classes are compiled for old runtimes (an instance is a plain Error with the class's
 * name), so `instanceof` does not hold for them: the wallet, and this test, recognise them as
 * edge-core-js itself does, with its `asMaybe…Error` cleaners (by name).
 */
const engine = testEngine();
const BLOCKED_IP = '203.0.113.7';

const ADDRESS = {
  bitcoin: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  ethereum: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  ripple: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
  tron: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
};
const USDT_ERC20 = 'dac17f958d2ee523a2206206994597c13d831ec7';
const DAI_ERC20 = '6b175474e89094c44da98b954eedeac495271d0f';
const USDT_SPL = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

const line = (text: string): void => console.log(`# edge: ${text}`);

interface FakeWalletSpec {
  pluginId: string;
  currencyCode: string;
  decimals: number;
  address: string;
  evmChainId?: number;
  memoType?: 'text' | 'number';
  tokens?: Record<string, { currencyCode: string; decimals: number; contractAddress: string }>;
  /** What getMaxSpendable answers (native). */
  maxSpendable?: string;
  /** makeSpend throws InsufficientFundsError. */
  broke?: boolean;
}

/** What the fake wallets did: every spend made, and a hook for a broadcast (the test's "chain"). */
const spends: EdgeSpendInfo[] = [];
let onBroadcast: (tx: EdgeTransaction) => Promise<void> = async () => undefined;

/** An Edge wallet with the members the plugin uses (the rest of EdgeCurrencyWallet is never touched). */
function fakeWallet(spec: FakeWalletSpec): EdgeCurrencyWallet {
  const multiplier = (decimals: number): string => `1${'0'.repeat(decimals)}`;
  const currencyInfo: EdgeCurrencyInfo = {
    pluginId: spec.pluginId,
    displayName: spec.currencyCode,
    chainDisplayName: spec.currencyCode,
    assetDisplayName: spec.currencyCode,
    walletType: `wallet:${spec.pluginId}`,
    currencyCode: spec.currencyCode,
    denominations: [{ name: spec.currencyCode, multiplier: multiplier(spec.decimals) }],
    addressExplorer: '',
    transactionExplorer: '',
    ...(spec.evmChainId === undefined ? {} : { evmChainId: spec.evmChainId }),
    ...(spec.memoType === undefined ? {} : { memoOptions: [{ type: spec.memoType }] }),
  };
  const allTokens: EdgeTokenMap = {};
  for (const [tokenId, token] of Object.entries(spec.tokens ?? {})) {
    allTokens[tokenId] = {
      currencyCode: token.currencyCode,
      displayName: token.currencyCode,
      denominations: [{ name: token.currencyCode, multiplier: multiplier(token.decimals) }],
      networkLocation: { contractAddress: token.contractAddress },
    };
  }
  const currencyConfig: Pick<EdgeCurrencyConfig, 'currencyInfo' | 'allTokens'> = { currencyInfo, allTokens };
  const walletId = `${spec.pluginId}-wallet`;
  const wallet: Pick<
    EdgeCurrencyWallet,
    'id' | 'currencyInfo' | 'currencyConfig' | 'getAddresses' | 'getMaxSpendable' | 'makeSpend' | 'signTx' | 'broadcastTx' | 'saveTx'
  > = {
    id: walletId,
    currencyInfo,
    currencyConfig: currencyConfig as EdgeCurrencyConfig,
    getAddresses: async () => [{ addressType: 'publicAddress', publicAddress: spec.address }],
    getMaxSpendable: async () => spec.maxSpendable ?? '0',
    makeSpend: async (spendInfo) => {
      if (spec.broke === true) throw new InsufficientFundsError({ tokenId: spendInfo.tokenId });
      spends.push(spendInfo);
      const target = spendInfo.spendTargets[0];
      return {
        tokenId: spendInfo.tokenId,
        nativeAmount: `-${target?.nativeAmount ?? '0'}`,
        networkFees: [{ tokenId: null, nativeAmount: '1000' }],
        networkFee: '1000',
        blockHeight: 0,
        date: Date.now() / 1000,
        txid: '',
        signedTx: '',
        memos: spendInfo.memos ?? [],
        ourReceiveAddresses: [],
        isSend: true,
        walletId,
        currencyCode: spec.currencyCode,
        ...(spendInfo.savedAction === undefined ? {} : { savedAction: spendInfo.savedAction }),
      };
    },
    signTx: async (tx) => ({ ...tx, signedTx: 'signed' }),
    broadcastTx: async (tx) => {
      await onBroadcast(tx);
      return { ...tx, txid: randomBytes(32).toString('hex') };
    },
    saveTx: async () => undefined,
  };
  return wallet as EdgeCurrencyWallet;
}

const BTC = fakeWallet({ pluginId: 'bitcoin', currencyCode: 'BTC', decimals: 8, address: ADDRESS.bitcoin, maxSpendable: '5000000' });
const ETH = fakeWallet({
  pluginId: 'ethereum',
  currencyCode: 'ETH',
  decimals: 18,
  evmChainId: 1,
  address: ADDRESS.ethereum,
  tokens: { [USDT_ERC20]: { currencyCode: 'USDT', decimals: 6, contractAddress: `0x${USDT_ERC20.toUpperCase()}` } },
});
const XRP = fakeWallet({ pluginId: 'ripple', currencyCode: 'XRP', decimals: 6, memoType: 'number', address: ADDRESS.ripple });
const TRX = fakeWallet({ pluginId: 'tron', currencyCode: 'TRX', decimals: 6, address: ADDRESS.tron });

function request(
  fromWallet: EdgeCurrencyWallet,
  toWallet: EdgeCurrencyWallet,
  nativeAmount: string,
  quoteFor: 'from' | 'to' | 'max' = 'from',
  extra: { fromTokenId?: string; toTokenId?: string; toMemo?: string; refundMemo?: string } = {},
): PartnerApiSwapRequest {
  const { fromTokenId = null, toTokenId = null, ...memos } = extra;
  return { fromWallet, toWallet, fromTokenId, toTokenId, nativeAmount, quoteFor, ...memos };
}

/** The Edge context's options for the plugin: the wallet's fetch (through `wrap`, to count or alter calls) and log. */
function pluginOptions(initOptions: JsonObject, wrap: (fetch: EdgeFetchFunction) => EdgeFetchFunction = (f) => f, warnings: string[] = []): EdgeCorePluginOptions {
  const fetchFn: EdgeFetchFunction = (uri, opts) => fetch(uri, opts);
  const log: EdgeLog = Object.assign((..._args: unknown[]) => undefined, {
    breadcrumb: () => undefined,
    crash: () => undefined,
    warn: (...args: unknown[]) => void warnings.push(args.map(String).join(' ')),
    error: (...args: unknown[]) => void warnings.push(args.map(String).join(' ')),
  });
  const io = { fetch: wrap(fetchFn), fetchCors: wrap(fetchFn) } as unknown as EdgeIo;
  return { initOptions, infoPayload: {}, io, log, nativeIo: {}, pluginDisklet: {} as EdgeCorePluginOptions['pluginDisklet'] };
}

/** The swap action the quote's spend carries (orderId, orderUri, amounts). */
function swapAction(): EdgeTxActionSwap {
  const action = spends.at(-1)?.savedAction;
  assert.ok(action?.actionType === 'swap', 'the spend carries a swap action');
  return action;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected the quote to be refused'),
    (error: unknown) => error,
  );
}

describe(`the Edge swap plugin against the server (${engine})`, { timeout: 300_000 }, () => {
  const adminToken = randomBytes(32).toString('base64url');
  const admin = { authorization: `Bearer ${adminToken}` };
  const dataDir = newDataDir('epa-edge-');
  let database: TestDatabase | undefined;
  let server: ApiServer;
  let liveKey: string;
  let partnerId: string;
  let plugin: PartnerApiSwapPlugin;

  const init = (apiKey: string, more: JsonObject = {}): JsonObject => ({ apiKey, apiUrl: server.url, ...more });
  /** The order as GET answers it, every number as its decimal text (18 decimals survive). */
  const order = async (id: string, key = liveKey): Promise<Record<string, unknown>> => {
    const res = await http(server.url, 'GET', `/api/v1/partner/orders/${id}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200, res.text);
    const body = parse(res.text) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(body).map(([name, value]) => [name, isLosslessNumber(value) ? value.value : value]));
  };
  const newKey = async (body: Record<string, unknown>): Promise<string> => {
    const res = await http(server.url, 'POST', `/admin/v1/partners/${partnerId}/keys`, { headers: admin, json: body });
    assert.equal(res.status, 201, res.text);
    return (JSON.parse(res.text) as { api_key: string }).api_key;
  };
  const currencyId = async (coin: string, network: string): Promise<string> => {
    const res = await http(server.url, 'GET', '/admin/v1/currencies', { headers: admin });
    const row = (JSON.parse(res.text) as Array<{ id: string; coin: string; network: string }>).find((c) => c.coin === coin && c.network === network);
    assert.ok(row !== undefined, `${coin} ${network} in the catalog`);
    return row.id;
  };
  /** The item codes the API answers a quote with (what the plugin met, read without it). */
  const quoteItemCodes = async (query: Record<string, string>): Promise<string[]> => {
    const res = await http(server.url, 'GET', `/api/v1/partner/rates?${new URLSearchParams(query).toString()}`, { headers: { authorization: `Bearer ${liveKey}` } });
    return (JSON.parse(res.text) as { errors?: Array<{ code: string }> }).errors?.map((item) => item.code) ?? [];
  };
  const patchCurrency = async (id: string, body: Record<string, unknown>): Promise<void> => {
    const res = await http(server.url, 'PATCH', `/admin/v1/currencies/${id}`, { headers: admin, json: body });
    assert.equal(res.status, 200, res.text);
  };

  before(async () => {
    let env: Record<string, string> = {
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      IP_BLOCKLIST: '203.0.113.0/24',
      ...depositWalletEnv(),
    };
    if (engine === 'postgres') {
      database = await createTestDatabase('postgres');
      env = { ...env, ...databaseEnv(database) };
    }
    server = await startServer({ name: 'edge-plugin', env, dataDir });
    const partner = await createPartner(server.url, adminToken);
    liveKey = partner.apiKey;
    partnerId = partner.id;
    plugin = makePartnerApiSwapPlugin(pluginOptions(init(liveKey)));
  });

  after(async () => {
    await killAll();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('quotes from (BTC → ETH, fixed): the order is made at quote time with the refund address; native amounts; expirationDate is expires_at; close() cancels it', async () => {
    const quote = await plugin.fetchSwapQuote(request(BTC, ETH, '10000000'), undefined, { infoPayload: {} });
    const action = swapAction();
    assert.ok(action.orderId !== undefined && action.orderUri !== undefined);
    const made = await order(action.orderId);
    assert.equal(made.status, 'waiting_deposit');
    assert.equal(made.refund_address, ADDRESS.bitcoin);
    assert.equal(made.recipient_address, ADDRESS.ethereum);
    assert.equal(made.rate_type, 'fixed');
    assert.equal(quote.fromNativeAmount, '10000000');
    assert.equal(quote.toNativeAmount, decimalToNative(String(made.amount_to_expected), 18, 'down'));
    assert.equal(quote.isEstimate, false);
    assert.equal(quote.expirationDate?.toISOString(), made.expires_at);
    assert.equal(String(quote.maxFulfillmentSeconds), made.eta_seconds);
    const target = spends.at(-1)?.spendTargets[0];
    assert.equal(target?.publicAddress, made.deposit_address);
    assert.equal(target?.nativeAmount, '10000000');
    assert.deepEqual(spends.at(-1)?.memos, []);
    // orderUri is the end user's status page; its JSON twin is what checkOrderStatus reads.
    assert.ok(action.orderUri.startsWith(`${server.url}/status/`), action.orderUri);
    const page = await http(server.url, 'GET', new URL(action.orderUri).pathname);
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(String(made.short_id)));
    line(`quote from: 0.1 BTC → ${quote.toNativeAmount} wei ETH, order ${String(made.short_id)} made at quote time (refund ${ADDRESS.bitcoin}), expires ${made.expires_at as string}, orderUri ${action.orderUri}`);

    await quote.close();
    const closed = await order(action.orderId);
    assert.equal(closed.status, 'expired');
    assert.equal(closed.status_reason, 'cancelled');
    const status = await plugin.checkOrderStatus(action.orderUri);
    assert.equal(status.status, 'expired');
    await quote.close();
    line(`close(): order ${String(made.short_id)} cancelled (status ${String(closed.status)}, reason ${String(closed.status_reason)}; Edge status ${status.status})`);
  });

  it('quotes to (a token found by contract and chain id → BTC): the amount received is at least the one asked', async () => {
    const quote = await plugin.fetchSwapQuote(request(ETH, BTC, '1234500', 'to', { fromTokenId: USDT_ERC20 }), undefined, { infoPayload: {} });
    const made = await order(swapAction().orderId ?? '');
    assert.equal(made.coin_from, 'USDT');
    assert.equal(made.network_from, 'ERC20');
    assert.equal(made.amount_to_expected, '0.012345');
    assert.ok(compareNative(quote.toNativeAmount, '1234500') >= 0, quote.toNativeAmount);
    assert.equal(quote.fromNativeAmount, decimalToNative(String(made.amount_from_expected), 6, 'up'));
    assert.equal(spends.at(-1)?.tokenId, USDT_ERC20);
    line(`quote to: 0.012345 BTC ← ${quote.fromNativeAmount} USDT (6-decimal native) on ERC20, order ${String(made.short_id)}`);
    await quote.close();
  });

  it("quotes the wallet's maximum as the amount sent", async () => {
    const quote = await plugin.fetchSwapQuote(request(BTC, ETH, '0', 'max'), undefined, { infoPayload: {} });
    assert.equal(quote.fromNativeAmount, '5000000');
    line(`quote max: the wallet's spendable 5000000 sats quoted as sent (order ${swapAction().orderId ?? ''})`);
    await quote.close();
  });

  it('a memo coin: the deposit tag goes into the spend (XRP → BTC) with the refund memo; a payout memo is passed (BTC → XRP)', async () => {
    const quote = await plugin.fetchSwapQuote(request(XRP, BTC, '100000000', 'from', { refundMemo: '77' }), undefined, { infoPayload: {} });
    const made = await order(swapAction().orderId ?? '');
    assert.equal(typeof made.deposit_address_tag, 'string');
    assert.deepEqual(spends.at(-1)?.memos, [{ type: 'number', value: made.deposit_address_tag, memoName: 'Destination tag' }]);
    assert.equal(spends.at(-1)?.spendTargets[0]?.publicAddress, made.deposit_address);
    assert.equal(made.refund_address, ADDRESS.ripple);
    assert.equal(made.refund_address_tag, '77');
    line(`memo: 100 XRP to ${String(made.deposit_address)} with Destination tag ${String(made.deposit_address_tag)} in the spend's memos; refund ${ADDRESS.ripple} tag 77`);
    await quote.close();

    const toXrp = await plugin.fetchSwapQuote(request(BTC, XRP, '1000000', 'from', { toMemo: '12345' }), undefined, { infoPayload: {} });
    const payout = await order(swapAction().orderId ?? '');
    assert.equal(payout.recipient_address_tag, '12345');
    line(`memo: BTC → XRP pays ${ADDRESS.ripple} with recipient tag 12345`);
    await toXrp.close();
  });

  it('tracks an order by its link until it completes (sandbox key; the wallet broadcast pays it)', async () => {
    const sandboxKey = await newKey({ sandbox: true });
    const sandbox = makePartnerApiSwapPlugin(pluginOptions(init(sandboxKey)));
    onBroadcast = async (tx) => {
      // The fake chain: the deposit reaches the address with the memo the spend carries.
      const action = tx.savedAction as EdgeTxActionSwap;
      const res = await http(server.url, 'POST', `/api/v1/partner/sandbox/orders/${action.orderId ?? ''}/deposit`, {
        headers: { authorization: `Bearer ${sandboxKey}` },
        json: {},
      });
      assert.equal(res.status, 200, res.text);
    };
    try {
      const quote: EdgeSwapQuote = await sandbox.fetchSwapQuote(request(BTC, ETH, '2000000'), undefined, { infoPayload: {} });
      const { orderUri = '' } = swapAction();
      assert.equal((await sandbox.checkOrderStatus(orderUri)).status, 'pending');
      const result = await quote.approve();
      await quote.close(); // after approve: nothing to cancel
      const seen: string[] = [];
      for (let i = 0; i < 120; i++) {
        const status = await sandbox.checkOrderStatus(orderUri);
        const label = `${status.apiStatus}→${status.status}`;
        if (seen.at(-1) !== label) seen.push(label);
        if (status.status === 'completed') {
          assert.ok(status.payoutTxid !== null);
          break;
        }
        await sleep(500);
      }
      assert.equal(seen.at(-1), 'completed→completed', seen.join(', '));
      line(`status: order ${result.orderId ?? ''} tracked by its orderUri: ${seen.join(', ')}`);
    } finally {
      onBroadcast = async () => undefined;
    }
  });

  it('limits: below and above, in the native unit of the side the user typed, and quoting at the limit succeeds', async () => {
    const belowFrom = asMaybeSwapBelowLimitError(await rejection(plugin.fetchSwapQuote(request(BTC, ETH, '1000'), undefined, { infoPayload: {} })));
    assert.ok(belowFrom !== undefined);
    assert.equal(belowFrom.direction, 'from');
    const atMin = await plugin.fetchSwapQuote(request(BTC, ETH, belowFrom.nativeMin), undefined, { infoPayload: {} });
    await atMin.close();
    line(`amount_below_min (from) → SwapBelowLimitError nativeMin ${belowFrom.nativeMin} sats; quoting it succeeds`);

    const belowTo = asMaybeSwapBelowLimitError(await rejection(plugin.fetchSwapQuote(request(BTC, ETH, '1000', 'to'), undefined, { infoPayload: {} })));
    assert.ok(belowTo !== undefined);
    assert.equal(belowTo.direction, 'to');
    const atMinTo = await plugin.fetchSwapQuote(request(BTC, ETH, belowTo.nativeMin, 'to'), undefined, { infoPayload: {} });
    await atMinTo.close();
    line(`amount_below_min (to) → SwapBelowLimitError nativeMin ${belowTo.nativeMin} wei; quoting it succeeds`);

    const aboveFrom = asMaybeSwapAboveLimitError(await rejection(plugin.fetchSwapQuote(request(BTC, ETH, '100000000000'), undefined, { infoPayload: {} })));
    assert.ok(aboveFrom !== undefined);
    assert.equal(aboveFrom.direction, 'from');
    line(`amount_above_max (from) → SwapAboveLimitError nativeMax ${aboveFrom.nativeMax} sats`);

    const aboveTo = asMaybeSwapAboveLimitError(await rejection(plugin.fetchSwapQuote(request(BTC, ETH, `1${'0'.repeat(24)}`, 'to'), undefined, { infoPayload: {} })));
    assert.ok(aboveTo !== undefined);
    assert.equal(aboveTo.direction, 'to');
    const atMaxTo = await plugin.fetchSwapQuote(request(BTC, ETH, aboveTo.nativeMax, 'to'), undefined, { infoPayload: {} });
    await atMaxTo.close();
    line(`amount_above_max (to) → SwapAboveLimitError nativeMax ${aboveTo.nativeMax} wei; quoting it succeeds`);
  });

  it('unsupported: an asset not in the catalog, the same asset both sides, a currency turned off, a catalog out of date', async () => {
    const monero = fakeWallet({ pluginId: 'monero', currencyCode: 'XMR', decimals: 12, address: '4' });
    const unknown = await rejection(plugin.fetchSwapQuote(request(monero, BTC, '1000000000000'), undefined, { infoPayload: {} }));
    assert.ok(asMaybeSwapCurrencyError(unknown) !== undefined, String(unknown));
    line('asset not in the catalog (a Monero wallet: no CAIP-2 match) → SwapCurrencyError');

    const same = await rejection(plugin.fetchSwapQuote(request(BTC, BTC, '10000000'), undefined, { infoPayload: {} }));
    assert.ok(asMaybeSwapCurrencyError(same) !== undefined, String(same));
    assert.deepEqual(await quoteItemCodes({ coin_from: 'BTC', network_from: 'BTC', coin_to: 'BTC', network_to: 'BTC', amount: '0.1' }), ['pair_unavailable']);
    line('pair_unavailable (BTC → BTC) → SwapCurrencyError');

    const eth = await currencyId('ETH', 'ETH');
    await patchCurrency(eth, { is_withdraw_enabled: false });
    try {
      const off = await rejection(plugin.fetchSwapQuote(request(BTC, ETH, '10000000'), undefined, { infoPayload: {} }));
      assert.ok(asMaybeSwapCurrencyError(off) !== undefined, String(off));
      assert.deepEqual(await quoteItemCodes({ coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount: '0.1' }), ['pair_unavailable']);
    } finally {
      await patchCurrency(eth, { is_withdraw_enabled: true });
    }
    line('pair_unavailable (ETH payouts turned off) → SwapCurrencyError');

    // An operator who turns a currency off leaves it in the catalog: the pair is unavailable.
    const trx = await currencyId('TRX', 'TRX');
    await patchCurrency(trx, { is_active: false });
    try {
      const off = await rejection(plugin.fetchSwapQuote(request(TRX, BTC, '100000000'), undefined, { infoPayload: {} }));
      assert.ok(asMaybeSwapCurrencyError(off) !== undefined, String(off));
      assert.deepEqual(await quoteItemCodes({ coin_from: 'TRX', network_from: 'TRX', coin_to: 'BTC', network_to: 'BTC', amount: '100' }), ['pair_unavailable']);
    } finally {
      await patchCurrency(trx, { is_active: true });
    }
    line('pair_unavailable (TRX turned off by the operator) → SwapCurrencyError');

    // The plugin sends only what the catalog lists, so the server says currency_unsupported or
    // network_unsupported to a catalog that is out of date: a wallet that kept one listing a
    // token since removed (DAI on ERC20) and a network a coin no longer has (USDT on SPL).
    const staleRows = [
      { coin: 'DAI', network: 'ERC20', caip2: 'eip155:1', contract_address: `0x${DAI_ERC20}`, memo_name: null, is_memo: false },
      { coin: 'USDT', network: 'SPL', caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', contract_address: USDT_SPL, memo_name: null, is_memo: false },
    ];
    const staleCatalog = (inner: EdgeFetchFunction): EdgeFetchFunction => async (uri, opts) => {
      const res = await inner(uri, opts);
      if (!uri.endsWith('/api/v1/currencies')) return res;
      const rows = JSON.parse(await res.text()) as unknown[];
      return new Response(JSON.stringify([...rows, ...staleRows]), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const stale = makePartnerApiSwapPlugin(pluginOptions(init(liveKey), staleCatalog));
    const SOL = fakeWallet({
      pluginId: 'solana',
      currencyCode: 'SOL',
      decimals: 9,
      address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
      tokens: { [USDT_SPL]: { currencyCode: 'USDT', decimals: 6, contractAddress: USDT_SPL } },
    });
    for (const [code, wallet, tokenId, query] of [
      ['currency_unsupported', ETH, DAI_ERC20, { coin_from: 'DAI', network_from: 'ERC20' }],
      ['network_unsupported', SOL, USDT_SPL, { coin_from: 'USDT', network_from: 'SPL' }],
    ] as const) {
      const error = await rejection(stale.fetchSwapQuote(request(wallet, BTC, '100000000', 'from', { fromTokenId: tokenId }), undefined, { infoPayload: {} }));
      assert.ok(asMaybeSwapCurrencyError(error) !== undefined, String(error));
      assert.deepEqual(await quoteItemCodes({ ...query, coin_to: 'BTC', network_to: 'BTC', amount: '100' }), [code]);
      line(`${code} (${query.coin_from} on ${query.network_from}, from a catalog out of date) → SwapCurrencyError`);
    }
  });

  it('addresses and memos the exchange refuses: address_invalid, memo_required, memo_invalid → PartnerApiError with its items', async () => {
    const badEth = fakeWallet({ pluginId: 'ethereum', currencyCode: 'ETH', decimals: 18, evmChainId: 1, address: '0x1234' });
    const cases: Array<[string, PartnerApiSwapRequest, string]> = [
      ['address_invalid', request(BTC, badEth, '10000000'), 'recipient_address'],
      ['memo_required', request(BTC, XRP, '10000000'), 'recipient_address_tag'],
      ['memo_invalid', request(BTC, XRP, '10000000', 'from', { toMemo: 'abc' }), 'recipient_address_tag'],
    ];
    for (const [code, req, field] of cases) {
      const error = await rejection(plugin.fetchSwapQuote(req, undefined, { infoPayload: {} }));
      assert.ok(error instanceof PartnerApiError, String(error));
      assert.equal(error.item(code)?.field, field, JSON.stringify(error.items));
      line(`${code} → PartnerApiError (${error.status} ${error.code}), item on ${field}: ${error.item(code)?.detail ?? ''}`);
    }
  });

  it('amount_invalid: a wallet unit finer than the coin → PartnerApiError', async () => {
    const fine = fakeWallet({ pluginId: 'bitcoin', currencyCode: 'BTC', decimals: 10, address: ADDRESS.bitcoin });
    const error = await rejection(plugin.fetchSwapQuote(request(fine, ETH, '1000000001'), undefined, { infoPayload: {} }));
    assert.ok(error instanceof PartnerApiError, String(error));
    assert.ok(error.item('amount_invalid') !== undefined, JSON.stringify(error.items));
    line(`amount_invalid (0.1000000001 BTC) → PartnerApiError (${error.status} ${error.code})`);
  });

  it('quote_invalid: a quote spoiled on the way is asked again once; spoiled every time → PartnerApiError', async () => {
    let spoil = 1;
    let rates = 0;
    const spoiler = (inner: EdgeFetchFunction): EdgeFetchFunction => async (uri, opts) => {
      if (uri.includes('/partner/rates')) rates += 1;
      if (spoil > 0 && uri.endsWith('/partner/orders') && typeof opts?.body === 'string') {
        spoil -= 1;
        return inner(uri, { ...opts, body: opts.body.replace(/"quote_id":"[^"]*"/, '"quote_id":"fq2.spoiled"') });
      }
      return inner(uri, opts);
    };
    const spoilt = makePartnerApiSwapPlugin(pluginOptions(init(liveKey), spoiler));
    const quote = await spoilt.fetchSwapQuote(request(BTC, ETH, '10000000'), undefined, { infoPayload: {} });
    assert.equal(rates, 2);
    await quote.close();
    line('quote_invalid once → quoted again and the order made (2 quotes asked)');

    spoil = Infinity;
    rates = 0;
    const error = await rejection(spoilt.fetchSwapQuote(request(BTC, ETH, '10000000'), undefined, { infoPayload: {} }));
    assert.ok(error instanceof PartnerApiError && error.code === 'quote_invalid', String(error));
    assert.equal(rates, 2);
    line(`quote_invalid twice → PartnerApiError (${error.status} ${error.code})`);
  });

  it('region_restricted: an end user the operator does not serve → SwapPermissionError geoRestriction', async () => {
    const proxied = makePartnerApiSwapPlugin(pluginOptions(init(liveKey, { endUserIp: BLOCKED_IP })));
    const error = asMaybeSwapPermissionError(await rejection(proxied.fetchSwapQuote(request(BTC, ETH, '10000000'), undefined, { infoPayload: {} })));
    assert.ok(error !== undefined);
    assert.equal(error.reason, 'geoRestriction');
    line(`region_restricted (X-End-User-IP ${BLOCKED_IP}) → SwapPermissionError ${error.reason}`);
  });

  it("the wallet's own errors pass through: InsufficientFundsError, and the order made for it is cancelled", async () => {
    const broke = fakeWallet({ pluginId: 'bitcoin', currencyCode: 'BTC', decimals: 8, address: ADDRESS.bitcoin, broke: true });
    const before = await http(server.url, 'GET', '/api/v1/partner/orders?limit=1', { headers: { authorization: `Bearer ${liveKey}` } });
    const error = await rejection(plugin.fetchSwapQuote(request(broke, ETH, '10000000'), undefined, { infoPayload: {} }));
    assert.ok(asMaybeInsufficientFundsError(error) !== undefined, String(error));
    const after = await http(server.url, 'GET', '/api/v1/partner/orders?limit=1', { headers: { authorization: `Bearer ${liveKey}` } });
    const [latest] = (JSON.parse(after.text) as { orders: Array<{ id: string; status: string; status_reason: string | null }> }).orders;
    assert.notEqual(after.text, before.text);
    assert.equal(latest?.status, 'expired');
    assert.equal(latest.status_reason, 'cancelled');
    line('makeSpend fails (InsufficientFundsError) → passed through; the order made at quote time is cancelled');
  });

  it('a client key (pk_client_…, the one to ship): quotes and tracks, but close() cannot cancel (403 scope, logged); the order expires by itself', async () => {
    const clientKey = await newKey({ scope: 'client' });
    const warnings: string[] = [];
    const shipped = makePartnerApiSwapPlugin(pluginOptions(init(clientKey), undefined, warnings));
    const quote = await shipped.fetchSwapQuote(request(BTC, ETH, '10000000'), undefined, { infoPayload: {} });
    const { orderId = '', orderUri = '' } = swapAction();
    await quote.close();
    assert.match(warnings.join('\n'), /403 scope/);
    assert.equal((await order(orderId, clientKey)).status, 'waiting_deposit');
    assert.equal((await shipped.checkOrderStatus(orderUri)).status, 'pending');
    line('client key: quote and order made, status tracked; close() → 403 scope, logged, the order waits until it expires');
  });
});
