import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  compareDecimal,
  PartnerApiSwapPlugin,
  SwapLimitError,
  SwapUnsupportedError,
  type WalletAsset,
} from '../../examples/wallet-swap-plugin/swap-plugin.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/**
 * The example wallet swap plugin (examples/wallet-swap-plugin) against the whole app over real
 * HTTP: every case a wallet meets, handled from codes and fields alone (DESIGN §7.1).
 */

const BTC: WalletAsset = { currencyCode: 'BTC' };
const ETH: WalletAsset = { currencyCode: 'ETH', chainId: 1 };
const USDT_ETHEREUM: WalletAsset = { currencyCode: 'USDT', contractAddress: '0xdac17f958d2ee523a2206206994597c13d831ec7', chainId: 1 };
const USDT_BSC: WalletAsset = { currencyCode: 'USDT', contractAddress: '0x55d398326f99059ff775485246999027b3197955', chainId: 56 };
const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

describe('example wallet swap plugin against the API', () => {
  let t: TestApp;
  let plugin: PartnerApiSwapPlugin;
  before(async () => {
    t = await buildTestApp({ clock: new ManualClock(), env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const { apiKey } = await t.createPartner({ rate_limit_per_minute: 100_000 });
    plugin = new PartnerApiSwapPlugin(`http://127.0.0.1:${port}/api/v1`, apiKey);
  });
  after(() => t.close());

  it('quotes by the amount sent and approves it into an order', async () => {
    const quote = await plugin.fetchSwapQuote({ from: BTC, to: ETH, amount: '0.1', quoteFor: 'from' });
    assert.equal(quote.amountFrom, '0.1');
    assert.ok(compareDecimal(quote.amountTo, '0') > 0);
    assert.equal(quote.expiresIn, null);
    const order = await quote.approve(ETH_ADDRESS);
    assert.equal(order.amountFrom, '0.1');
    assert.equal(order.amountTo, quote.amountTo);
    assert.match(order.depositAddress, /^bc1/);
  });

  it('quotes by the amount received (a token found by contract and chain id), fixed, and approves it', async () => {
    const quote = await plugin.fetchSwapQuote({ from: USDT_ETHEREUM, to: BTC, amount: '0.012345', quoteFor: 'to', rateType: 'fixed' });
    assert.ok(compareDecimal(quote.amountTo, '0.012345') >= 0, quote.amountTo);
    assert.ok((quote.amountFrom.split('.')[1] ?? '').length <= 6, 'USDT has 6 decimals');
    assert.equal(quote.expiresIn, 300);
    const order = await quote.approve(BTC_ADDRESS);
    assert.equal(order.amountFrom, quote.amountFrom);
    assert.equal(order.amountTo, quote.amountTo);
    assert.match(order.depositAddress, /^0x[0-9a-fA-F]{40}$/);
  });

  it('the same ticker on two chains is told apart by contract and chain id', async () => {
    // USDT's minimum is 10 on BNB Smart Chain and 20 on Ethereum (seed catalog): 15 tells them apart.
    const TRX: WalletAsset = { currencyCode: 'TRX' };
    const onBsc = await plugin.fetchSwapQuote({ from: USDT_BSC, to: TRX, amount: '15', quoteFor: 'from' });
    assert.equal(onBsc.amountFrom, '15');
    const onEthereum = await plugin.fetchSwapQuote({ from: USDT_ETHEREUM, to: TRX, amount: '15', quoteFor: 'from' }).catch((e: unknown) => e);
    assert.ok(onEthereum instanceof SwapLimitError && onEthereum.kind === 'below' && onEthereum.limit === '20', String(onEthereum));
    await assert.rejects(plugin.fetchSwapQuote({ from: { ...USDT_BSC, chainId: 1 }, to: BTC, amount: '100', quoteFor: 'from' }), SwapUnsupportedError);
  });

  it('limit errors in the unit the user typed: coin_from for quotes by amount sent, coin_to for amount received', async () => {
    const below = await plugin.fetchSwapQuote({ from: BTC, to: ETH, amount: '0.00001', quoteFor: 'from' }).catch((e: unknown) => e);
    assert.ok(below instanceof SwapLimitError, String(below));
    assert.equal(below.kind, 'below');
    assert.equal(below.direction, 'from');
    // The minimum is a BTC amount: quoting it by amount sent succeeds.
    const atMin = await plugin.fetchSwapQuote({ from: BTC, to: ETH, amount: below.limit, quoteFor: 'from' });
    assert.equal(atMin.amountFrom, below.limit);

    const above = await plugin.fetchSwapQuote({ from: BTC, to: ETH, amount: '1000000', quoteFor: 'to' }).catch((e: unknown) => e);
    assert.ok(above instanceof SwapLimitError, String(above));
    assert.equal(above.kind, 'above');
    assert.equal(above.direction, 'to');
    // The maximum is an ETH amount: quoting it by amount received succeeds.
    const atMax = await plugin.fetchSwapQuote({ from: BTC, to: ETH, amount: above.limit, quoteFor: 'to' });
    assert.equal(atMax.amountTo, above.limit);
  });

  it('an unsupported pair is not an amount error: same coin both sides, a disabled currency, an unknown token', async () => {
    await assert.rejects(plugin.fetchSwapQuote({ from: BTC, to: BTC, amount: '0.1', quoteFor: 'from' }), SwapUnsupportedError);
    await assert.rejects(plugin.fetchSwapQuote({ from: { currencyCode: 'NOPE' }, to: BTC, amount: '1', quoteFor: 'from' }), SwapUnsupportedError);
    const currencies = (await t.admin('GET', '/admin/v1/currencies')).json<Array<{ id: string; coin: string }>>();
    const eth = currencies.find((c) => c.coin === 'ETH');
    assert.ok(eth !== undefined);
    assert.equal((await t.admin('PATCH', `/admin/v1/currencies/${eth.id}`, { is_withdraw_enabled: false })).statusCode, 200);
    try {
      await assert.rejects(plugin.fetchSwapQuote({ from: BTC, to: ETH, amount: '0.1', quoteFor: 'from' }), SwapUnsupportedError);
    } finally {
      assert.equal((await t.admin('PATCH', `/admin/v1/currencies/${eth.id}`, { is_withdraw_enabled: true })).statusCode, 200);
    }
  });
});
