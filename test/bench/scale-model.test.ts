import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capacity, fleetRow, parseCounts, pgCpuUsPerOrder, saturatingMachines, shardsFor, type Fleet, type MeasuredCosts } from '../../bench/scale-model.js';

/** `npm run bench -- --only scale`'s own logic: its process counts and the model's arithmetic. */
describe('scale-out bench: counts and model', () => {
  it('parses --scale-api / --scale-workers: in order, 1..max, no repeats; the default when absent', () => {
    assert.deepEqual(parseCounts('scale-api', undefined, [1, 2, 4], 16), [1, 2, 4]);
    assert.deepEqual(parseCounts('scale-api', '4,1', [1], 16), [4, 1]);
    assert.deepEqual(parseCounts('scale-workers', ' 2 ', [1], 16), [2]);
    for (const bad of ['0', '17', '1.5', 'two', '', '1,,2', '-1']) {
      assert.throws(() => parseCounts('scale-api', bad, [1], 16), /--scale-api: each count must be a whole number from 1 to 16/, bad);
    }
    assert.throws(() => parseCounts('scale-workers', '1,2,1', [1], 16), /--scale-workers: 1 is given twice/);
  });

  // Round figures so each expectation can be checked by hand.
  const fleet: Fleet = { apiCores: 2, pgCores: 8, utilisation: 0.5 };
  const costs: MeasuredCosts = { apiCpuUsPerRequest: 1000, pgCpuUsPerRequest: 200, orderShare: 0.2 };

  it('capacity: cores × utilisation × 1e6 / µs per request; refuses a cost of 0', () => {
    assert.equal(capacity(2, 0.5, 1000), 1000);
    assert.equal(capacity(8, 0.5, 400), 10_000);
    assert.throws(() => capacity(2, 0.5, 0), /above 0/);
    assert.throws(() => capacity(2, 0.5, Number.NaN), /above 0/);
  });

  it('N API machines scale linearly until the primary bounds them', () => {
    // One machine: 2 × 0.5 × 1e6 / 1000 = 1,000 req/s of API; the primary 8 × 0.5 × 1e6 / 200 = 20,000.
    const one = fleetRow(1, fleet, costs);
    assert.equal(one.apiCapacity, 1000);
    assert.equal(one.primaryCapacity, 20_000);
    assert.equal(one.served, 1000);
    assert.equal(one.ordersPerSecond, 200);
    assert.equal(one.bound, 'api');
    const many = fleetRow(32, fleet, costs);
    assert.equal(many.apiCapacity, 32_000);
    assert.equal(many.served, 20_000);
    assert.equal(many.ordersPerSecond, 4000);
    assert.equal(many.bound, 'primary');
    assert.equal(fleetRow(20, fleet, costs).bound, 'api', 'exactly at the limit the API side still bounds');
    assert.equal(saturatingMachines(fleet, costs), 20);
    assert.throws(() => fleetRow(1, { ...fleet, utilisation: 0 }, costs), /utilisation/);
    assert.throws(() => fleetRow(1, fleet, { ...costs, orderShare: 1.5 }), /order share/);
  });

  it('shards by partner: orders/s over what one primary carries, unless one partner alone is more than a shard', () => {
    // PostgreSQL's CPU per order: 200 µs / 0.2 = 1,000 µs; one shard carries 8 × 0.5 × 1e6 / 1000 = 4,000 orders/s.
    assert.equal(pgCpuUsPerOrder(costs), 1000);
    assert.equal(shardsFor(1000, fleet, costs, 0.5), 1);
    assert.equal(shardsFor(4000, fleet, costs, 0.1), 1);
    assert.equal(shardsFor(4001, fleet, costs, 0.1), 2);
    assert.equal(shardsFor(10_000, fleet, costs, 0.1), 3);
    assert.equal(shardsFor(10_000, fleet, costs, 0.5), undefined, 'a partner of 5,000 orders/s does not fit one shard');
    assert.throws(() => shardsFor(10, fleet, costs, 0), /largest partner/);
  });
});
