import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPartner } from '../test/helpers/process/http-client.js';
import { runLoad, type LoadResult } from './load.js';
import { startServer, type CpuPlan, type RunningServer } from './server.js';

/**
 * `--only tracing`: what tracing costs. The same GET /partner/orders/{id} load (PostgreSQL) on two
 * servers side by side: tracing off (the default) and on (OTEL_EXPORTER_OTLP_ENDPOINT, spans
 * batched to a local OTLP/HTTP sink that answers 200 and keeps only counts). Rounds alternate
 * the two (ABBA), so a noisy neighbour weighs on both. Off is the code path every deployment
 * without a collector runs; nothing of tracing is installed there.
 */
export interface TracingSide {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU per answered request, µs. */
  cpuUsPerRequest: number;
}

export interface TracingBench {
  off: TracingSide;
  on: TracingSide;
  /** Export requests and bytes the sink received from the traced server. */
  exported: { requests: number; bytes: number };
}

async function startSink(): Promise<{ server: Server; url: string; received: { requests: number; bytes: number } }> {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    request.on('end', () => {
      received.requests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function ordersOf(server: RunningServer, count: number): Promise<{ apiKey: string; ids: string[] }> {
  const partner = await createPartner(server.url, server.adminToken, { name: 'bench-tracing', rate_limit_per_minute: 1_000_000, max_open_orders: 1_000_000 });
  const headers = { 'x-api-key': partner.apiKey, 'content-type': 'application/json' };
  const body = JSON.stringify({ coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float', recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.url}/api/v1/partner/orders`, { method: 'POST', headers, body });
    if (response.status !== 201) throw new Error(`bench order: ${response.status} ${await response.text()}`);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return { apiKey: partner.apiKey, ids };
}

export async function tracingBench(plan: CpuPlan, seconds: number, rounds: number, connections: number, log: (m: string) => void): Promise<TracingBench> {
  const sink = await startSink();
  const off = await startServer({ engine: 'postgres', label: 'tracing-off', plan });
  const on = await startServer({ engine: 'postgres', label: 'tracing-on', plan, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } });
  try {
    const sides = [
      { server: off, runs: [] as LoadResult[], cpu: 0, orders: await ordersOf(off, 100) },
      { server: on, runs: [] as LoadResult[], cpu: 0, orders: await ordersOf(on, 100) },
    ];
    const load = (side: (typeof sides)[number], duration: number) =>
      runLoad({
        url: side.server.url,
        connections,
        duration,
        headers: { 'x-api-key': side.orders.apiKey },
        requests: side.orders.ids.map((id) => ({ method: 'GET', path: `/api/v1/partner/orders/${id}` })),
        expectStatus: 200,
      });
    log('tracing: warming both servers');
    for (const side of sides) await load(side, 2);
    const each = Math.max(1, seconds / rounds);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        log(`tracing: ${side.server === on ? 'on' : 'off'}, ${each} s`);
        const cpuBefore = side.server.cpuSeconds();
        side.runs.push(await load(side, each));
        side.cpu += side.server.cpuSeconds() - cpuBefore;
      }
    }
    const summary = (side: (typeof sides)[number]): TracingSide => {
      const ok = side.runs.reduce((sum, run) => sum + run.ok, 0);
      const time = side.runs.reduce((sum, run) => sum + run.seconds, 0);
      const latencies = side.runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
      return {
        rps: ok / time,
        p50: latencies[Math.floor(latencies.length * 0.5)] ?? Number.NaN,
        p99: latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN,
        cpuUsPerRequest: (side.cpu * 1e6) / ok,
      };
    };
    return { off: summary(sides[0] as (typeof sides)[number]), on: summary(sides[1] as (typeof sides)[number]), exported: { ...sink.received } };
  } finally {
    await off.stop();
    await on.stop();
    sink.server.close();
  }
}

export function tracingSection(b: TracingBench): string {
  const row = (name: string, s: TracingSide) => `| ${name} | ${s.rps.toFixed(0)} | ${s.p50.toFixed(2)} ms | ${s.p99.toFixed(2)} ms | ${s.cpuUsPerRequest.toFixed(0)} µs |`;
  return [
    '',
    '## Tracing (GET /partner/orders/{id}, PostgreSQL, off vs on side by side)',
    '',
    '| tracing | requests/s | p50 | p99 | server CPU / request |',
    '|---|---|---|---|---|',
    row('off (default)', b.off),
    row('on (OTLP/HTTP to a local sink)', b.on),
    '',
    `On/off throughput ratio: ${(b.on.rps / b.off.rps).toFixed(2)}; the sink received ${b.exported.requests} export requests (${(b.exported.bytes / 1024).toFixed(0)} KiB).`,
    'Off installs nothing of tracing (no provider, no Fastify plugin, no database wrapper), so its cost is the code path without it.',
    '',
  ].join('\n');
}
