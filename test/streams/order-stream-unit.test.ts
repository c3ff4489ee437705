import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OrderSnapshotRow } from '../../src/db/schema/order-snapshots.js';
import type { OrderStatus } from '../../src/domain/order-status.js';
import type { OrderMove } from '../../src/services/order-move-feed.js';
import { OrderStream, type StreamHost } from '../../src/services/order-stream.js';

/**
 * One stream's rules (services/order-stream.ts) with a host that records (no database, no
 * socket): a version is written only as the next one, a gap is filled from the snapshots first,
 * a repeat is dropped, pings wait for the first events, and a reader that lets more than the
 * bound wait is cut.
 */

const ID = '0b6c3f0e-8a5e-4c59-9a55-6f7d1e2a9c41';

function fakeHost(snapshots: OrderSnapshotRow[] = [], maxBufferBytes = 1_000_000) {
  const log = { cut: 0, closed: 0, written: 0, reads: [] as { orderId: string; after: number }[][] };
  const host: StreamHost = {
    maxBufferBytes,
    snapshotsAfter: (wants) => {
      log.reads.push([...wants]);
      return Promise.resolve(snapshots.filter((row) => wants.some((want) => want.orderId === row.order_id && row.version > want.after)));
    },
    eventOf: (_view, source) => ({ orderId: source.orderId, version: source.version, status: source.status, json: `{"version":${source.version}}` }),
    written: (count) => void (log.written += count),
    cut: () => void (log.cut += 1),
    closed: () => void (log.closed += 1),
    failed: (error) => assert.fail(String(error)),
  };
  return { host, log };
}

const move = (version: number, status: OrderStatus = 'confirming'): OrderMove => ({ orderId: ID, version, status, orderJson: `{"version":${version}}`, recordedAtMs: Date.now() });
const snapshot = (version: number, status: OrderStatus = 'confirming'): OrderSnapshotRow => ({ order_id: ID, version, status, order_json: `{"version":${version}}`, created_at: new Date() });

function versionsWritten(stream: OrderStream): number[] {
  const text = String(stream.body.read() ?? '');
  return [...text.matchAll(/^id: [^:]+:(\d+)$/gm)].map((match) => Number(match[1]));
}

describe('one status stream', () => {
  it('writes the current state, then each next version; drops repeats; fills a gap from the snapshots before going on', async () => {
    const { host, log } = fakeHost([snapshot(2), snapshot(3)]);
    const stream = new OrderStream('partner', host, () => 0);
    await stream.start([{ orderId: ID, version: 1, status: 'waiting_deposit', json: '{}' }], new Map());
    stream.deliver(move(1));
    stream.deliver(move(4));
    // The gap (2, 3) is being read; a move told meanwhile waits its turn.
    stream.deliver(move(5));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(versionsWritten(stream), [1, 2, 3, 4, 5]);
    assert.deepEqual(log.reads, [[{ orderId: ID, after: 1 }]]);
    assert.equal(log.written, 5);
  });

  it('ends once the order is final, and pings only a started stream', async () => {
    const { host } = fakeHost();
    const stream = new OrderStream('partner', host, () => 0);
    stream.ping();
    assert.equal(stream.isEnded, false, 'a ping before the first events does not end it');
    await stream.start([{ orderId: ID, version: 3, status: 'sending', json: '{}' }], new Map());
    stream.ping();
    stream.deliver(move(4, 'completed'));
    assert.equal(stream.isEnded, true);
    assert.match(String(stream.body.read()), /: ping\n\n[\s\S]*id: [^:]+:4\n/);
  });

  it('cuts a reader that leaves more than STREAM_BUFFER_BYTES unread', async () => {
    let socketBytes = 0;
    const { host, log } = fakeHost([], 4096);
    const stream = new OrderStream('partner', host, () => socketBytes);
    await stream.start([{ orderId: ID, version: 0, status: 'waiting_deposit', json: '{}' }], new Map());
    assert.equal(log.cut, 0);
    socketBytes = 10_000;
    stream.deliver(move(1));
    assert.equal(log.cut, 1);
    assert.equal(stream.isEnded, true);
    assert.equal(stream.body.destroyed, true);
  });
});

describe('one status stream resumed while its order moves', () => {
  it('sends nothing twice when the order moved between the read of its state and of its snapshots', async () => {
    // The reader saw 1; the state was read at 2; by the snapshot read the order was at 3, and the
    // move to 3 is told by the feed while the stream starts.
    const { host } = fakeHost([snapshot(2), snapshot(3)]);
    const stream = new OrderStream('partner', host, () => 0);
    const starting = stream.start([{ orderId: ID, version: 2, status: 'confirming', json: '{}' }], new Map([[ID, 1]]));
    stream.deliver(move(3));
    await starting;
    stream.deliver(move(4));
    assert.deepEqual(versionsWritten(stream), [2, 3, 4]);
  });

  it('sends the current state when the versions after the reader’s are no longer stored', async () => {
    const { host } = fakeHost([]);
    const stream = new OrderStream('partner', host, () => 0);
    await stream.start([{ orderId: ID, version: 5, status: 'confirming', json: '{}' }], new Map([[ID, 1]]));
    stream.deliver(move(6));
    assert.deepEqual(versionsWritten(stream), [5, 6]);
  });
});

describe('one status stream told of a gap while it starts', () => {
  it('reads the missed versions once its first events are out', async () => {
    const { host, log } = fakeHost([snapshot(2)]);
    const stream = new OrderStream('partner', host, () => 0);
    const starting = stream.start([{ orderId: ID, version: 1, status: 'waiting_deposit', json: '{}' }], new Map([[ID, 0]]));
    // Told while the start reads its snapshots: the stream reads again after.
    stream.fillGaps();
    await starting;
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(versionsWritten(stream), [1, 2]);
    assert.equal(log.reads.length, 2);
  });
});
