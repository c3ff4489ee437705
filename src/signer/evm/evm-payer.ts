import type { HDKey } from '@scure/bip32';
import {
  bytesToHex,
  ContractFunctionExecutionError,
  createPublicClient,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  http,
  keccak256,
  parseTransaction,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { reservedNextNonce, takeNonce } from '../../db/repositories/evm-nonce-repository.js';
import { startReplacementClock, transactionsInFlight, type ClaimedPayout } from '../../db/repositories/signer-repository.js';
import type { Db } from '../../db/schema/index.js';
import type { PayoutTransactionRow } from '../../db/schema/payouts.js';
import { Decimal, fromBaseUnits, toBaseUnits } from '../../domain/money.js';
import type { ChainCurrency, ChainPayer, FeeReading, SignedTransaction, SignOutcome, TransactionState } from '../chain-payer.js';
import { checkTip, DEFAULT_FEE_GUARD, type FeeBound, type FeeGuardSettings } from '../fee-guard.js';
import { boundedFees, replacementFees, type EvmFeeBounds, type EvmFees } from './evm-fees.js';

/** ETH and BNB: wei. */
const NATIVE_DECIMALS = 18;
/** Gas of a plain value transfer, and of a token transfer when the node cannot estimate one. */
const FALLBACK_GAS = { native: 21_000n, token: 100_000n } as const;

export interface EvmPayerOptions {
  fees: EvmFeeBounds;
  /** SIGNER_CHAIN_ID_<CHAIN>: the chain id the node must report, when the operator pins it. */
  expectedChainId?: number;
  /** EVM_REPLACE_AFTER_BLOCKS: a transaction not mined this many blocks after it was sent is replaced. */
  replaceAfterBlocks: number;
  /** A fee estimate a bound changed (docs/contract.md §11.7: never silently), or a replacement the ceiling stopped. */
  onBoundedFee: (estimate: EvmFees, used: EvmFees | undefined, bounds?: readonly FeeBound[]) => void;
  /** The node's lag, its tip's age and the jump over the last fee cap used (default DEFAULT_FEE_GUARD). */
  guard?: FeeGuardSettings;
}

/** What a signed call sends: the recipient or token contract, wei, calldata, and the token amount. */
interface Call {
  to: Address;
  value: bigint;
  data: Hex | undefined;
  token: { contract: Address; units: bigint } | undefined;
}

/**
 * Pays an EVM chain (ETH, BSC) from the hot wallet's address (receive index 0 of the EVM account,
 * the funding address): one payout per transaction, native coin or an ERC-20/BEP-20 `transfer`,
 * EIP-1559, signed here with viem. Nonces come from the database (evm_nonces, taken with the
 * stored transaction), so no nonce is reused or skipped whatever the number of signers; a
 * transaction not mined within `replaceAfterBlocks` is replaced by the same call with the same
 * nonce and higher fees (`replacement`, driven by the payout loop).
 */
export class EvmPayer implements ChainPayer {
  readonly batchMax = 1;
  /** Fee readings are the fee cap (maxFeePerGas), in gwei. */
  readonly feeUnit = 'gwei';
  /** The last fee cap worked out, in memory: a restarted signer starts without a jump bound. */
  lastFee: FeeReading | undefined;

  constructor(
    readonly chain: string,
    private readonly account: PrivateKeyAccount,
    private readonly client: PublicClient,
    private readonly chainId: number,
    private readonly options: EvmPayerOptions,
  ) {}

  /** The payer of `chain` for the hot wallet's EVM account key, on the node at `rpcUrl` (chain id read from it). */
  static async create(chain: string, accountKey: HDKey, rpcUrl: string, options: EvmPayerOptions): Promise<EvmPayer> {
    const key = accountKey.deriveChild(0).deriveChild(0).privateKey;
    if (key === null) throw new Error(`the ${chain} hot wallet key is public only`);
    const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 2, timeout: 30_000 }), cacheTime: 0 });
    const chainId = await client.getChainId();
    if (options.expectedChainId !== undefined && chainId !== options.expectedChainId) {
      throw new Error(`the ${chain} node reports chain id ${chainId}, not SIGNER_CHAIN_ID_${chain}=${options.expectedChainId}`);
    }
    return new EvmPayer(chain, privateKeyToAccount(bytesToHex(key)), client, chainId, options);
  }

  /** The chain id every transaction is signed for: the node's, read once at start. */
  get chainIdSigned(): number {
    return this.chainId;
  }

  /** The hot wallet's address on this chain (checksummed). */
  get address(): Address {
    return this.account.address;
  }

  async start(): Promise<void> {
    // Nothing to open: the node is asked per transaction.
  }

  async sign(tx: Db, payouts: readonly ClaimedPayout[]): Promise<SignOutcome> {
    const [payout] = payouts;
    if (payout === undefined || payouts.length !== 1) throw new Error('an EVM transaction pays exactly one payout');
    const call = transferCall(payout);
    // The chain is locked (payout-loop): the nonce read here is the one taken with the stored
    // transaction. The node's pending count moves it on when the account was used elsewhere.
    const [reserved, pending, mined, head] = [
      await reservedNextNonce(tx, this.chain, this.address),
      BigInt(await this.client.getTransactionCount({ address: this.address, blockTag: 'pending' })),
      BigInt(await this.client.getTransactionCount({ address: this.address, blockTag: 'latest' })),
      await this.client.getBlockNumber(),
    ];
    const nonce = reserved === undefined || reserved < pending ? pending : reserved;
    const fees = await this.fees();
    const gas = await this.gas(call);
    const committed = await this.committed(tx, mined);
    const native = await this.client.getBalance({ address: this.address, blockTag: 'latest' });
    const cost = gas * fees.maxFeePerGas;
    if (native - committed.native < call.value + cost) return { kind: 'insufficient' };
    if (call.token !== undefined) {
      const held = await this.client.readContract({ address: call.token.contract, abi: erc20Abi, functionName: 'balanceOf', args: [this.address], blockTag: 'latest' });
      if (held - (committed.tokens.get(call.token.contract) ?? 0n) < call.token.units) return { kind: 'insufficient' };
    }
    const raw = await this.account.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce: Number(nonce), to: call.to, value: call.value, data: call.data, gas, ...fees });
    this.check(raw, { nonce, to: call.to, value: call.value, data: call.data });
    const fee = fromBaseUnits(cost, NATIVE_DECIMALS).toFixed();
    return {
      kind: 'signed',
      // The fee stored now is its most (gas × maxFeePerGas); the real one replaces it when mined.
      // Its replacement clock starts now: it is broadcast right after it is stored.
      transaction: { chain: this.chain, txid: keccak256(raw), raw, fee, vsize: null, inputs: [], nonce: nonce.toString(), replaces_id: null, seen_unmined_at_block: head.toString() },
      paid: payouts,
      fees: [fee],
      take: (db) => takeNonce(db, this.chain, this.address, nonce),
    };
  }

  async spendable(db: Db, currencies: readonly ChainCurrency[]): Promise<Map<string, Decimal>> {
    const mined = BigInt(await this.client.getTransactionCount({ address: this.address, blockTag: 'latest' }));
    const committed = await this.committed(db, mined);
    const spendable = new Map<string, Decimal>();
    for (const currency of currencies) {
      let held: bigint;
      try {
        held =
          currency.token_contract === null
            ? await this.client.getBalance({ address: this.address, blockTag: 'latest' })
            : await this.client.readContract({ address: evmAddress(currency.token_contract), abi: erc20Abi, functionName: 'balanceOf', args: [this.address], blockTag: 'latest' });
      } catch (error) {
        // A catalog token with no contract on this node (or one that does not answer balanceOf):
        // it cannot be paid, which the loop publishes; the node's other currencies still are.
        if (currency.token_contract !== null && error instanceof ContractFunctionExecutionError) continue;
        throw error;
      }
      const taken = currency.token_contract === null ? committed.native : (committed.tokens.get(evmAddress(currency.token_contract)) ?? 0n);
      // Gas of a token payout is paid in the native coin: the native balance covers it (sign checks both).
      spendable.set(currency.id, fromBaseUnits(held > taken ? held - taken : 0n, currency.token_contract === null ? NATIVE_DECIMALS : currency.decimals));
    }
    return spendable;
  }

  async broadcast(raw: string): Promise<void> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: raw as Hex });
    } catch (error) {
      // Sent before (by us, or by another signer following the same row): it counts as sent.
      if (!/already known|known transaction|already imported|already exists/i.test(errorText(error))) throw error;
    }
  }

  async state(txid: string): Promise<TransactionState> {
    const hash = txid as Hex;
    const receipt = await this.client.getTransactionReceipt({ hash }).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    });
    if (receipt !== undefined) {
      const confirmations = Number((await this.client.getBlockNumber()) - receipt.blockNumber + 1n);
      const fee = fromBaseUnits(receipt.gasUsed * receipt.effectiveGasPrice, NATIVE_DECIMALS).toFixed();
      return receipt.status === 'success' ? { kind: 'confirmed', confirmations, fee } : { kind: 'reverted', confirmations, fee };
    }
    const pending = await this.client.getTransaction({ hash }).catch((error: unknown) => {
      if (error instanceof TransactionNotFoundError) return undefined;
      throw error;
    });
    return pending === undefined ? { kind: 'dropped' } : { kind: 'mempool' };
  }

  /**
   * The same call, nonce and gas with fees at least 10 % higher, once the transaction has gone
   * `replaceAfterBlocks` blocks unmined since a signer first saw it so; undefined before, or
   * when the ceiling (SIGNER_MAX_FEE_GWEI_<CHAIN>) leaves no room (reported).
   */
  async replacement(tx: Db, transaction: PayoutTransactionRow, _state: TransactionState): Promise<SignedTransaction | undefined> {
    const head = await this.client.getBlockNumber();
    // The clock is in the database (a restarted signer keeps it), started when the transaction
    // was signed; a row stored before there was a clock starts it now.
    if (transaction.seen_unmined_at_block === null) {
      await startReplacementClock(tx, transaction.id, head);
      return undefined;
    }
    if (head - BigInt(transaction.seen_unmined_at_block) < BigInt(this.options.replaceAfterBlocks)) return undefined;
    const old = parseTransaction(transaction.raw as Hex);
    if (old.type !== 'eip1559' || old.maxFeePerGas === undefined || old.maxPriorityFeePerGas === undefined || old.nonce === undefined || old.to == null || old.gas === undefined) {
      throw new Error(`${transaction.txid} is not an EIP-1559 transaction of this signer`);
    }
    if (transaction.nonce === null || old.nonce.toString() !== String(transaction.nonce)) throw new Error(`${transaction.txid}: stored nonce ${transaction.nonce} is not the signed ${old.nonce}`);
    const now = await this.fees();
    const fees = replacementFees({ maxFeePerGas: old.maxFeePerGas, maxPriorityFeePerGas: old.maxPriorityFeePerGas }, now, this.options.fees);
    if (fees === undefined) {
      this.options.onBoundedFee(now, undefined);
      // Asked again after as many blocks, not on every pass.
      await startReplacementClock(tx, transaction.id, head);
      return undefined;
    }
    const raw = await this.account.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce: old.nonce, to: old.to, value: old.value ?? 0n, data: old.data, gas: old.gas, ...fees });
    this.check(raw, { nonce: BigInt(old.nonce), to: old.to, value: old.value ?? 0n, data: old.data });
    return {
      chain: this.chain,
      txid: keccak256(raw),
      raw,
      fee: fromBaseUnits(old.gas * fees.maxFeePerGas, NATIVE_DECIMALS).toFixed(),
      vsize: null,
      inputs: [],
      nonce: old.nonce.toString(),
      replaces_id: transaction.id,
      // The replacement's own clock starts now.
      seen_unmined_at_block: head.toString(),
    };
  }

  /**
   * The signed bytes read back before they are returned: this chain, this nonce, exactly this
   * recipient, value and calldata, and no access list (what the Bitcoin payer's output check is
   * there). A mismatch is a bug, never a payout.
   */
  private check(raw: Hex, expected: { nonce: bigint; to: Address; value: bigint; data: Hex | undefined }): void {
    const signed = parseTransaction(raw);
    const same =
      signed.type === 'eip1559' &&
      signed.chainId === this.chainId &&
      BigInt(signed.nonce ?? -1) === expected.nonce &&
      signed.to?.toLowerCase() === expected.to.toLowerCase() &&
      (signed.value ?? 0n) === expected.value &&
      (signed.data ?? '0x') === (expected.data ?? '0x') &&
      (signed.accessList ?? []).length === 0;
    if (!same) throw new Error(`the signed ${this.chain} transaction is not the one built: refused`);
  }

  /**
   * The node's fee view, guarded (fee-guard.ts): none from a node behind its chain (NodeBehind),
   * bounded by the floor and ceiling (evm-fees.ts) and the fee cap held to a jump over the last
   * one used. A bounded one is reported and kept for the API's gauge (`lastFee`).
   */
  private async fees(): Promise<EvmFees> {
    const guard = this.options.guard ?? DEFAULT_FEE_GUARD;
    const block = await this.client.getBlock({ blockTag: 'latest' });
    // viem's public schema has no eth_syncing: false, or the sync's progress (hex quantities).
    const request = this.client.request as (args: { method: string }) => Promise<unknown>;
    const syncing = (await request({ method: 'eth_syncing' })) as false | { highestBlock: Hex } | null;
    const headers = syncing === false || syncing === null ? block.number : BigInt(syncing.highestBlock);
    // The node's blocks carry real time: compared with the machine's clock.
    checkTip(this.chain, { blocks: Number(block.number), headers: Number(headers), tipTime: new Date(Number(block.timestamp) * 1000) }, new Date(), guard);
    const tip = BigInt(await this.client.request({ method: 'eth_maxPriorityFeePerGas' }));
    const { estimate, used: bounded, bounded: changed } = boundedFees(block.baseFeePerGas ?? 0n, tip, this.options.fees);
    let used = bounded;
    const bounds: FeeBound[] = [];
    if (changed) bounds.push(used.maxFeePerGas === this.options.fees.maxFee && estimate.maxFeePerGas > used.maxFeePerGas ? 'ceiling' : 'floor');
    const last = this.lastFee?.used;
    if (last !== undefined) {
      const limit = toBaseUnits(last.times(guard.maxJump).toDecimalPlaces(9, Decimal.ROUND_DOWN), 9);
      if (used.maxFeePerGas > limit) {
        used = { maxFeePerGas: limit, maxPriorityFeePerGas: used.maxPriorityFeePerGas < limit ? used.maxPriorityFeePerGas : limit };
        bounds.push('jump');
      }
    }
    if (bounds.length > 0) this.options.onBoundedFee(estimate, used, bounds);
    this.lastFee = { estimate: fromBaseUnits(estimate.maxFeePerGas, 9), used: fromBaseUnits(used.maxFeePerGas, 9), bounds };
    return used;
  }

  /** The node's gas estimate (a fifth more for a token call); a fixed limit when it has none. */
  private async gas(call: Call): Promise<bigint> {
    try {
      const estimate = await this.client.estimateGas({ account: this.address, to: call.to, value: call.value, data: call.data });
      return call.token === undefined ? estimate : estimate + estimate / 5n;
    } catch {
      // A recipient that refuses the call: sent with a fixed limit, it reverts on chain and
      // its payout fails with the reason (payout-loop `reverted`), rather than blocking the queue.
      return call.token === undefined ? FALLBACK_GAS.native : FALLBACK_GAS.token;
    }
  }

  /**
   * What the chain's transactions in flight can still take from the balance (not yet mined: a
   * nonce at or above the mined count): per nonce the most of its family (a replacement costs
   * more), native value plus gas × maxFeePerGas, and token amounts per contract.
   */
  private async committed(tx: Db, minedCount: bigint): Promise<{ native: bigint; tokens: Map<string, bigint> }> {
    const perNonce = new Map<bigint, { native: bigint; token: { contract: Address; units: bigint } | undefined }>();
    for (const row of await transactionsInFlight(tx, this.chain)) {
      if (row.nonce === null || BigInt(row.nonce) < minedCount) continue;
      const signed = parseTransaction(row.raw as Hex);
      const native = (signed.value ?? 0n) + (signed.gas ?? 0n) * (signed.maxFeePerGas ?? 0n);
      const token = signed.to != null && signed.data !== undefined ? tokenTransfer(signed.to, signed.data) : undefined;
      const known = perNonce.get(BigInt(row.nonce));
      if (known === undefined || known.native < native) perNonce.set(BigInt(row.nonce), { native, token });
    }
    const tokens = new Map<string, bigint>();
    let native = 0n;
    for (const entry of perNonce.values()) {
      native += entry.native;
      if (entry.token !== undefined) tokens.set(entry.token.contract, (tokens.get(entry.token.contract) ?? 0n) + entry.token.units);
    }
    return { native, tokens };
  }
}

/** The call that pays `payout`: a value transfer, or `transfer(to, units)` on its token contract. */
export function transferCall(payout: ClaimedPayout): Call {
  const to = evmAddress(payout.address);
  const units = toBaseUnits(new Decimal(payout.amount), payout.decimals);
  if (units <= 0n) throw new Error(`payout ${payout.id}: nothing to send`);
  if (payout.token_contract === null) return { to, value: units, data: undefined, token: undefined };
  const contract = evmAddress(payout.token_contract);
  return { to: contract, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }), token: { contract, units } };
}

/** A token `transfer` call's contract and amount, or undefined for any other calldata. */
function tokenTransfer(to: Address, data: Hex): { contract: Address; units: bigint } | undefined {
  try {
    const decoded = decodeFunctionData({ abi: erc20Abi, data });
    return decoded.functionName === 'transfer' ? { contract: getAddress(to), units: decoded.args[1] } : undefined;
  } catch {
    return undefined;
  }
}

/** Checksummed. The API checked the address (and its checksum, if mixed case) when the order was made. */
function evmAddress(address: string): Address {
  return getAddress(address.toLowerCase());
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.message} ${'details' in error ? String(error.details) : ''}`;
  return String(error);
}
