// test-engines: one (scripts/run-tests.ts): no database is used.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestIds } from '../src/request-id.js';

/** RFC 9562's layout: version 8 (custom), variant 10xx. */
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are UUIDs in form (version 8), distinct within a process, in sequence after a random prefix', () => {
    const ids = new RequestIds();
    const made = Array.from({ length: 10_000 }, () => ids.id());
    for (const id of made) assert.match(id, UUID_V8);
    assert.equal(new Set(made).size, made.length);
    const prefix = made[0]!.slice(0, 24);
    assert.ok(made.every((id) => id.startsWith(prefix)));
    assert.deepEqual(made.slice(0, 3).map((id) => id.slice(24)), ['000000000000', '000000000001', '000000000002']);
    assert.equal(made[9_999]!.slice(24), (9_999).toString(16).padStart(12, '0'));
  });

  it('another process (another instance) draws another prefix', () => {
    const prefixes = new Set(Array.from({ length: 100 }, () => new RequestIds().id().slice(0, 24)));
    assert.equal(prefixes.size, 100);
  });
});
