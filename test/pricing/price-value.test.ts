import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../src/domain/money.js';
import { parse } from 'lossless-json';
import { isPlausiblePriceUsd, positiveDecimalFromFeed } from '../../src/pricing/price-value.js';

void describe('positiveDecimalFromFeed', () => {
  void it('accepts unsigned decimal text, with or without an exponent, keeping every digit', () => {
    assert.equal(positiveDecimalFromFeed('67012.34000000')?.toString(), '67012.34');
    assert.equal(positiveDecimalFromFeed('0.0000149253731343283582')?.toString(), '0.0000149253731343283582');
    assert.equal(positiveDecimalFromFeed('1.5e-5')?.toString(), '0.000015');
    assert.equal(positiveDecimalFromFeed(' 2 ')?.toString(), '2');
  });

  void it('accepts a lossless-json number literal exactly', () => {
    const { usd } = parse('{"usd":67012.345678901234}') as { usd: unknown };
    assert.equal(positiveDecimalFromFeed(usd)?.toString(), '67012.345678901234');
  });

  void it('rejects everything that is not a strictly positive finite decimal', () => {
    for (const value of ['0', '0.000', '-1', '+1', 'NaN', 'Infinity', '0x10', '0b1', '1e', '', '1,5', '1_000', 'abc', '1e9999999']) {
      assert.equal(positiveDecimalFromFeed(value), undefined, `accepted ${JSON.stringify(value)}`);
    }
    for (const value of [undefined, null, true, 1, {}, [], parse('-5'), parse('0')]) {
      assert.equal(positiveDecimalFromFeed(value), undefined, `accepted ${String(value)}`);
    }
    assert.equal(positiveDecimalFromFeed('1'.repeat(65)), undefined, 'accepted an overlong literal');
  });
});

void describe('isPlausiblePriceUsd', () => {
  void it('accepts prices inside the band and rejects the rest', () => {
    assert.ok(isPlausiblePriceUsd(new Decimal('0.10120000')));
    assert.ok(isPlausiblePriceUsd(new Decimal('67012.34')));
    for (const value of ['0', '-1', '1e-8', '1e8', '1e30']) {
      assert.equal(isPlausiblePriceUsd(new Decimal(value)), false, value);
    }
    assert.equal(isPlausiblePriceUsd(new Decimal(Infinity)), false);
    assert.equal(isPlausiblePriceUsd(new Decimal(NaN)), false);
  });
});
