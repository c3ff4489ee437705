import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
// jsqr is CommonJS typed as an ES module: under NodeNext its default import is module.exports,
// whose `default` is the decoder function.
import jsqr from 'jsqr';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertError } from '../rates/rates-helpers.js';

/**
 * deposit_uri on the Order and GET /partner/orders/{order_id}/qr.svg (docs/contract.md §7.4). The SVG is
 * decoded back with a QR decoder (jsQR, the jsqr package): its modules are read from the path the qrcode library
 * draws, painted into an RGBA buffer with a quiet zone, and the decoded text must be the URI.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

type Partner = { id: string; apiKey: string };
type Order = { id: string; short_id: string; deposit_address: string; deposit_address_tag: string | null; deposit_uri: string | null; amount_from_expected: number };

/** Pixels per module, and modules of white added around the image (beyond the library's margin). */
const SCALE = 4;
const QUIET = 4;

/**
 * The dark modules of qrcode's SVG: one stroked path of `M x y` (absolute), `h n` (a run of n
 * dark modules to the right) and `m dx dy` (a relative move), rows at y + 0.5.
 */
function modules(svg: string): { size: number; dark: boolean[][] } {
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  assert.ok(size > 0, `a square viewBox in ${svg.slice(0, 120)}`);
  const path = /<path stroke="[^"]+" d="([^"]+)"/.exec(svg)?.[1];
  assert.ok(path !== undefined, 'a stroked path of dark modules');
  const dark = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  let x = 0;
  let y = 0;
  for (const [, command, args] of path.matchAll(/([MmhH])([^MmhH]*)/g)) {
    const numbers = (args ?? '').trim().split(/[\s,]+/).filter(Boolean).map(Number);
    if (command === 'M') [x = 0, y = 0] = numbers;
    else if (command === 'm') {
      x += numbers[0] ?? 0;
      y += numbers[1] ?? 0;
    } else {
      const run = numbers[0] ?? 0;
      for (let column = x; column < x + run; column++) dark[Math.floor(y)]![column] = true;
      x += run;
    }
  }
  return { size, dark };
}

function decode(svg: string): string {
  const { size, dark } = modules(svg);
  const side = (size + 2 * QUIET) * SCALE;
  const pixels = new Uint8ClampedArray(side * side * 4).fill(255);
  for (let row = 0; row < size; row++) {
    for (let column = 0; column < size; column++) {
      if (!dark[row]![column]) continue;
      for (let dy = 0; dy < SCALE; dy++) {
        for (let dx = 0; dx < SCALE; dx++) {
          const offset = (((row + QUIET) * SCALE + dy) * side + (column + QUIET) * SCALE + dx) * 4;
          pixels.fill(0, offset, offset + 3);
        }
      }
    }
  }
  const code = jsqr.default(pixels, side, side);
  assert.ok(code !== null, 'the image decodes as a QR code');
  return code.data;
}

describe('deposit_uri and GET /partner/orders/{order_id}/qr.svg', () => {
  let t: TestApp;
  let acme: Partner;
  let other: Partner;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    acme = await t.createPartner({ rate_limit_per_minute: 100_000 });
    other = await t.createPartner({ rate_limit_per_minute: 100_000 });
  });
  after(() => t.close());

  const create = async (payload: Record<string, unknown>): Promise<Order> => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { 'x-api-key': acme.apiKey }, payload });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Order>();
  };
  const qr = (id: string, partner: Partner = acme) =>
    t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}/qr.svg`, headers: { authorization: `Bearer ${partner.apiKey}` } });

  const toEth = { coin_to: 'ETH', network_to: 'ETH', rate_type: 'float', recipient_address: ETH_ADDRESS };
  const toBtc = { coin_to: 'BTC', network_to: 'BTC', rate_type: 'float', recipient_address: BTC_ADDRESS };

  it('BTC: a BIP-21 URI with the expected amount, the same in GET, and the QR code decodes to it', async () => {
    const order = await create({ coin_from: 'BTC', network_from: 'BTC', amount_from: 0.01234567, ...toEth });
    assert.equal(order.deposit_uri, `bitcoin:${order.deposit_address}?amount=0.01234567`);
    const read = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${order.id}`, headers: { 'x-api-key': acme.apiKey } });
    assert.equal(read.json<Order>().deposit_uri, order.deposit_uri);

    const res = await qr(order.short_id.toLowerCase());
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^image\/svg\+xml/);
    assert.equal(decode(res.body), order.deposit_uri);
  });

  it('USDT on ERC-20: an EIP-681 token transfer in atomic units, decoded back from the QR code', async () => {
    const order = await create({ coin_from: 'USDT', network_from: 'ERC20', amount_from: 150.25, ...toBtc });
    assert.equal(
      order.deposit_uri,
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${order.deposit_address}&uint256=150250000`,
    );
    assert.equal(decode((await qr(order.id)).body), order.deposit_uri);
  });

  it('ETH: an EIP-681 native transfer with value in wei', async () => {
    const order = await create({ coin_from: 'ETH', network_from: 'ETH', amount_from: 0.5, ...toBtc });
    assert.equal(order.deposit_uri, `ethereum:${order.deposit_address}@1?value=500000000000000000`);
    assert.equal(decode((await qr(order.id)).body), order.deposit_uri);
  });

  it('XRP: the destination tag is in the URI and in the QR code', async () => {
    const order = await create({ coin_from: 'XRP', network_from: 'XRP', amount_from: 100, ...toBtc });
    assert.ok(order.deposit_address_tag !== null);
    assert.equal(order.deposit_uri, `ripple:${order.deposit_address}?amount=100&dt=${order.deposit_address_tag}`);
    assert.equal(decode((await qr(order.id)).body), order.deposit_uri);
  });

  it('USDT on TRC-20 has no payment URI: deposit_uri null, and the QR code holds the bare address', async () => {
    const order = await create({ coin_from: 'USDT', network_from: 'TRC20', amount_from: 150, ...toBtc });
    assert.equal(order.deposit_uri, null);
    assert.equal(decode((await qr(order.id)).body), order.deposit_address);
  });

  it("another partner's order, or an unknown one: 404 {detail, code}", async () => {
    const order = await create({ coin_from: 'BTC', network_from: 'BTC', amount_from: 0.01, ...toEth });
    const unknown = assertError(await qr('00000000-0000-4000-8000-000000000000', other), 404, 'not_found');
    assert.deepEqual(assertError(await qr(order.id, other), 404, 'not_found'), unknown);
    assert.deepEqual(assertError(await qr(order.short_id, other), 404, 'not_found'), unknown);
  });

  it('without a key: 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/partner/orders/00000000-0000-4000-8000-000000000000/qr.svg' });
    assertError(res, 401, 'unauthorized');
  });
});
