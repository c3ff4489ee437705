import type { LosslessNumber } from 'lossless-json';
import type { NodeTip } from '../fee-guard.js';
import { JsonRpcClient, JsonRpcError } from '../../chains/nodes/json-rpc-client.js';
import { Decimal, toBaseUnits } from '../../domain/money.js';
import type { TransactionState } from '../chain-payer.js';

/** An unspent output of the hot wallet, as the node's watch-only wallet lists it. */
export interface WalletUtxo {
  txid: string;
  vout: number;
  /** In the chain's smallest unit (satoshis). */
  amount: bigint;
  scriptPubKey: string;
}


/** Change addresses watched beyond the next one to be used. */
const CHANGE_MARGIN = 100;

/** RPC error codes Bitcoin Core and its forks answer (src/rpc/protocol.h). */
const RPC_VERIFY_ALREADY_IN_CHAIN = -27;
const RPC_WALLET_NOT_FOUND = -18;
const RPC_WALLET_ALREADY_LOADED = -35;
const RPC_WALLET_ERROR = -4;
const RPC_INVALID_ADDRESS_OR_KEY = -5;

/**
 * The hot wallet as a Bitcoin-family node sees it: a watch-only wallet in the operator's node
 * holding the account's two descriptor ranges (receive `/0/*`, change `/1/*`), no private key.
 * The node finds the wallet's coins and follows its transactions; the signer alone signs.
 *
 * A descriptor wallet where the node has one (Bitcoin Core 0.21+ built with SQLite; the only kind
 * from v29), else a legacy watch-only wallet fed the same descriptors through `importmulti`
 * (Debian's litecoind 0.21 is built without SQLite). Named after the account key's fingerprint,
 * so two key files never share a node wallet.
 */
export class NodeWallet {
  private readonly node: JsonRpcClient;
  private readonly wallet: JsonRpcClient;
  private importedChangeTo = -1;

  constructor(
    rpcUrl: string,
    private readonly name: string,
    /** `wpkh(<account xpub as the node's network spells it>` without the branch: `/0/*)` is appended. */
    private readonly descriptorHead: string,
    private readonly descriptorTail: string,
    /** Unix seconds the keys were made (SIGNER_WALLET_BIRTHDAY): the rescan starts there. */
    private readonly birthday: number,
    /** Address `index` of `branch` as the node's network spells it. */
    private readonly addressAt: (branch: 0 | 1, index: number) => string,
  ) {
    this.node = new JsonRpcClient(rpcUrl, { timeoutMs: 60_000 });
    const url = new URL(rpcUrl);
    url.pathname = `/wallet/${encodeURIComponent(name)}`;
    this.wallet = new JsonRpcClient(url.toString(), { timeoutMs: 120_000 });
  }

  /**
   * Loads or creates the watch-only wallet and makes sure it watches the receive range and the
   * change range up to `changeIndexes` ahead. A range is imported (with a rescan from the
   * birthday) only when the node does not watch its last address yet: a restart on a wallet
   * that has it costs two lookups, never a rescan (on mainnet a rescan takes hours).
   */
  async open(receiveRange: number, changeIndexes: number): Promise<void> {
    try {
      await this.node.call('loadwallet', [this.name]);
    } catch (error) {
      if (!(error instanceof JsonRpcError)) throw error;
      // Litecoin Core 0.21 says so with -4 and words; Bitcoin Core with -35.
      if (error.code === RPC_WALLET_ALREADY_LOADED || /already loaded/i.test(error.message)) {
        // loaded already: nothing to do
      } else if (error.code === RPC_WALLET_NOT_FOUND || /not found|does not exist/i.test(error.message)) {
        await this.create();
      } else {
        throw error;
      }
    }
    if (!(await this.watches(0, receiveRange))) await this.importRange(0, receiveRange, this.birthday);
    const changeTo = changeIndexes + CHANGE_MARGIN;
    if (!(await this.watches(1, changeTo))) await this.importRange(1, changeTo, this.birthday);
    this.importedChangeTo = changeTo;
  }

  /**
   * Watches change addresses up to `index` (and a margin). New change addresses have never been
   * paid, so extending the range needs no rescan.
   */
  async ensureChange(index: number): Promise<void> {
    if (index <= this.importedChangeTo) return;
    const to = index + CHANGE_MARGIN;
    await this.importRange(1, to, 'now');
    this.importedChangeTo = to;
  }

  /** Whether the node's wallet already watches address `index` of `branch`. */
  private async watches(branch: 0 | 1, index: number): Promise<boolean> {
    const info = await this.wallet.call<{ ismine?: boolean; iswatchonly?: boolean }>('getaddressinfo', [this.addressAt(branch, index)]);
    return info.ismine === true || info.iswatchonly === true;
  }

  private async create(): Promise<void> {
    try {
      // name, disable_private_keys, blank, passphrase, avoid_reuse, descriptors
      await this.node.call('createwallet', [this.name, true, true, '', false, true]);
    } catch (error) {
      if (!(error instanceof JsonRpcError) || error.code !== RPC_WALLET_ERROR || !/sqlite|descriptor/i.test(error.message)) throw error;
      await this.node.call('createwallet', [this.name, true, true, '', false, false]);
    }
  }

  private async importRange(branch: 0 | 1, to: number, timestamp: number | 'now'): Promise<void> {
    const info = await this.node.call<{ descriptor: string }>('getdescriptorinfo', [`${this.descriptorHead}/${branch}/*${this.descriptorTail}`]);
    const entry = { desc: info.descriptor, range: [0, to], timestamp, internal: branch === 1 };
    // A wallet made by an older signer, or by hand, may be of either kind: asked, not assumed.
    const { descriptors } = await this.wallet.call<{ descriptors?: boolean }>('getwalletinfo');
    const results = descriptors === true
      ? await this.wallet.call<{ success: boolean; error?: { message: string } }[]>('importdescriptors', [[{ ...entry, active: true }]])
      : await this.wallet.call<{ success: boolean; error?: { message: string } }[]>('importmulti', [[{ ...entry, watchonly: true, keypool: false }], { rescan: true }]);
    const failed = results.find((result) => !result.success);
    if (failed !== undefined) throw new Error(`the node refused the hot wallet's descriptor: ${failed.error?.message ?? 'no reason given'}`);
  }

  /**
   * A call to the node's wallet that survives a node restart: a node that restarted does not
   * load our wallet by itself (-18 "not loaded"), so it is loaded again and the call repeated.
   */
  private async walletCall<T>(call: (wallet: JsonRpcClient) => Promise<T>): Promise<T> {
    try {
      return await call(this.wallet);
    } catch (error) {
      if (!(error instanceof JsonRpcError) || error.code !== RPC_WALLET_NOT_FOUND) throw error;
      await this.node.call('loadwallet', [this.name]).catch((load: unknown) => {
        if (!(load instanceof JsonRpcError && /already loaded/i.test(load.message))) throw load;
      });
      return call(this.wallet);
    }
  }

  /** Confirmed unspent outputs (at least `minConf`), amounts exact. */
  async unspent(minConf = 1): Promise<WalletUtxo[]> {
    const rows = await this.walletCall((wallet) => wallet.callExact<{ txid: string; vout: LosslessNumber; amount: LosslessNumber; scriptPubKey: string; spendable: boolean; solvable: boolean }[]>(
      'listunspent',
      [minConf, 9_999_999, [], true],
    ));
    return rows.map((row) => ({
      txid: row.txid,
      vout: Number(row.vout.toString()),
      amount: toBaseUnits(new Decimal(row.amount.toString()), 8),
      scriptPubKey: row.scriptPubKey,
    }));
  }

  /** The node's height, the best height it knows of, and its newest block's time (fee-guard.ts). */
  async tip(): Promise<NodeTip> {
    const info = await this.node.call<{ blocks: number; headers: number; bestblockhash: string }>('getblockchaininfo');
    const header = await this.node.call<{ time: number }>('getblockheader', [info.bestblockhash]);
    return { blocks: info.blocks, headers: info.headers, tipTime: new Date(header.time * 1000) };
  }

  /**
   * The node's fee estimate for confirmation within `blocks`, in satoshis per virtual byte;
   * undefined when it has none yet (a new node, regtest).
   */
  async feeRate(blocks: number): Promise<Decimal | undefined> {
    const estimate = await this.node.callExact<{ feerate?: LosslessNumber; errors?: string[] }>('estimatesmartfee', [blocks]);
    if (estimate.feerate === undefined) return undefined;
    // feerate is in coins per 1000 virtual bytes: satoshis (10^8) per byte (10^3).
    return new Decimal(estimate.feerate.toString()).times(100_000);
  }

  /** Sends a signed transaction; one the node already has (mempool or chain) counts as sent. */
  async broadcast(raw: string): Promise<void> {
    try {
      await this.node.call('sendrawtransaction', [raw]);
    } catch (error) {
      if (error instanceof JsonRpcError && (error.code === RPC_VERIFY_ALREADY_IN_CHAIN || /already in (the )?(mempool|block ?chain)|txn-already-known|txn-already-in-mempool/i.test(error.message))) return;
      throw error;
    }
  }

  /** Where one of our transactions stands. */
  async state(txid: string): Promise<TransactionState> {
    let confirmations: number;
    try {
      ({ confirmations } = await this.walletCall((wallet) => wallet.call<{ confirmations: number }>('gettransaction', [txid, true])));
    } catch (error) {
      if (!(error instanceof JsonRpcError) || error.code !== RPC_INVALID_ADDRESS_OR_KEY) throw error;
      // The wallet never saw it (stored, not yet broadcast, or the wallet was re-made).
      return (await this.inMempool(txid)) ? { kind: 'mempool' } : { kind: 'dropped' };
    }
    if (confirmations > 0) return { kind: 'confirmed', confirmations };
    if (confirmations < 0) return { kind: 'conflicted' };
    return (await this.inMempool(txid)) ? { kind: 'mempool' } : { kind: 'dropped' };
  }

  private async inMempool(txid: string): Promise<boolean> {
    try {
      await this.node.call('getmempoolentry', [txid]);
      return true;
    } catch (error) {
      if (error instanceof JsonRpcError) return false;
      throw error;
    }
  }
}
