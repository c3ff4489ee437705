import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prefersCsv } from '../../src/routes/content-negotiation.js';
import { createOrder, depositAndRun, exactJson, fixedQuote, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

/**
 * The operator's reads of the ledger (docs/contract.md §11.5): the trial balance (now and as of a moment)
 * whose totals are zero per asset, and the lines of a period as JSON or CSV by Accept.
 */

interface TrialBalance {
  accounts: { account: string; asset: string; balance: string }[];
  totals: Record<string, string>;
}

interface Line {
  created_at: string;
  transaction_id: string;
  kind: string;
  account: string;
  asset: string;
  amount: string;
  order_id: string | null;
  partner_id: string | null;
  memo: string | null;
}

describe('ledger reports: trial balance and entries', () => {
  let h: Harness;
  let beforeAll: string;
  let completedId: string;
  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '0' });
    beforeAll = h.clock.now().toISOString();
    h.clock.advance(1000);
    completedId = (await createOrder(h, { amount_from: '0.12345678' }).then((order) => depositAndRun(h, order.id, 'completed'))).id;
    const fixed = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
    await depositAndRun(h, fixed.id, 'refunded', { amount: '0.3' });
  });
  after(() => h.t.close());

  it('lists every account per asset, and totals of "0" per asset', async () => {
    const res = await h.t.admin('GET', '/admin/v1/ledger/trial-balance');
    assert.equal(res.statusCode, 200, res.body);
    const body = exactJson<TrialBalance>(res);
    assert.deepEqual(body.totals, { BTC: '0', ETH: '0' });
    const balance = (account: string, asset: string) => body.accounts.find((row) => row.account === account && row.asset === asset)?.balance;
    // 0.12345678 exchanged and paid out, 0.3 received short and refunded.
    assert.equal(balance('deposits', 'BTC'), '0.42345678');
    assert.equal(balance('refunds', 'BTC'), '0');
    assert.equal(balance('hot_wallet', 'BTC'), '-0.3');
    assert.equal(balance('revenue', 'BTC'), '-0.12345678');
    assert.equal(balance('payable', 'ETH'), '0');
    for (const row of body.accounts) assert.match(row.balance, /^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/, JSON.stringify(row));
  });

  it('as of a moment: only what was posted by then', async () => {
    const empty = await h.t.admin('GET', `/admin/v1/ledger/trial-balance?at=${encodeURIComponent(beforeAll)}`);
    assert.equal(empty.statusCode, 200, empty.body);
    assert.deepEqual(exactJson<TrialBalance>(empty), { accounts: [], totals: {} });
    const bad = await h.t.admin('GET', '/admin/v1/ledger/trial-balance?at=yesterday');
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(typeof bad.json<{ detail: unknown }>().detail, 'string');
  });

  it('entries of a period as JSON, in the order posted, each transaction balanced', async () => {
    const res = await h.t.admin('GET', `/admin/v1/ledger/entries?from=${encodeURIComponent(beforeAll)}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const { entries } = exactJson<{ from: string; to: string; entries: Line[] }>(res);
    assert.deepEqual(
      entries.filter((line) => line.order_id === completedId).map((line) => line.kind),
      // No partner_commission line: the partner has no markup, and a zero posts nothing.
      ['deposit', 'deposit', 'exchange', 'exchange', 'exchange', 'exchange', 'payout', 'payout'],
    );
    const sums = new Map<string, bigint>();
    for (const line of entries) {
      // Exact sums as integers of 10^-30 (no amount here has more decimals).
      const [whole = '0', fraction = ''] = line.amount.replace('-', '').split('.');
      const units = BigInt(whole + fraction.padEnd(30, '0')) * (line.amount.startsWith('-') ? -1n : 1n);
      const key = `${line.transaction_id} ${line.asset}`;
      sums.set(key, (sums.get(key) ?? 0n) + units);
    }
    for (const [key, sum] of sums) assert.equal(sum, 0n, key);
    const none = await h.t.admin('GET', `/admin/v1/ledger/entries?to=${encodeURIComponent(beforeAll)}`);
    assert.deepEqual(exactJson<{ entries: Line[] }>(none).entries, []);
  });

  it('the same lines as CSV when Accept prefers text/csv', async () => {
    const json = exactJson<{ entries: Line[] }>(await h.t.admin('GET', '/admin/v1/ledger/entries'));
    const res = await h.t.operator({
      method: 'GET',
      url: '/admin/v1/ledger/entries',
      headers: { authorization: `Bearer ${h.t.adminToken}`, accept: 'text/csv, application/json;q=0.5' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="ledger-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/);
    const records = res.body.split('\r\n');
    assert.equal(records.at(-1), '');
    assert.equal(records[0], 'created_at,transaction_id,kind,account,asset,amount,order_id,partner_id,memo');
    assert.deepEqual(
      records.slice(1, -1),
      json.entries.map((line) => [line.created_at, line.transaction_id, line.kind, line.account, line.asset, line.amount, line.order_id ?? '', line.partner_id ?? '', line.memo ?? ''].join(',')),
    );
  });

  it('reads Accept by q, then by order; JSON by default', () => {
    assert.equal(prefersCsv(undefined), false);
    assert.equal(prefersCsv('*/*'), false);
    assert.equal(prefersCsv('text/csv'), true);
    assert.equal(prefersCsv('application/json, text/csv'), false);
    assert.equal(prefersCsv('text/csv, application/json'), true);
    assert.equal(prefersCsv('application/json;q=0.4, text/csv;q=0.9'), true);
    assert.equal(prefersCsv('text/csv;q=0'), false);
  });
});
