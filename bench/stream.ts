import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPartner, http, pool } from '../test/helpers/process/http-client.js';
import { ORDER_MIX } from '../test/helpers/process/order-mix.js';
import { openSse, type SseReader } from '../test/helpers/sse-client.js';
import { percentile } from './load.js';
import { startServer, type CpuPlan } from './server.js';

/**
 * `--only stream`: the status streams of one API process on PostgreSQL (docs/contract.md §10.11, issue
 * 35): `streams` open at once (10,000 asked) over `orders` orders, while the orders move at
 * `movesPerSecond` (200 asked) through the lifecycle (PUT …/refund-address: a move that keeps the
 * status, bumps the version and is told by NOTIFY, as every move is). Measured:
 * - delay from a move to its event at the reader, p50/p99/max: from the move's time (the
 *   Order's updated_at, the server's clock as the move began) to the event's arrival (the same
 *   machine's clock), over every (event, stream);
 * - every event arrived once, in order (per stream: versions strictly increasing by one);
 * - memory per open stream: the server's RSS with the streams open less before they opened, per
 *   stream; and the server's CPU while the moves were told.
 */
export interface StreamBench {
  streams: number;
  orders: number;
  moves: number;
  movesPerSecond: number;
  /** The move requests' own time (PUT …/refund-address, answered after the commit), p50. */
  moveRequestP50Ms: number;
  /**
   * The server's own share: from the move being recorded (just before its commit) to the
   * process handing it to its streams (NOTIFY, LISTEN, dispatch), p50 and p99 from the
   * order_stream_move_delay_seconds histogram (bucket bounds: an upper estimate).
   */
  handOffP50Ms: number;
  handOffP99Ms: number;
  events: number;
  /** Events expected (each move times the streams of its order) but not seen. */
  missing: number;
  /** Versions seen twice or out of order on one stream. */
  outOfOrder: number;
  delayP50Ms: number;
  delayP99Ms: number;
  delayMaxMs: number;
  openSeconds: number;
  rssBeforeMb: number;
  rssOpenMb: number;
  bytesPerStream: number;
  serverCpuSeconds: number;
  moveSeconds: number;
}

/** p50 and p99 of a Prometheus histogram: the upper bound of the bucket each falls in, seconds. */
function histogramPercentiles(text: string, name: string): { p50: number; p99: number } {
  const buckets = [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm'))].map((m) => ({ le: Number(m[1] === '+Inf' ? Infinity : m[1]), count: Number(m[2]) }));
  const total = buckets.at(-1)?.count ?? 0;
  const at = (q: number) => buckets.find((bucket) => bucket.count >= total * q)?.le ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

/** The move's time: the Order's updated_at, read off the event's data without parsing all of it. */
function movedAt(data: string): number {
  const start = data.indexOf('"updated_at":"') + 14;
  return Date.parse(data.slice(start, data.indexOf('"', start)));
}

const REFUND_ADDRESSES = ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'];

export async function streamBench(plan: CpuPlan, options: { streams: number; orders: number; movesPerSecond: number; seconds: number }, log: (m: string) => void): Promise<StreamBench> {
  const caps = { STREAM_MAX_PER_KEY: '1000000', STREAM_MAX_PER_ADDRESS: '1000000', STREAM_MAX_PER_PROCESS: '1000000' };
  const server = await startServer({ engine: 'postgres', label: 'stream', plan, env: caps });
  const readers: SseReader[] = [];
  try {
    const partner = await createPartner(server.url, server.adminToken, { name: 'bench-stream' });
    const auth = { authorization: `Bearer ${partner.apiKey}` };
    log(`stream: creating ${options.orders} orders`);
    const ids: string[] = [];
    await pool(options.orders, 16, async () => {
      const res = await http(server.url, 'POST', '/api/v1/partner/orders', { headers: auth, json: ORDER_MIX[0] });
      if (res.status !== 201) throw new Error(`order: ${res.status} ${res.text}`);
      ids.push((JSON.parse(res.text) as { id: string }).id);
    });
    await sleep(2000);
    const before = server.memory().rss;

    log(`stream: opening ${options.streams} streams`);
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    /** Per stream: its order and each event's version and delay (arrival less the move's updated_at, wall-clock ms). */
    const arrivals: { orderId: string; seen: { version: number; delay: number }[] }[] = [];
    const opened = performance.now();
    await pool(options.streams, 200, async (index) => {
      const orderId = ids[index % ids.length] as string;
      const stream = await openSse(`${server.url}/api/v1/partner/orders/stream?ids=${orderId}`, auth, agent);
      if (stream.reader === undefined) throw new Error(`stream: ${stream.status} ${stream.body}`);
      const record = { orderId, seen: [] as { version: number; delay: number }[] };
      arrivals.push(record);
      const reader = stream.reader;
      readers.push(reader);
      // The first event (the current state) is waited for; the rest are read as they come.
      const first = await reader.next(60_000);
      record.seen.push({ version: Number(first?.id?.split(':')[1]), delay: 0 });
      void (async () => {
        for (;;) {
          const event = await reader.next(3_600_000).catch(() => undefined);
          if (event === undefined) return;
          record.seen.push({ version: Number(event.id?.split(':')[1]), delay: Date.now() - movedAt(event.data) });
        }
      })();
    });
    const openSeconds = (performance.now() - opened) / 1000;
    await sleep(3000);
    const open = server.memory().rss;
    log(`stream: ${options.streams} open in ${openSeconds.toFixed(1)} s; RSS ${(before / 1e6).toFixed(0)} → ${(open / 1e6).toFixed(0)} MB`);

    // The moves: round robin over the orders at the rate asked.
    const moved = new Set<string>();
    const requestMs: number[] = [];
    const total = Math.round(options.movesPerSecond * options.seconds);
    log(`stream: ${total} moves at ${options.movesPerSecond}/s`);
    const cpuBefore = server.cpuSeconds();
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / options.movesPerSecond;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const orderId = ids[i % ids.length] as string;
      inFlight.push(
        http(server.url, 'PUT', `/api/v1/partner/orders/${orderId}/refund-address`, { headers: auth, json: { refund_address: REFUND_ADDRESSES[i % 2] } }).then((res) => {
          if (res.status !== 200) throw new Error(`move: ${res.status} ${res.text}`);
          moved.add(`${orderId}:${(JSON.parse(res.text) as { version: number }).version}`);
          requestMs.push(res.ms);
        }),
      );
    }
    await Promise.all(inFlight);
    const moveSeconds = (performance.now() - started) / 1000;
    await sleep(3000);
    const serverCpuSeconds = server.cpuSeconds() - cpuBefore;
    const metrics = await http(server.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${server.adminToken}` } });
    const handOff = histogramPercentiles(metrics.text, 'order_stream_move_delay_seconds');

    const delays: number[] = [];
    let events = 0;
    let missing = 0;
    let outOfOrder = 0;
    const movesPerOrder = new Map<string, number>();
    for (const key of moved) {
      const orderId = key.split(':')[0] as string;
      movesPerOrder.set(orderId, (movesPerOrder.get(orderId) ?? 0) + 1);
    }
    for (const record of arrivals) {
      const [first, ...rest] = record.seen;
      rest.forEach((event, i) => {
        if (event.version !== (first?.version ?? 0) + i + 1) outOfOrder++;
        delays.push(event.delay);
      });
      events += rest.length;
      missing += Math.max(0, (movesPerOrder.get(record.orderId) ?? 0) - rest.length);
    }
    return {
      streams: options.streams,
      orders: ids.length,
      moves: moved.size,
      movesPerSecond: moved.size / moveSeconds,
      moveRequestP50Ms: percentile(requestMs, 50),
      handOffP50Ms: handOff.p50 * 1000,
      handOffP99Ms: handOff.p99 * 1000,
      events,
      missing,
      outOfOrder,
      delayP50Ms: percentile(delays, 50),
      delayP99Ms: percentile(delays, 99),
      delayMaxMs: Math.max(...delays),
      openSeconds,
      rssBeforeMb: before / 1e6,
      rssOpenMb: open / 1e6,
      bytesPerStream: (open - before) / options.streams,
      serverCpuSeconds,
      moveSeconds,
    };
  } finally {
    for (const reader of readers) reader.close();
    await server.stop();
  }
}

export function streamSection(b: StreamBench): string {
  const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
  return [
    '',
    '## Status streams (one API process, PostgreSQL, LISTEN/NOTIFY)',
    '',
    '| open streams | orders | moves (per s; request p50) | events read | missing | out of order | delay p50 | delay p99 | delay max | hand-off p50 / p99 | opened in | RSS before → open | per stream | server CPU over the moves |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    `| ${b.streams} | ${b.orders} | ${b.moves} (${f(b.movesPerSecond)}; ${f(b.moveRequestP50Ms)} ms) | ${b.events} | ${b.missing} | ${b.outOfOrder} | ${f(b.delayP50Ms, 1)} ms | ${f(b.delayP99Ms, 1)} ms | ${f(b.delayMaxMs)} ms | ≤ ${f(b.handOffP50Ms, 1)} / ≤ ${f(b.handOffP99Ms, 1)} ms | ${f(b.openSeconds, 1)} s | ${f(b.rssBeforeMb)} → ${f(b.rssOpenMb)} MB | ${f(b.bytesPerStream / 1024, 1)} KiB | ${f(b.serverCpuSeconds, 1)} s over ${f(b.moveSeconds, 1)} s |`,
    '',
    'Delay: from the move (its updated_at: PUT …/refund-address, a lifecycle move, as its transaction began) to the event\'s ' +
      'arrival on each stream of that order (one machine, one clock), so it includes the move\'s own transaction and any wait ' +
      'for a database connection. Hand-off: the server\'s part alone, from the move recorded (before its commit) to the process ' +
      'handing it to its streams, from the order_stream_move_delay_seconds histogram. Per stream: the server\'s RSS with every stream open, less ' +
      'before they opened, over the streams (the socket, the response, the stream\'s state). Every event must arrive once ' +
      'and in order: missing and out of order are 0 when it did.',
    '',
  ].join('\n');
}
