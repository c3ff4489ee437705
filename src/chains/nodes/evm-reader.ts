import { Decimal } from '../../domain/money.js';
import { AdapterError } from '../adapters.js';
import type { ChainReader, FoundDeposit, ScanResult, ScanTarget } from './chain-reader.js';
import type { JsonRpcClient } from './json-rpc-client.js';

/** keccak256("Transfer(address,address,uint256)"): the ERC-20 (and BEP-20) transfer event. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** decimals() selector. */
const DECIMALS_SELECTOR = '0x313ce567';
/** The native coin of every EVM chain counts in wei: 18 decimals. */
const NATIVE_DECIMALS = 18;

interface EvmBlock {
  hash: string;
  parentHash: string;
  transactions: Array<EvmTx | string>;
}
interface EvmTx {
  hash: string;
  to: string | null;
  value: string;
}
interface EvmLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  removed?: boolean;
}

/**
 * EVM JSON-RPC (ETH, BSC): the native coin from the blocks' transactions (`to` = deposit
 * address, receipt status 1), tokens from `Transfer` logs of the order's contract to the
 * deposit address (one eth_getLogs per pass). Values are hex integers: BigInt, then a decimal
 * with the unit's decimals (18 for the native coin, the contract's own `decimals()` for a
 * token, so a catalog rounding setting can never scale an amount).
 *
 * Not seen: native coin sent by a contract (an internal transaction), which needs a tracing
 * node; a deposit of that kind is left to the operator.
 */
export class EvmReader implements ChainReader {
  readonly label: string;
  private readonly tokenDecimals = new Map<string, number>();

  constructor(
    chain: string,
    private readonly mainnetChainId: number,
    private readonly rpc: JsonRpcClient,
  ) {
    this.label = `${chain} node ${rpc.label}`;
  }

  async network(): Promise<string> {
    return `chain ${BigInt(await this.rpc.call<string>('eth_chainId')).toString()}`;
  }

  isMainnet(network: string): boolean {
    return network === `chain ${this.mainnetChainId}`;
  }

  /** EVM addresses are the same on every network; compared in lower case. */
  nodeAddress(_network: string, address: string): string {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`not an EVM address: ${address}`);
    return address.toLowerCase();
  }

  async tipHeight(): Promise<number> {
    return Number(BigInt(await this.rpc.call<string>('eth_blockNumber')));
  }

  async blockHash(height: number): Promise<string | null> {
    const block = await this.rpc.call<EvmBlock | null>('eth_getBlockByNumber', [hex(height), false]);
    return block?.hash ?? null;
  }

  async scan(from: { height: number; hash: string }, toHeight: number, targets: readonly ScanTarget[]): Promise<ScanResult> {
    const native = new Map(targets.filter((t) => t.contract === null).map((t) => [t.address, t]));
    const tokens = new Map(targets.filter((t) => t.contract !== null).map((t) => [`${t.contract}:${t.address}`, t]));
    const hashes = new Map<number, string>([[from.height, from.hash]]);
    const found: Array<{ orderId: string; txid: string; units: bigint; decimals: number; height: number; native: boolean }> = [];

    let last = from;
    for (let height = from.height + 1; height <= toHeight; height++) {
      const block = await this.rpc.call<EvmBlock | null>('eth_getBlockByNumber', [hex(height), native.size > 0]);
      // Gone or not linked to the block before: the chain changed under the scan; the next pass sees the reorg.
      if (block === null || block.parentHash !== last.hash) break;
      for (const tx of block.transactions) {
        if (typeof tx === 'string' || tx.to === null) continue;
        const target = native.get(tx.to.toLowerCase());
        const units = BigInt(tx.value);
        if (target !== undefined && units > 0n) {
          found.push({ orderId: target.orderId, txid: tx.hash, units, decimals: NATIVE_DECIMALS, height, native: true });
        }
      }
      hashes.set(height, block.hash);
      last = { height, hash: block.hash };
    }

    if (tokens.size > 0 && last.height > from.height) {
      const logs = await this.rpc.call<EvmLog[]>('eth_getLogs', [
        {
          fromBlock: hex(from.height + 1),
          toBlock: hex(last.height),
          address: [...new Set([...tokens.values()].map((t) => t.contract as string))],
          topics: [TRANSFER_TOPIC, null, [...new Set([...tokens.values()].map((t) => topicAddress(t.address)))]],
        },
      ]);
      for (const log of logs) {
        if (log.removed === true || log.topics.length !== 3 || log.topics[2] === undefined) continue;
        const height = Number(BigInt(log.blockNumber));
        if (hashes.get(height) !== log.blockHash) {
          // The logs come from another branch than the blocks just read: stop before it.
          const before = height - 1;
          if (before < last.height) last = { height: before, hash: hashes.get(before) as string };
          continue;
        }
        const to = `0x${log.topics[2].slice(-40)}`.toLowerCase();
        const target = tokens.get(`${log.address.toLowerCase()}:${to}`);
        if (target === undefined) continue;
        const units = BigInt(log.data);
        if (units === 0n) continue;
        const decimals = await this.decimalsOf(target.contract as string);
        found.push({ orderId: target.orderId, txid: log.transactionHash, units, decimals, height, native: false });
      }
    }

    const sums = new Map<string, { orderId: string; txid: string; units: bigint; decimals: number; height: number }>();
    for (const item of found) {
      if (item.height > last.height) continue;
      // A reverted transaction moved no value, though its `to` and `value` say otherwise.
      if (item.native && !(await this.succeeded(item.txid))) continue;
      const key = `${item.orderId}:${item.txid}`;
      const sum = sums.get(key);
      if (sum === undefined) sums.set(key, { ...item });
      else sum.units += item.units;
    }
    const deposits: FoundDeposit[] = [...sums.values()].map((sum) => ({
      orderId: sum.orderId,
      txid: sum.txid,
      amount: unitsToDecimal(sum.units, sum.decimals),
      blockHeight: sum.height,
      blockHash: hashes.get(sum.height) as string,
    }));
    return { ...last, deposits };
  }

  private async succeeded(txid: string): Promise<boolean> {
    const receipt = await this.rpc.call<{ status?: string } | null>('eth_getTransactionReceipt', [txid]);
    return receipt?.status === '0x1';
  }

  /** The token contract's own decimals(), asked once. */
  private async decimalsOf(contract: string): Promise<number> {
    const known = this.tokenDecimals.get(contract);
    if (known !== undefined) return known;
    const answer = await this.rpc.call<string>('eth_call', [{ to: contract, data: DECIMALS_SELECTOR }, 'latest']);
    const decimals = Number(BigInt(answer === '0x' ? '0x0' : answer));
    if (!Number.isInteger(decimals) || decimals > 36) throw new AdapterError(`${this.label}: ${contract} answers decimals() = ${decimals}`, true);
    this.tokenDecimals.set(contract, decimals);
    return decimals;
  }
}

function hex(height: number): string {
  return `0x${height.toString(16)}`;
}

/** A 20-byte address as a 32-byte log topic. */
function topicAddress(address: string): string {
  return `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;
}

/** An integer of the smallest unit as an exact decimal (no division, so no rounding). */
export function unitsToDecimal(units: bigint, decimals: number): Decimal {
  const digits = units.toString().padStart(decimals + 1, '0');
  return new Decimal(decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`);
}
