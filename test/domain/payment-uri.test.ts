import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { AddressFormat } from '../../src/domain/address-format.js';
import { depositPaymentUri, type PaymentUriInput } from '../../src/domain/payment-uri.js';

/**
 * Every URI is parsed back with WHATWG URL (as a wallet's URI parser would) and its parts
 * compared with what went in: the amount as decimal text or as an atomic integer computed here
 * from the digits (BigInt), never through a binary float.
 */

const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const USDT_ERC20 = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDT_BEP20 = '0x55d398326f99059fF775485246999027B3197955';
const SOL_ADDRESS = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const XRP_ADDRESS = 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe';
const XLM_ADDRESS = 'GAHK7EEG2WWHVKDNT4CEQFZGKF2LGDSW2IVM4S5DP42RBW3K6BTODB4A';
const TON_ADDRESS = 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2';

function input(overrides: Partial<PaymentUriInput> & Pick<PaymentUriInput, 'addressFormat' | 'address'>): PaymentUriInput {
  return { chain: overrides.addressFormat.toUpperCase(), tokenContract: null, decimals: 8, tag: null, amount: '1', ...overrides };
}

/** `amount` (decimal text) × 10^decimals, exactly, from its digits. */
function atomic(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  assert.ok(fraction.length <= decimals, `${amount} is finer than 10^-${decimals}`);
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/** Two decimal texts name the same number (trailing zeros aside). */
function sameDecimal(actual: string | null, expected: string): void {
  assert.ok(actual !== null && /^[0-9]+(\.[0-9]+)?$/.test(actual), `amount ${String(actual)} is plain decimal text`);
  const digits = Math.max(actual.split('.')[1]?.length ?? 0, expected.split('.')[1]?.length ?? 0);
  assert.equal(atomic(actual, digits), atomic(expected, digits));
}

function parse(uri: string | null): URL {
  assert.ok(uri !== null, 'a URI');
  return new URL(uri);
}

describe('depositPaymentUri (docs/contract.md §7.4)', () => {
  it('BIP-21 for bitcoin, litecoin and dogecoin: the address, and amount in coins', () => {
    for (const [format, address] of [
      ['bitcoin', BTC_ADDRESS],
      ['litecoin', 'ltc1qg82n2kgqz7xckmckyxnv4s5lyn7q6v2hcqpv6m'],
      ['dogecoin', 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L'],
    ] as const) {
      const uri = depositPaymentUri(input({ addressFormat: format, address, amount: '0.00012345' }));
      assert.equal(uri, `${format}:${address}?amount=0.00012345`);
      const url = parse(uri);
      assert.equal(url.protocol, `${format}:`);
      assert.equal(url.pathname, address);
      sameDecimal(url.searchParams.get('amount'), '0.00012345');
    }
  });

  it('EIP-681 for native ETH and BNB: value in wei on the chain id', () => {
    const eth = parse(depositPaymentUri(input({ addressFormat: 'evm', chain: 'ETH', decimals: 18, address: ETH_ADDRESS, amount: '1.000000000000000001' })));
    assert.equal(eth.protocol, 'ethereum:');
    assert.equal(eth.pathname, `${ETH_ADDRESS}@1`);
    assert.equal(BigInt(eth.searchParams.get('value') ?? 'x'), 1_000_000_000_000_000_001n);

    const bnb = depositPaymentUri(input({ addressFormat: 'evm', chain: 'BSC', decimals: 18, address: ETH_ADDRESS, amount: '0.02' }));
    assert.equal(bnb, `ethereum:${ETH_ADDRESS}@56?value=20000000000000000`);
  });

  it('EIP-681 for ERC-20 and BEP-20: transfer on the token contract, uint256 in the token\'s atomic units', () => {
    const erc20 = depositPaymentUri(
      input({ addressFormat: 'evm', chain: 'ETH', decimals: 6, tokenContract: USDT_ERC20, address: ETH_ADDRESS, amount: '25.5' }),
    );
    assert.equal(erc20, `ethereum:${USDT_ERC20}@1/transfer?address=${ETH_ADDRESS}&uint256=25500000`);
    const url = parse(erc20);
    assert.equal(url.pathname, `${USDT_ERC20}@1/transfer`);
    assert.equal(url.searchParams.get('address'), ETH_ADDRESS);
    assert.equal(BigInt(url.searchParams.get('uint256') ?? 'x'), atomic('25.5', 6));

    const bep20 = parse(
      depositPaymentUri(input({ addressFormat: 'evm', chain: 'BSC', decimals: 18, tokenContract: USDT_BEP20, address: ETH_ADDRESS, amount: '10' })),
    );
    assert.equal(bep20.pathname, `${USDT_BEP20}@56/transfer`);
    assert.equal(BigInt(bep20.searchParams.get('uint256') ?? 'x'), 10n * 10n ** 18n);
  });

  it('Solana Pay: amount in SOL, spl-token for a token', () => {
    const sol = parse(depositPaymentUri(input({ addressFormat: 'solana', decimals: 9, address: SOL_ADDRESS, amount: '0.123456789' })));
    assert.equal(sol.protocol, 'solana:');
    assert.equal(sol.pathname, SOL_ADDRESS);
    sameDecimal(sol.searchParams.get('amount'), '0.123456789');
    assert.equal(sol.searchParams.get('spl-token'), null);

    const token = parse(
      depositPaymentUri(input({ addressFormat: 'solana', decimals: 6, tokenContract: USDC_MINT, address: SOL_ADDRESS, amount: '12' })),
    );
    assert.equal(token.searchParams.get('spl-token'), USDC_MINT);
    sameDecimal(token.searchParams.get('amount'), '12');
  });

  it('XRP: the destination tag travels as dt', () => {
    const url = parse(depositPaymentUri(input({ addressFormat: 'xrp', decimals: 6, address: XRP_ADDRESS, tag: '3141592', amount: '20.5' })));
    assert.equal(url.protocol, 'ripple:');
    assert.equal(url.pathname, XRP_ADDRESS);
    assert.equal(url.searchParams.get('dt'), '3141592');
    sameDecimal(url.searchParams.get('amount'), '20.5');
  });

  it('XLM (SEP-0007): destination, amount and the memo with its type', () => {
    const id = parse(depositPaymentUri(input({ addressFormat: 'stellar', decimals: 7, address: XLM_ADDRESS, tag: '987654', amount: '50.1234567' })));
    assert.equal(id.protocol, 'web+stellar:');
    assert.equal(id.pathname, 'pay');
    assert.equal(id.searchParams.get('destination'), XLM_ADDRESS);
    sameDecimal(id.searchParams.get('amount'), '50.1234567');
    assert.equal(id.searchParams.get('memo'), '987654');
    assert.equal(id.searchParams.get('memo_type'), 'MEMO_ID');

    const text = parse(depositPaymentUri(input({ addressFormat: 'stellar', decimals: 7, address: XLM_ADDRESS, tag: 'a b&c=d', amount: '50' })));
    assert.equal(text.searchParams.get('memo'), 'a b&c=d');
    assert.equal(text.searchParams.get('memo_type'), 'MEMO_TEXT');
  });

  it('TON: transfer deeplink with nanoton and the memo as text', () => {
    const url = parse(depositPaymentUri(input({ addressFormat: 'ton', decimals: 9, address: TON_ADDRESS, tag: '42', amount: '3.5' })));
    assert.equal(url.protocol, 'ton:');
    assert.equal(url.host, 'transfer');
    assert.equal(url.pathname, `/${TON_ADDRESS}`);
    assert.equal(BigInt(url.searchParams.get('amount') ?? 'x'), 3_500_000_000n);
    assert.equal(url.searchParams.get('text'), '42');
  });

  it('null where no standard URI exists or the parts do not fit one', () => {
    assert.equal(depositPaymentUri(input({ addressFormat: 'tron', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })), null);
    // An EVM chain with no known chain id cannot be named in EIP-681.
    assert.equal(depositPaymentUri(input({ addressFormat: 'evm', chain: 'NOPE', decimals: 18, address: ETH_ADDRESS })), null);
    // Finer than one atomic unit: no integer amount says it.
    assert.equal(depositPaymentUri(input({ addressFormat: 'evm', chain: 'ETH', decimals: 6, tokenContract: USDT_ERC20, address: ETH_ADDRESS, amount: '0.0000001' })), null);
  });

  it('any amount at the coin\'s decimals comes back exactly, for every format', () => {
    const formats: readonly [AddressFormat, string, number, string | null][] = [
      ['bitcoin', BTC_ADDRESS, 8, null],
      ['evm', ETH_ADDRESS, 18, null],
      ['evm', ETH_ADDRESS, 6, USDT_ERC20],
      ['solana', SOL_ADDRESS, 9, null],
      ['xrp', XRP_ADDRESS, 6, null],
      ['stellar', XLM_ADDRESS, 7, null],
      ['ton', TON_ADDRESS, 9, null],
    ];
    const amount = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }), fc.integer({ min: 0, max: 18 }))
      .map(([whole, fraction, digits]) => (digits === 0 ? `${whole}` : `${whole}.${fraction.toString().padStart(18, '0').slice(0, digits)}`));
    fc.assert(
      fc.property(fc.constantFrom(...formats), amount, ([format, address, decimals, token], raw) => {
        const digits = raw.split('.')[1]?.length ?? 0;
        const value = digits > decimals ? raw.slice(0, raw.length - (digits - decimals)).replace(/\.$/, '') : raw;
        const url = parse(depositPaymentUri(input({ addressFormat: format, chain: 'ETH', address, decimals, tokenContract: token, amount: value })));
        const params = url.searchParams;
        if (format === 'evm') assert.equal(BigInt(params.get(token === null ? 'value' : 'uint256') ?? 'x'), atomic(value, decimals));
        else if (format === 'ton') assert.equal(BigInt(params.get('amount') ?? 'x'), atomic(value, decimals));
        else sameDecimal(params.get('amount'), value);
      }),
    );
  });
});
