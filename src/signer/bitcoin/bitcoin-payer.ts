import { HDKey } from '@scure/bip32';
import { peekChangeIndex, reservedInputs, takeChangeIndex, type ClaimedPayout } from '../../db/repositories/signer-repository.js';
import type { Db } from '../../db/schema/index.js';
import { Decimal, fromBaseUnits, toBaseUnits } from '../../domain/money.js';
import type { ChainCurrency, ChainPayer, FeeReading, SignOutcome, TransactionState } from '../chain-payer.js';
import { checkTip, DEFAULT_FEE_GUARD, guardFee, type FeeBound, type FeeGuardSettings } from '../fee-guard.js';
import { SegwitAccount } from './batch-transaction.js';
import { NodeWallet } from './node-wallet.js';
import { JsonRpcClient } from '../../chains/nodes/json-rpc-client.js';
import { nodeNetworkAddress } from '../../chains/nodes/node-network-address.js';

/** Receive addresses the node's wallet watches: the funding address is index 0. */
const RECEIVE_RANGE = 20;
/** Satoshis per coin. */
const DECIMALS = 8;

/** Extended public key versions a node of each network reads in descriptors (xpub, tpub). */
const PUBLIC_VERSIONS: Readonly<Record<string, number>> = { main: 0x0488b21e, test: 0x043587cf, testnet4: 0x043587cf, signet: 0x043587cf, regtest: 0x043587cf };

export interface FeeBounds {
  /** Satoshis per vbyte: never less (SIGNER_FEE_RATE_MIN_<CHAIN>). */
  min: Decimal;
  /** Never more (SIGNER_FEE_RATE_MAX_<CHAIN>). */
  max: Decimal;
  /** Confirmation target given to estimatesmartfee, blocks. */
  targetBlocks: number;
  /** The node's lag, its tip's age and the jump over the last rate used (default DEFAULT_FEE_GUARD). */
  guard?: FeeGuardSettings;
}

/** A fee estimate a bound changed (docs/contract.md §11.7: never silently): the node's, the one used and why. */
export type BoundedFeeReport = (estimate: Decimal | undefined, used: Decimal, bounds: readonly FeeBound[]) => void;

/**
 * Pays a BIP-84 chain (BTC, LTC) from the hot wallet's own keys: coins found through the node's
 * watch-only wallet, one transaction per batch with change to the next change address, signed
 * here (@scure/btc-signer) and checked before signing (batch-transaction.ts).
 */
export class BitcoinPayer implements ChainPayer {
  readonly batchMax: number;
  readonly feeUnit = 'sat/vB';
  /** The last fee rate worked out (satoshis per vbyte), in memory: a restarted signer starts without a jump bound. */
  lastFee: FeeReading | undefined;

  constructor(
    readonly chain: string,
    private readonly account: SegwitAccount,
    private readonly wallet: NodeWallet,
    private readonly fees: FeeBounds,
    batchMax: number,
    private readonly onBoundedFee: BoundedFeeReport,
    /** The machine's clock, which the node's newest block is compared with (tests move it). */
    private readonly now: () => Date = () => new Date(),
  ) {
    this.batchMax = batchMax;
  }

  /**
   * The payer of `chain` for the hot wallet's account key, on the node at `rpcUrl`: the node's
   * watch-only wallet is `hot-<chain>-<account fingerprint>`, its descriptors spelled for the
   * node's network (tpub on test networks).
   */
  static async create(
    chain: string,
    accountKey: HDKey,
    rpcUrl: string,
    options: { fees: FeeBounds; batchMax: number; walletBirthday: number; onBoundedFee: BoundedFeeReport; now?: () => Date },
  ): Promise<BitcoinPayer> {
    const network = (await new JsonRpcClient(rpcUrl).call<{ chain: string }>('getblockchaininfo')).chain;
    const { head, tail } = BitcoinPayer.descriptorParts(accountKey, network);
    const name = `hot-${chain.toLowerCase()}-${accountKey.fingerprint.toString(16).padStart(8, '0')}`;
    const account = new SegwitAccount(chain, accountKey);
    const wallet = new NodeWallet(rpcUrl, name, head, tail, options.walletBirthday, (branch, index) =>
      nodeNetworkAddress(chain, network, account.address(branch, index)),
    );
    return new BitcoinPayer(chain, account, wallet, options.fees, options.batchMax, options.onBoundedFee, options.now);
  }

  /** The node wallet's descriptor for `account` on `network`: `wpkh(tpub…` + `)`. */
  static descriptorParts(account: HDKey, network: string): { head: string; tail: string } {
    const version = PUBLIC_VERSIONS[network];
    if (version === undefined) throw new Error(`no extended key version for network "${network}"`);
    const spelled = new HDKey({
      versions: { private: 0, public: version },
      publicKey: account.publicKey as Uint8Array,
      chainCode: account.chainCode as Uint8Array,
      depth: account.depth,
      index: account.index,
      parentFingerprint: account.parentFingerprint,
    });
    return { head: `wpkh(${spelled.publicExtendedKey}`, tail: ')' };
  }

  async start(db: Db): Promise<void> {
    this.account.extend(0, RECEIVE_RANGE);
    await this.wallet.open(RECEIVE_RANGE, await peekChangeIndex(db, this.chain));
  }

  async sign(tx: Db, payouts: readonly ClaimedPayout[]): Promise<SignOutcome> {
    // The chain is locked (payout-loop): the index peeked is the one taken below.
    const changeIndex = await peekChangeIndex(tx, this.chain);
    await this.wallet.ensureChange(changeIndex);
    // The coins, what is reserved and the fee rate are read once; what fits is worked out here.
    const [utxos, reserved, feeRate] = [await this.wallet.unspent(1), await reservedInputs(tx, this.chain), await this.feeRate()];
    const coins = { utxos, reserved, changeIndex, feeRate: BigInt(feeRate.ceil().toFixed(0)) };
    const asBatch = (list: readonly ClaimedPayout[]) =>
      list.map((payout) => ({ id: payout.id, address: payout.address, amount: toBaseUnits(new Decimal(payout.amount), DECIMALS) }));
    // All of them, the usual case: one coin selection. Else the oldest that fit, by selection
    // alone (nothing signed), and the transaction signed once for those.
    let paid: readonly ClaimedPayout[] = payouts;
    let batch = this.account.signBatch(asBatch(payouts), coins);
    if (batch.kind === 'insufficient') {
      paid = payouts.reduce<ClaimedPayout[]>((taken, payout) => (this.account.fits(asBatch([...taken, payout]), coins) ? [...taken, payout] : taken), []);
      if (paid.length === 0) return batch;
      batch = this.account.signBatch(asBatch(paid), coins);
      if (batch.kind === 'insufficient') return batch;
    }
    return {
      take: async (db) => {
        await takeChangeIndex(db, this.chain);
      },
      kind: 'signed',
      transaction: { chain: this.chain, txid: batch.txid, raw: batch.raw, fee: fromBaseUnits(batch.fee, DECIMALS).toFixed(), vsize: batch.vsize, inputs: batch.inputs, nonce: null, replaces_id: null, seen_unmined_at_block: null },
      paid,
      fees: shareFee(batch.fee, paid.length).map((share) => fromBaseUnits(share, DECIMALS).toFixed()),
    };
  }

  async spendable(db: Db, currencies: readonly ChainCurrency[]): Promise<Map<string, Decimal>> {
    const [utxos, reserved, changeIndex] = [await this.wallet.unspent(1), await reservedInputs(db, this.chain), await peekChangeIndex(db, this.chain)];
    const total = fromBaseUnits(this.account.spendable({ utxos, reserved, changeIndex }), DECIMALS);
    // The chain's coin; a Bitcoin-family chain has no tokens this payer pays.
    return new Map(currencies.filter((currency) => currency.token_contract === null).map((currency) => [currency.id, total]));
  }

  broadcast(raw: string): Promise<void> {
    return this.wallet.broadcast(raw);
  }

  state(txid: string): Promise<TransactionState> {
    return this.wallet.state(txid);
  }

  /**
   * The node's estimate, guarded (fee-guard.ts): none from a node behind its chain (NodeBehind:
   * the pass signs nothing on this chain), and within the floor, the ceiling and the jump over
   * the last rate used. A bounded one is reported and kept for the API's gauge (`lastFee`).
   */
  private async feeRate(): Promise<Decimal> {
    const guard = this.fees.guard ?? DEFAULT_FEE_GUARD;
    // The node's blocks carry real time: compared with the machine's clock, not the loop's.
    checkTip(this.chain, await this.wallet.tip(), this.now(), guard);
    const estimate = await this.wallet.feeRate(this.fees.targetBlocks);
    const { used, bounds } = guardFee(estimate, { floor: this.fees.min, ceiling: this.fees.max, lastUsed: this.lastFee?.used, maxJump: guard.maxJump });
    if (bounds.length > 0) this.onBoundedFee(estimate, used, bounds);
    this.lastFee = { estimate, used, bounds };
    return used;
  }
}

/** A fee split over n payouts in whole satoshis: equal shares, the remainder on the first ones. */
export function shareFee(fee: bigint, n: number): bigint[] {
  const count = BigInt(n);
  const base = fee / count;
  const rest = Number(fee % count);
  return Array.from({ length: n }, (_, i) => base + (i < rest ? 1n : 0n));
}
