import type { HDKey } from '@scure/bip32';
import {
  bytesToHex,
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
import { transactionsInFlight, type ClaimedPayout } from '../../db/repositories/signer-repository.js';
import type { Db } from '../../db/schema/index.js';
import type { PayoutTransactionRow } from '../../db/schema/payouts.js';
import { Decimal, fromBaseUnits, toBaseUnits } from '../../domain/money.js';
import type { ChainPayer, SignedTransaction, SignOutcome, TransactionState } from '../chain-payer.js';
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
  /** A fee estimate a bound changed (DESIGN §11.7: never silently), or a replacement the ceiling stopped. */
  onBoundedFee: (estimate: EvmFees, used: EvmFees | undefined) => void;
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
  /**
   * The block at which this process first saw each transaction sent: the replacement clock. In
   * memory: a restarted signer waits `replaceAfterBlocks` again before replacing (later, never
   * sooner, than asked).
   */
  private readonly sentAt = new Map<string, bigint>();

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
    const [reserved, pending, mined] = [
      await reservedNextNonce(tx, this.chain, this.address),
      BigInt(await this.client.getTransactionCount({ address: this.address, blockTag: 'pending' })),
      BigInt(await this.client.getTransactionCount({ address: this.address, blockTag: 'latest' })),
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
      transaction: { chain: this.chain, txid: keccak256(raw), raw, fee, vsize: null, inputs: [], nonce: nonce.toString(), replaces_id: null },
      paid: payouts,
      fees: [fee],
      take: (db) => takeNonce(db, this.chain, this.address, nonce),
    };
  }

  async broadcast(raw: string): Promise<void> {
    const txid = keccak256(raw as Hex);
    try {
      await this.client.sendRawTransaction({ serializedTransaction: raw as Hex });
    } catch (error) {
      // Sent before (by us, or by another signer following the same row): it counts as sent.
      if (!/already known|known transaction|already imported|already exists/i.test(errorText(error))) throw error;
    }
    if (!this.sentAt.has(txid)) this.sentAt.set(txid, await this.client.getBlockNumber());
  }

  async state(txid: string): Promise<TransactionState> {
    const hash = txid as Hex;
    const receipt = await this.client.getTransactionReceipt({ hash }).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    });
    if (receipt !== undefined) {
      this.sentAt.delete(txid);
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
   * `replaceAfterBlocks` blocks unmined since this process saw it sent; undefined before, or
   * when the ceiling (SIGNER_MAX_FEE_GWEI_<CHAIN>) leaves no room (reported).
   */
  async replacement(_tx: Db, transaction: PayoutTransactionRow, _state: TransactionState): Promise<SignedTransaction | undefined> {
    const head = await this.client.getBlockNumber();
    const sentAt = this.sentAt.get(transaction.txid);
    if (sentAt === undefined) {
      this.sentAt.set(transaction.txid, head);
      return undefined;
    }
    if (head - sentAt < BigInt(this.options.replaceAfterBlocks)) return undefined;
    const old = parseTransaction(transaction.raw as Hex);
    if (old.type !== 'eip1559' || old.maxFeePerGas === undefined || old.maxPriorityFeePerGas === undefined || old.nonce === undefined || old.to == null || old.gas === undefined) {
      throw new Error(`${transaction.txid} is not an EIP-1559 transaction of this signer`);
    }
    if (transaction.nonce === null || old.nonce.toString() !== String(transaction.nonce)) throw new Error(`${transaction.txid}: stored nonce ${transaction.nonce} is not the signed ${old.nonce}`);
    const now = await this.fees();
    const fees = replacementFees({ maxFeePerGas: old.maxFeePerGas, maxPriorityFeePerGas: old.maxPriorityFeePerGas }, now, this.options.fees);
    if (fees === undefined) {
      this.options.onBoundedFee(now, undefined);
      this.sentAt.set(transaction.txid, head);
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

  /** The node's fee view, bounded (evm-fees.ts); a bound that changed it is reported. */
  private async fees(): Promise<EvmFees> {
    const block = await this.client.getBlock({ blockTag: 'latest' });
    const tip = BigInt(await this.client.request({ method: 'eth_maxPriorityFeePerGas' }));
    const { estimate, used, bounded } = boundedFees(block.baseFeePerGas ?? 0n, tip, this.options.fees);
    if (bounded) this.options.onBoundedFee(estimate, used);
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
