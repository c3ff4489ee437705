import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError } from '../../src/config.js';
import { Decimal } from '../../src/domain/money.js';
import { assetName, judgePayout, parseSignerPolicy, type PayoutToJudge } from '../../src/signer/policy.js';

const policy = parseSignerPolicy({
  SIGNER_MAX_PAYOUT_LTC: '2',
  SIGNER_MAX_DAILY_LTC: '5',
  SIGNER_APPROVAL_ABOVE_LTC: '1',
  SIGNER_MAX_PAYOUT_USDT_ETH: '1000',
  SIGNER_MAX_DAILY_USDT_ETH: '10000',
  UNRELATED: 'x',
});

const payout = (fields: Partial<PayoutToJudge> = {}): PayoutToJudge => ({
  asset: 'LTC',
  amount: new Decimal('0.5'),
  expectedAmount: new Decimal(fields.amount?.toFixed() ?? '0.5'),
  toOwnAddress: false,
  approved: false,
  ...fields,
});

describe("signer policy (docs/contract.md §11.3): the signer's own limits", () => {
  it('reads the limits per asset; a token is <COIN>_<NETWORK>', () => {
    assert.equal(assetName('LTC', 'LTC'), 'LTC');
    assert.equal(assetName('USDT', 'ETH'), 'USDT_ETH');
    assert.deepEqual(
      [...policy].map(([asset, l]) => [asset, l.maxPayout.toFixed(), l.maxDaily.toFixed(), l.approvalAbove?.toFixed() ?? null]),
      [
        ['LTC', '2', '5', '1'],
        ['USDT_ETH', '1000', '10000', null],
      ],
    );
  });

  it('a bad or half-given limit stops the start, naming the variable', () => {
    const named = (env: Record<string, string>, variable: string) =>
      assert.throws(() => parseSignerPolicy(env), (error: unknown) => error instanceof ConfigError && error.variable === variable);
    for (const bad of ['0', '-1', '1e3', 'abc', '0x10', '']) named({ SIGNER_MAX_PAYOUT_BTC: bad, SIGNER_MAX_DAILY_BTC: '1' }, 'SIGNER_MAX_PAYOUT_BTC');
    named({ SIGNER_MAX_PAYOUT_BTC: '1' }, 'SIGNER_MAX_DAILY_BTC');
    named({ SIGNER_MAX_DAILY_BTC: '1' }, 'SIGNER_MAX_PAYOUT_BTC');
    named({ SIGNER_APPROVAL_ABOVE_BTC: '1' }, 'SIGNER_MAX_PAYOUT_BTC');
    named({ SIGNER_MAX_PAYOUT_BTC: '2', SIGNER_MAX_DAILY_BTC: '1' }, 'SIGNER_MAX_DAILY_BTC');
  });

  it('signs what is within every limit; above the approval threshold it waits, approved it signs', () => {
    assert.deepEqual(judgePayout(payout(), policy, new Decimal(0)), { action: 'sign' });
    const large = payout({ amount: new Decimal('1.5') });
    assert.equal(judgePayout(large, policy, new Decimal(0)).action, 'await_approval');
    assert.deepEqual(judgePayout({ ...large, approved: true }, policy, new Decimal(0)), { action: 'sign' });
  });

  it('refuses: no limits for the asset, over a maximum (approved or not), another amount than the order, its own address', () => {
    const refused = (p: PayoutToJudge, signed = '0') => {
      const verdict = judgePayout(p, policy, new Decimal(signed));
      assert.equal(verdict.action, 'refuse', JSON.stringify(verdict));
      return verdict.action === 'refuse' ? verdict.reason : '';
    };
    assert.match(refused(payout({ asset: 'BTC' })), /no signer limits for BTC/);
    assert.match(refused(payout({ amount: new Decimal('2.00000001'), approved: true })), /above SIGNER_MAX_PAYOUT_LTC/);
    assert.match(refused(payout({ amount: new Decimal('1'), approved: true }), '4.5'), /SIGNER_MAX_DAILY_LTC/);
    assert.match(refused({ ...payout(), expectedAmount: new Decimal('0.49') }), /not what the order says/);
    assert.match(refused(payout({ toOwnAddress: true })), /own deposit addresses/);
    assert.match(refused(payout({ amount: new Decimal(0) })), /not positive/);
  });

  it('property: whatever is signed is within the per-payout and the 24-hour maximum', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300_000_000 }),
        fc.integer({ min: 0, max: 600_000_000 }),
        fc.boolean(),
        (units, signedUnits, approved) => {
          const amount = new Decimal(units).div(1e8);
          const signed = new Decimal(signedUnits).div(1e8);
          const verdict = judgePayout(payout({ amount, approved }), policy, signed);
          if (verdict.action === 'sign') {
            assert.ok(amount.lte(2));
            assert.ok(signed.plus(amount).lte(5));
            assert.ok(amount.lte(1) || approved);
          }
        },
      ),
    );
  });
});
