import { createRequire } from 'node:module';
import path from 'node:path';
import { childEnv, spawnManaged, waitUntilReady } from './process/managed-process.js';
import { freePort } from './process/waits.js';
import { isExecutableFile, onPath, skipUnless } from './requirements.js';

/**
 * The anvil binary: the per-platform package `@foundry-rs/anvil-linux-amd64`, an optional
 * dependency (the registry this project installs from carries only the Linux x64 build, and
 * the `@foundry-rs/anvil` wrapper lists every platform, which made `npm ci` refuse the
 * lockfile), else an `anvil` on PATH (Foundry's own install). The package's `bin/anvil` is run
 * directly, so no postinstall script is needed. Undefined when neither is there.
 */
export function findAnvil(): string | undefined {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  try {
    const manifest = createRequire(import.meta.url).resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const binary = path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
    if (isExecutableFile(binary)) return binary;
  } catch {
    // not installed for this platform
  }
  return onPath('anvil') ? 'anvil' : undefined;
}

const ANVIL_HINT =
  '`npm ci` installs it on Linux x64 (optional dependency @foundry-rs/anvil-linux-amd64); elsewhere put Foundry\'s `anvil` on PATH';

/** node:test skip option of the suites that need anvil (see requirements.ts). */
export function anvilSkip(): string | false {
  return skipUnless(findAnvil() !== undefined, 'anvil (no package binary, not on PATH)', ANVIL_HINT);
}

/** A local EVM node (anvil, automining one block per transaction) on a free loopback port. */
export interface Anvil {
  rpcUrl: string;
  /** A funded, unlocked account: eth_sendTransaction from it needs no signature. */
  account: string;
  rpc<T>(method: string, params?: unknown[]): Promise<T>;
  /** Sends a transaction from `account` and returns its receipt (anvil mines it at once). */
  send(tx: { to?: string; value?: bigint; data?: string }): Promise<{ transactionHash: string; contractAddress: string | null; blockNumber: string; status: string }>;
  mine(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startAnvil(): Promise<Anvil> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const binary = findAnvil();
  if (binary === undefined) throw new Error(`anvil is not installed: ${ANVIL_HINT}`);
  const node = spawnManaged('anvil', binary, ['--host', '127.0.0.1', '--port', String(port), '--silent'], { env: childEnv({}) });
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as { result: T; error?: { message: string } };
    if (body.error !== undefined) throw new Error(`anvil ${method}: ${body.error.message}`);
    return body.result;
  };
  await waitUntilReady(node, async () => (await rpc<string>('eth_chainId')).startsWith('0x'), { hint: ANVIL_HINT });
  const [account] = await rpc<string[]>('eth_accounts');
  if (account === undefined) throw new Error('anvil has no accounts');
  return {
    rpcUrl: base,
    account,
    rpc,
    async send(tx) {
      const hash = await rpc<string>('eth_sendTransaction', [
        { from: account, ...tx, ...(tx.value === undefined ? {} : { value: `0x${tx.value.toString(16)}` }) },
      ]);
      // Auto-mining is immediate in anvil's view, but the receipt can trail the hash briefly.
      for (let attempt = 0; attempt < 100; attempt++) {
        const receipt = await rpc<{ transactionHash: string; contractAddress: string | null; blockNumber: string; status: string } | null>(
          'eth_getTransactionReceipt',
          [hash],
        );
        if (receipt !== null) return receipt;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`anvil did not mine ${hash} within 5 s`);
    },
    mine: async (count) => {
      await rpc('anvil_mine', [`0x${count.toString(16)}`]);
    },
    close: () => node.stop(10_000),
  };
}
