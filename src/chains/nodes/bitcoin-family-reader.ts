import { setImmediate as nextTurn } from 'node:timers/promises';
import { Decimal } from '../../domain/money.js';
import { AdapterError } from '../adapters.js';
import type { ChainReader, FoundDeposit, ScanResult, ScanTarget } from './chain-reader.js';
import { JsonRpcError, type JsonRpcClient } from './json-rpc-client.js';
import { knowsNetwork, nodeNetworkAddress } from './node-network-address.js';

interface ScriptPubKey {
  /** Bitcoin Core 22+. */
  address?: string;
  /** Older nodes (Litecoin Core 0.21, Dogecoin Core 1.14). */
  addresses?: string[];
}
interface RawTx {
  txid: string;
  vout: Array<{ value: unknown; scriptPubKey: ScriptPubKey }>;
}
interface Block {
  hash: string;
  previousblockhash?: string;
  tx: Array<RawTx | string>;
}

/** bitcoind answers getblockhash above the tip with "Block height out of range". */
const RPC_INVALID_PARAMETER = -8;

/**
 * Bitcoin Core family JSON-RPC (BTC, LTC, DOGE): reads blocks with `getblock <hash> 2`, which
 * needs neither a wallet nor -txindex, and matches outputs by the address the node reports.
 *
 * Amounts are never taken from a float: the block is parsed with JSON.parse only to find the
 * matching outputs (a big block parsed losslessly would hold the event loop for hundreds of
 * ms), then each matching transaction is read again with `getrawtransaction <txid> true
 * <blockhash>` and parsed losslessly, so `0.12345678` stays that exact decimal.
 *
 * Nodes without getblock verbosity 2 (Dogecoin Core 1.14: dogecoin/dogecoin#1625) fall back
 * to one getrawtransaction per transaction, which needs -txindex=1 there. That path is not
 * covered by a test against a real dogecoind.
 */
export class BitcoinFamilyReader implements ChainReader {
  readonly label: string;
  /** Whether getblock verbosity 2 works; undefined until the first block. */
  private fullBlocks: boolean | undefined;

  constructor(
    private readonly chain: string,
    private readonly rpc: JsonRpcClient,
  ) {
    this.label = `${chain} node ${rpc.label}`;
  }

  async network(): Promise<string> {
    const info = await this.rpc.call<{ chain: string }>('getblockchaininfo');
    if (!knowsNetwork(this.chain, info.chain)) {
      throw new AdapterError(`${this.label} runs network "${info.chain}", unknown for ${this.chain}`, true);
    }
    return info.chain;
  }

  isMainnet(network: string): boolean {
    return network === 'main';
  }

  nodeAddress(network: string, address: string): string {
    return nodeNetworkAddress(this.chain, network, address);
  }

  tipHeight(): Promise<number> {
    return this.rpc.call<number>('getblockcount');
  }

  async blockHash(height: number): Promise<string | null> {
    try {
      return await this.rpc.call<string>('getblockhash', [height]);
    } catch (error) {
      if (error instanceof JsonRpcError && error.code === RPC_INVALID_PARAMETER) return null;
      throw error;
    }
  }

  async scan(from: { height: number; hash: string }, toHeight: number, targets: readonly ScanTarget[]): Promise<ScanResult> {
    const wanted = new Map(targets.map((target) => [target.address, target.orderId]));
    const matches = new Map<string, { orderId: string; txid: string; address: string; blockHeight: number; blockHash: string }>();
    let last = from;
    for (let height = from.height + 1; height <= toHeight; height++) {
      const hash = await this.blockHash(height);
      if (hash === null) break;
      const block = await this.block(hash);
      // Not linked to the block before: the chain changed under the scan; the next pass sees the reorg.
      if (block.previousblockhash !== last.hash) break;
      for (const tx of block.tx as RawTx[]) {
        for (const output of tx.vout) {
          const address = outputAddress(output.scriptPubKey);
          const orderId = address === undefined ? undefined : wanted.get(address);
          if (orderId === undefined || address === undefined) continue;
          matches.set(`${orderId}:${tx.txid}`, { orderId, txid: tx.txid, address, blockHeight: height, blockHash: hash });
        }
      }
      last = { height, hash };
      // A block can be megabytes of JSON: let the API's requests in between blocks.
      await nextTurn();
    }
    const deposits: FoundDeposit[] = [];
    for (const match of matches.values()) {
      const amount = await this.exactAmount(match.txid, match.blockHash, match.address);
      if (amount.gt(0)) deposits.push({ orderId: match.orderId, txid: match.txid, amount, blockHeight: match.blockHeight, blockHash: match.blockHash });
    }
    return { ...last, deposits };
  }

  /** The block with its transactions decoded, by verbosity 2 or one call per transaction. */
  private async block(hash: string): Promise<Block> {
    if (this.fullBlocks !== false) {
      try {
        const block = await this.rpc.call<Block>('getblock', [hash, 2]);
        if (block.tx.every((tx) => typeof tx === 'object')) {
          this.fullBlocks = true;
          return block;
        }
      } catch (error) {
        if (!(error instanceof JsonRpcError) || this.fullBlocks === true) throw error;
      }
      this.fullBlocks = false;
    }
    const block = await this.rpc.call<Block>('getblock', [hash, true]);
    const tx: RawTx[] = [];
    for (const txid of block.tx as string[]) tx.push(await this.rpc.call<RawTx>('getrawtransaction', [txid, 1]));
    return { ...block, tx };
  }

  /** Sum of the transaction's outputs to `address`, from its exact JSON literals. */
  private async exactAmount(txid: string, blockHash: string, address: string): Promise<Decimal> {
    const params = this.fullBlocks === false ? [txid, 1] : [txid, true, blockHash];
    const tx = await this.rpc.callExact<RawTx>('getrawtransaction', params);
    let sum = new Decimal(0);
    for (const output of tx.vout) {
      if (outputAddress(output.scriptPubKey) === address) sum = sum.plus(new Decimal(String(output.value)));
    }
    return sum;
  }
}

/** The one address an output pays; undefined for bare multisig, OP_RETURN and the like. */
function outputAddress(script: ScriptPubKey): string | undefined {
  if (script.address !== undefined) return script.address;
  return script.addresses?.length === 1 ? script.addresses[0] : undefined;
}
