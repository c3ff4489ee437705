import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bech32 } from '@scure/base';
import { parse } from 'lossless-json';
import { Decimal } from '../../src/domain/money.js';
import { childEnv, spawnManaged, waitUntilReady, type ManagedProcess } from './process/managed-process.js';
import { freePort } from './process/waits.js';
import { LITECOIND_HINT } from './requirements.js';

/** A litecoind in regtest, in a temporary directory, on free loopback ports. */
export interface Litecoind {
  /** For CHAIN_LTC_RPC_URL (credentials included). */
  rpcUrl: string;
  /** A JSON-RPC call; wallet calls go to the test wallet. Numbers come back as their literal text. */
  rpc<T>(method: string, params?: unknown[]): Promise<T>;
  /**
   * Mines `count` blocks to a new address of the test wallet; returns their hashes. A new
   * address each time, so a block mined after invalidateblock never equals the invalidated one.
   */
  mine(count: number): Promise<string[]>;
  /**
   * A new address of the test wallet, as regtest spells it (what its RPC takes) and as the API
   * takes it (the mainnet spelling of the same witness program: node-network-address.ts).
   */
  recipient(): Promise<{ regtest: string; mainnet: string }>;
  /** What the test wallet holds at `regtest` in outputs with at least one confirmation, exactly, with their txids. */
  received(regtest: string): Promise<{ amount: Decimal; txids: string[] }>;
  /** Stops the process (the data directory stays). */
  stop(): Promise<void>;
  /**
   * Starts it again on the same data directory and ports. `dropMempool`: as a node that crashed
   * (or another node) comes back, unmined transactions gone: without the mempool it saved at
   * shutdown, and with -walletbroadcast=0 so its wallets do not put theirs back at load.
   */
  restart(options?: { dropMempool?: boolean }): Promise<void>;
  /** Stops it and removes the data directory. */
  close(): Promise<void>;
}

export async function startLitecoind(): Promise<Litecoind> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-litecoind-'));
  const rpcPort = await freePort();
  const p2pPort = await freePort();
  const user = 'epa';
  const password = 'regtest-only';
  const base = `http://127.0.0.1:${rpcPort}`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  const call = async <T>(url: string, method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = parse(await response.text(), null, (literal: string) => literal) as { result: T; error: { message: string } | null };
    if (body.error !== null) throw new Error(`litecoind ${method}: ${body.error.message}`);
    return body.result;
  };
  const wallet = `${base}/wallet/test`;
  const walletMethods = new Set(['getnewaddress', 'sendtoaddress', 'getbalance', 'gettransaction', 'listunspent']);

  let node: ManagedProcess;
  const launch = async (extra: readonly string[] = []): Promise<void> => {
    node = spawnManaged(
      'litecoind',
      'litecoind',
      [
        '-regtest',
        '-server',
        '-rpcbind=127.0.0.1',
        '-rpcallowip=127.0.0.1',
        `-rpcport=${rpcPort}`,
        `-port=${p2pPort}`,
        '-listen=0',
        '-fallbackfee=0.0001',
        `-datadir=${dataDir}`,
        `-rpcuser=${user}`,
        `-rpcpassword=${password}`,
        '-printtoconsole=0',
        ...extra,
      ],
      { env: childEnv({}) },
    );
    await waitUntilReady(
      node,
      async () => {
        await call(base, 'getblockchaininfo');
        return true;
      },
      { hint: `To get it: ${LITECOIND_HINT}.` },
    );
  };

  await launch();
  await call(base, 'createwallet', ['test']);
  // Coinbase outputs spend after 100 blocks: 101 leaves one spendable.
  await call(base, 'generatetoaddress', [101, await call<string>(wallet, 'getnewaddress')]);

  return {
    rpcUrl: `http://${user}:${password}@127.0.0.1:${rpcPort}`,
    rpc: (method, params) => call(walletMethods.has(method) ? wallet : base, method, params),
    mine: async (count) => call<string[]>(base, 'generatetoaddress', [count, await call<string>(wallet, 'getnewaddress')]),
    async recipient() {
      const regtest = await call<string>(wallet, 'getnewaddress', ['', 'bech32']);
      return { regtest, mainnet: bech32.encode('ltc', bech32.decode(regtest as `${string}1${string}`).words) };
    },
    async received(regtest) {
      const utxos = await call<{ amount: string; txid: string }[]>(wallet, 'listunspent', [1, 9_999_999, [regtest]]);
      return { amount: utxos.reduce((sum, utxo) => sum.plus(utxo.amount), new Decimal(0)), txids: utxos.map((utxo) => utxo.txid) };
    },
    stop: () => node.stop(10_000),
    async restart(options = {}) {
      if (options.dropMempool === true) rmSync(path.join(dataDir, 'regtest', 'mempool.dat'), { force: true });
      await launch(options.dropMempool === true ? ['-walletbroadcast=0'] : []);
      await call(base, 'loadwallet', ['test']).catch(() => undefined);
    },
    async close() {
      await node.stop(10_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
