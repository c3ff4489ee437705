/**
 * `npm run bench:auth`: how long a failed key takes to be answered, over real HTTP against a
 * real server process, for the kinds an attacker can send (issue 12 #4). Sequential requests on
 * one keep-alive connection, the kinds interleaved (order rotated every round) so machine load
 * falls on all alike; every request from its own X-Forwarded-For address (TRUST_PROXY=true),
 * so no address runs out of budget. Prints p50/p99 per kind and the ratio of each p50 to the
 * wrong-secret one, the figure a timing attacker compares. See bench/README.md.
 *
 * Flags: --engine pglite|postgres (default pglite), --samples <n> per kind (default 2000).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createPartner } from '../test/helpers/process/http-client.js';
import { planCpus, startServer } from './server.js';

const { values: flags } = parseArgs({
  options: { engine: { type: 'string', default: 'pglite' }, samples: { type: 'string', default: '2000' } },
});
const engine = flags.engine === 'postgres' ? 'postgres' : 'pglite';
const SAMPLES = Number(flags.samples);

const randomKeyId = () => `pk_${randomBytes(10).toString('hex')}`;
const randomSecret = () => randomBytes(32).toString('base64url');

async function main(): Promise<void> {
  const server = await startServer({ engine, label: 'auth-timing', plan: planCpus(), env: { TRUST_PROXY: 'true' } });
  try {
    const { keyId } = await createPartner(server.url, server.adminToken, { name: 'bench' });
    const unknownId = randomKeyId();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let address = 0;
    const get = (key: string): Promise<number> =>
      new Promise((resolve, reject) => {
        address += 1;
        const started = performance.now();
        const request = http.get(
          `${server.url}/api/v1/partner/account`,
          {
            agent,
            headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}` },
          },
          (response) => {
            response.resume();
            response.on('end', () => {
              const elapsed = performance.now() - started;
              if (response.statusCode !== 401) reject(new Error(`expected 401, got ${response.statusCode}`));
              else resolve(elapsed);
            });
          },
        );
        request.on('error', reject);
      });
    const kinds: Record<string, () => string> = {
      'known id, wrong secret': () => `${keyId}.${randomSecret()}`,
      'unknown id (seen before)': () => `${unknownId}.${randomSecret()}`,
      'unknown id (new each time: one read)': () => `${randomKeyId()}.${randomSecret()}`,
      malformed: () => 'pk_nope.short',
    };
    const names = Object.keys(kinds);
    const times = new Map<string, number[]>(names.map((name) => [name, []]));
    for (let warm = 0; warm < 200; warm += 1) for (const name of names) await get(kinds[name]!());
    for (let round = 0; round < SAMPLES; round += 1) {
      for (let i = 0; i < names.length; i += 1) {
        const name = names[(round + i) % names.length]!;
        times.get(name)!.push(await get(kinds[name]!()));
      }
    }
    agent.destroy();
    const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
    const base = pct(times.get(names[0]!)!, 0.5);
    const lines = [`engine ${engine}, ${SAMPLES} samples per kind, sequential, one keep-alive connection`, '', '| failed key | p50 µs | p99 µs | p50 / wrong secret |', '|---|---|---|---|'];
    for (const name of names) {
      const values = times.get(name)!;
      lines.push(`| ${name} | ${(pct(values, 0.5) * 1000).toFixed(0)} | ${(pct(values, 0.99) * 1000).toFixed(0)} | ${(pct(values, 0.5) / base).toFixed(2)} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await server.stop();
  }
}

await main();
