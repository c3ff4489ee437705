/**
 * The app listening on a real port in this process (port 0), for the SDK's tests: the SDK talks
 * to it over HTTP with `fetch`, as a partner's code would. Time is the app's ManualClock; the
 * SDK's waits move it and run the lifecycle worker once, so nothing sleeps.
 */
import type { AddressInfo } from 'node:net';
import { PartnerClient, type PartnerClientOptions } from '../src/index.js';
import { buildTestApp, ManualClock, type TestApp } from '../../../test/helpers/test-app.js';

export interface SdkServer {
  t: TestApp;
  clock: ManualClock;
  /** `http://127.0.0.1:<port>/api/v1` */
  baseUrl: string;
  /** A partner with a live key and a sandbox key. */
  partner: { id: string; liveKey: string; sandboxKey: string };
  /** Every wait the SDK asked for, in ms. */
  waits: number[];
  /** Moves the clock, and reads prices again so they stay fresh at the new time. */
  advance(ms: number): Promise<void>;
  client(options?: Partial<PartnerClientOptions>): PartnerClient;
}

export async function startSdkServer(): Promise<SdkServer> {
  const clock = new ManualClock();
  // The worker runs when the SDK waits (below), not on a timer; prices do not move.
  const t = await buildTestApp({ clock, env: { WORKER: 'off', SIMULATOR_AUTO: '0', PRICE_POLL_SECONDS: '3600' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const { id, apiKey } = await t.createPartner({ rate_limit_per_minute: 100_000 });
  const sandbox = await t.admin('POST', `/admin/v1/partners/${id}/keys`, { sandbox: true });
  if (sandbox.statusCode !== 201) throw new Error(`sandbox key: ${sandbox.body}`);
  const waits: number[] = [];
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const advance = async (ms: number): Promise<void> => {
    clock.advance(ms);
    await t.runtime.prices.refresh();
  };
  return {
    t,
    clock,
    baseUrl,
    partner: { id, liveKey: apiKey, sandboxKey: sandbox.json<{ api_key: string }>().api_key },
    waits,
    advance,
    client: (options = {}) =>
      new PartnerClient({
        baseUrl,
        apiKey,
        now: () => clock.now().getTime(),
        sleep: async (ms) => {
          waits.push(ms);
          await advance(ms);
          await t.runtime.worker.tick();
        },
        ...options,
      }),
  };
}

export interface ChildProcessServer {
  t: TestApp;
  /** `http://127.0.0.1:<port>/api/v1` */
  baseUrl: string;
  /** A sandbox key (`pk_test_…`) of a new partner. */
  sandboxKey: string;
  /** Runs the lifecycle worker every 100 ms until `work` settles, and gives its outcome. */
  workWhile<T>(work: Promise<T>): Promise<T>;
}

/**
 * The app for a partner's code running in a child process (the pack test's README example): on
 * the system clock, since the child signs with real timestamps. The worker runs only while the
 * child does (workWhile), not on a timer through the whole test: the build and npm steps before
 * it do not share the CPU with ten worker passes a second.
 */
export async function startServerForChildProcess(): Promise<ChildProcessServer> {
  const t = await buildTestApp({ env: { WORKER: 'off', LOG_LEVEL: 'warn' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const { id } = await t.createPartner({ name: 'Pack test' });
  const sandbox = await t.admin('POST', `/admin/v1/partners/${id}/keys`, { sandbox: true });
  if (sandbox.statusCode !== 201) throw new Error(`sandbox key: ${sandbox.body}`);
  return {
    t,
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    sandboxKey: sandbox.json<{ api_key: string }>().api_key,
    async workWhile(work) {
      let settled = false;
      const passes = (async () => {
        while (!settled) {
          await t.runtime.worker.tick();
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      try {
        return await work;
      } finally {
        settled = true;
        await passes;
      }
    },
  };
}
