import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, buildTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 33: the request log's batch is one insert of nine array parameters (unnest) instead of a
 * VALUES list of nine parameters per row. What is stored must be what the row said, on both
 * engines, whatever the text holds (an array literal's quotes, backslashes, braces, commas, the
 * word NULL, non-ASCII), with nulls kept null, in the order recorded, across batches.
 */
describe('request log: a batch as column arrays', () => {
  const clock = new ManualClock();
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
  });
  after(() => t.close());

  it('stores every field as recorded, in order, over more than one batch', async () => {
    const { id: partnerId } = await t.createPartner();
    const awkward = ['/a"b', '/back\\slash', '/{brace},comma', 'NULL', '/caf\u00e9/\u{1F600}', '/ space ', ''];
    const recorded = Array.from({ length: 1203 }, (_, i) => ({
      partner_id: partnerId,
      key_id: `pk_key_${i % 3}`,
      sandbox: i % 2 === 0,
      method: i % 5 === 0 ? 'POST' : 'GET',
      path: `${awkward[i % awkward.length]!}${i}`,
      status: [200, 201, 404, 429, 500][i % 5]!,
      duration_ms: i % 17,
      error_code: i % 5 >= 2 ? ['not_found', 'rate_limited', 'internal'][(i % 5) - 2]! : i % 7 === 0 ? 'NULL' : null,
    }));
    const start = clock.now().getTime();
    for (const [i, row] of recorded.entries()) {
      clock.set(new Date(start + i));
      t.runtime.requestLog.record(row);
    }
    await t.runtime.requestLog.flush();
    const rows = await t.db.handle.db.selectFrom('api_request_log').selectAll().where('partner_id', '=', partnerId).orderBy('id').execute();
    assert.equal(rows.length, recorded.length);
    rows.forEach((row, i) => {
      const { id: _id, at, ...fields } = row;
      assert.deepEqual(fields, recorded[i], `row ${i}`);
      assert.equal(new Date(at).getTime(), start + i, `row ${i} at`);
    });
  });
});
