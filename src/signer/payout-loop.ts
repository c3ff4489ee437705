import type { Kysely } from 'kysely';
import {
  awaitApproval,
  claimRequestedPayouts,
  failPayout,
  isPaused,
  isReplaced,
  lockChain,
  markBroadcast,
  markConflicted,
  markMined,
  markReverted,
  recordConfirmations,
  setWaitReason,
  showPause,
  signedSince,
  storeReplacement,
  storeSignedTransaction,
  transactionsInFlight,
  type ClaimedPayout,
} from '../db/repositories/signer-repository.js';
import { chainCurrencies, publishChainReading, publishSpendable } from '../db/repositories/hot-wallet-balance-repository.js';
import type { Database } from '../db/schema/index.js';
import type { PayoutTransactionRow } from '../db/schema/payouts.js';
import { Decimal } from '../domain/money.js';
import type { ChainPayer, TransactionState } from './chain-payer.js';
import { NodeBehind } from './fee-guard.js';
import { assetName, judgePayout, type SignerPolicy } from './policy.js';

export interface PayoutLoopSettings {
  /** PAYOUT_BATCH_SECONDS: a chain's requested payouts are signed together at most this often, ms. */
  batchIntervalMs: number;
  /** PAYOUT_CONFIRMATIONS: a payout is confirmed at this many confirmations. Default 1. */
  confirmations: number;
  /** Pause between passes, ms. */
  intervalMs: number;
}

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Test hooks at the points a crash matters (the signer's crash tests kill the process there).
 * Production passes none.
 */
export interface PayoutLoopHooks {
  /** After a signed transaction (a new one or a replacement) is committed, before it is broadcast. */
  afterStore?: (txid: string) => void | Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The signer's loop (docs/contract.md §11.2): per chain, follows the transactions in flight (broadcast
 * what was stored, confirm what is mined, broadcast again what was dropped), then signs the
 * chain's requested payouts as one batch.
 *
 * Signing is one database transaction: the chain is locked for signers, the payouts claimed
 * (FOR UPDATE SKIP LOCKED), each judged against the signer's own policy (policy.ts) with the
 * 24-hour sums read under that lock, the transaction built and signed, and the signed bytes and
 * txid stored with the payouts moved to `signed`. Only after that commits is it broadcast. A
 * crash anywhere leaves either nothing signed (the claim rolls back) or a stored transaction
 * that the next pass broadcasts byte for byte: the same txid, never a second signature.
 */
export class PayoutLoop {
  private readonly lastBatch = new Map<string, number>();
  /** Per chain, why its node was behind on the last pass (NodeBehind's reason), or null. */
  private readonly behind = new Map<string, NodeBehind['reason'] | undefined>();
  /** Per chain, whether the last pass found it paused (absent before the first pass). */
  private readonly shownPaused = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly payers: readonly ChainPayer[],
    private readonly policy: SignerPolicy,
    private readonly settings: PayoutLoopSettings,
    private readonly now: () => Date,
    private readonly logger: Logger,
    private readonly hooks: PayoutLoopHooks = {},
  ) {}

  async start(): Promise<void> {
    for (const payer of this.payers) await payer.start(this.db);
    this.stopped = false;
    const loop = (): void => {
      this.running = this.pass()
        .catch((error: unknown) => this.logger.error({ err: error }, 'signer pass failed'))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(loop, this.settings.intervalMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass over every chain; tests call it directly. A chain's failure does not stop the others. */
  async pass(): Promise<void> {
    for (const payer of this.payers) {
      let behind: NodeBehind | undefined;
      try {
        // What is already signed is followed to the end, paused or not: a brake stops new signatures.
        await this.follow(payer);
        const paused = await isPaused(this.db, payer.chain);
        // Requested payouts are marked while paused (new ones arrive), and unmarked once after a
        // resume (or at start): not an UPDATE on every pass of a chain that runs.
        if (paused || this.shownPaused.get(payer.chain) !== false) await showPause(this.db, payer.chain, paused, this.now());
        this.shownPaused.set(payer.chain, paused);
        const now = this.now().getTime();
        if (!paused && now - (this.lastBatch.get(payer.chain) ?? Number.NEGATIVE_INFINITY) >= this.settings.batchIntervalMs) {
          this.lastBatch.set(payer.chain, now);
          while (await this.signBatch(payer)) {
            // A full batch may have left more requested payouts: sign them too in this pass.
          }
        }
      } catch (error) {
        if (!(error instanceof NodeBehind)) this.logger.error({ err: error, chain: payer.chain }, 'signer pass failed on a chain');
        // Said once when it starts, not on every pass while the node catches up (the gauge stays).
        else if (this.behind.get(payer.chain) !== error.reason) this.logger.warn({ chain: payer.chain, reason: error.reason }, error.message);
        if (error instanceof NodeBehind) behind = error;
      }
      this.behind.set(payer.chain, behind?.reason);
      try {
        // Last, after what this pass signed took its coins: the API's quotes and gauges read it (docs/contract.md §11.7).
        await this.publishReadings(payer, behind?.message ?? null);
      } catch (error) {
        this.logger.error({ err: error, chain: payer.chain }, 'publishing what the hot wallet can pay failed');
      }
    }
  }

  /**
   * For the API (docs/contract.md §11.7): what the chain's hot wallet can pay now, per currency
   * (hot_wallet_balances), and the chain's last fee and whether its node is behind
   * (signer_chain_readings).
   */
  private async publishReadings(payer: ChainPayer, behind: string | null): Promise<void> {
    const fee = payer.lastFee;
    const chainReading = {
      chain: payer.chain,
      fee_unit: payer.feeUnit,
      fee_estimate: fee?.estimate?.toFixed() ?? null,
      fee_used: fee?.used.toFixed() ?? null,
      fee_bounds: [...(fee?.bounds ?? [])],
      node_behind: behind,
    };
    await publishChainReading(this.db, chainReading, this.now());
    const currencies = await chainCurrencies(this.db, payer.chain);
    const spendable = await payer.spendable(this.db, currencies);
    // A currency the payer cannot pay (a token it cannot read) is published as nothing to pay
    // with, never left at an older reading.
    const readings = new Map(currencies.map((currency) => [currency.id, spendable.get(currency.id)?.toFixed() ?? '0']));
    await publishSpendable(this.db, payer.chain, readings, this.now());
  }

  /**
   * Broadcasts what is stored, confirms what is mined deep enough, rebroadcasts what was dropped,
   * replaces what waited too long (payers with `replacement`: EVM). Of a replacement family
   * (the same nonce) every member is checked for a block, but only the newest is sent again or
   * replaced: the node holds one of a nonce. A transaction that could not be sent again (a
   * nonce gap, docs/contract.md §11.7) fails the pass after the others are followed, so no later
   * transaction of the chain is signed before the gap is filled.
   */
  private async follow(payer: ChainPayer): Promise<void> {
    const inFlight = await transactionsInFlight(this.db, payer.chain);
    const superseded = new Set(inFlight.flatMap((transaction) => (transaction.replaces_id === null ? [] : [transaction.replaces_id])));
    const settled = new Set<string>();
    let unsent: Error | undefined;
    for (const transaction of inFlight) {
      if (settled.has(transaction.id)) continue;
      try {
        await this.followOne(payer, transaction, superseded.has(transaction.id), settled);
      } catch (error) {
        this.logger.error({ err: error, chain: payer.chain, txid: transaction.txid }, 'payout transaction could not be followed or sent');
        unsent ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    if (unsent !== undefined) throw unsent;
  }

  private async followOne(payer: ChainPayer, transaction: PayoutTransactionRow, superseded: boolean, settled: Set<string>): Promise<void> {
    if (transaction.state === 'signed') {
      // Stored by a signer that stopped before it broadcast, or after but before it wrote so:
      // the node is asked first, and the same bytes go out only when it does not have them (an
      // EVM node answers a mined transaction sent again with "nonce too low", not "known").
      if ((await payer.state(transaction.txid)).kind === 'dropped') await payer.broadcast(transaction.raw);
      await markBroadcast(this.db, transaction.id, this.now());
      return;
    }
    const state = await payer.state(transaction.txid);
    switch (state.kind) {
      case 'confirmed':
        if (state.confirmations >= this.settings.confirmations) {
          for (const id of await markMined(this.db, transaction.id, state.confirmations, this.now(), state.fee)) settled.add(id);
          this.logger.info({ chain: payer.chain, txid: transaction.txid, confirmations: state.confirmations }, 'payout transaction confirmed');
        } else if (state.confirmations !== transaction.confirmations) {
          await recordConfirmations(this.db, transaction.id, state.confirmations);
        }
        break;
      case 'reverted':
        // Mined, but the call failed: nothing was paid. As deep as a confirmation, it is final.
        if (state.confirmations < this.settings.confirmations) break;
        for (const id of await markReverted(this.db, transaction.id, this.now(), state.fee)) settled.add(id);
        this.logger.error({ chain: payer.chain, txid: transaction.txid }, 'payout transaction mined but reverted: its payouts failed');
        break;
      case 'mempool':
        if (transaction.confirmations !== 0) await recordConfirmations(this.db, transaction.id, 0);
        if (!superseded) await this.replace(payer, transaction, state);
        break;
      case 'dropped':
        if (transaction.confirmations !== 0) await recordConfirmations(this.db, transaction.id, 0);
        // A replaced one is dropped by the node for its replacement: only the newest is sent.
        if (superseded || (await this.replace(payer, transaction, state))) break;
        // Evicted or reorged out: the same signed bytes again, never a new signature.
        this.logger.warn({ chain: payer.chain, txid: transaction.txid }, 'payout transaction not in the mempool or a block: broadcasting it again');
        await payer.broadcast(transaction.raw);
        break;
      case 'conflicted':
        // A coin it spends was spent by a mined transaction: it can never be mined.
        this.logger.error({ chain: payer.chain, txid: transaction.txid }, 'payout transaction conflicted: its payouts are requested again');
        await markConflicted(this.db, transaction.id, this.now());
        break;
    }
  }

  /**
   * Asks the payer for a replacement of `transaction`; stores it (before broadcasting, like any
   * signed transaction), then broadcasts it. True when one was made.
   */
  private async replace(payer: ChainPayer, transaction: PayoutTransactionRow, state: TransactionState): Promise<boolean> {
    if (payer.replacement === undefined) return false;
    const replacement = payer.replacement.bind(payer);
    const now = this.now();
    const stored = await this.db.transaction().execute(async (tx) => {
      await lockChain(tx, payer.chain);
      // Another signer may have replaced it since it was read: only the newest is replaced. A
      // replacement is a new signature: a paused chain gets none (the same bytes still go out).
      if ((await isReplaced(tx, transaction.id)) || (await isPaused(tx, payer.chain))) return undefined;
      const signed = await replacement(tx, transaction, state);
      if (signed === undefined) return undefined;
      const id = await storeReplacement(tx, transaction.id, signed, now);
      return { id, txid: signed.txid, raw: signed.raw };
    });
    if (stored === undefined) return false;
    this.logger.warn({ chain: payer.chain, txid: transaction.txid, replacement: stored.txid, nonce: transaction.nonce }, 'payout transaction not mined in time: replaced with higher fees, the same nonce');
    await this.hooks.afterStore?.(stored.txid);
    await payer.broadcast(stored.raw);
    await markBroadcast(this.db, stored.id, this.now());
    return true;
  }

  /** Signs and stores one batch, then broadcasts it. True when it signed one (there may be more). */
  private async signBatch(payer: ChainPayer): Promise<boolean> {
    const now = this.now();
    const signed = await this.db.transaction().execute(async (tx) => {
      await lockChain(tx, payer.chain);
      // A pause that came after the pass looked is honoured too.
      if (await isPaused(tx, payer.chain)) return undefined;
      const claimed = await claimRequestedPayouts(tx, payer.chain, payer.batchMax);
      if (claimed.length === 0) return undefined;
      const toSign: ClaimedPayout[] = [];
      const sums = new Map<string, Decimal>();
      for (const payout of claimed) {
        const signedLast24h = sums.get(payout.currency_id) ?? new Decimal(await signedSince(tx, payout.currency_id, new Date(now.getTime() - DAY_MS)));
        const verdict = judgePayout(
          {
            asset: assetName(payout.coin, payout.network),
            amount: new Decimal(payout.amount),
            expectedAmount: new Decimal(payout.expected_amount ?? '0'),
            toOwnAddress: payout.to_own_address,
            approved: payout.approved_by !== null,
          },
          this.policy,
          signedLast24h,
        );
        if (verdict.action === 'refuse') {
          await failPayout(tx, payout.id, `policy: ${verdict.reason}`, now);
          this.logger.warn({ payout_id: payout.id, chain: payout.chain, reason: verdict.reason }, 'payout refused by the signer policy');
        } else if (verdict.action === 'await_approval') {
          await awaitApproval(tx, payout.id, verdict.reason, now);
          this.logger.info({ payout_id: payout.id, chain: payout.chain, reason: verdict.reason }, 'payout waits for an operator approval');
        } else {
          toSign.push(payout);
          sums.set(payout.currency_id, signedLast24h.plus(payout.amount));
        }
      }
      // The payer pays as many as the hot wallet covers (ChainPayer.sign); the rest wait, `awaiting_liquidity`.
      const outcome = toSign.length === 0 ? undefined : await payer.sign(tx, toSign);
      if (outcome?.kind === 'signed') {
        await outcome.take(tx);
        const transactionId = await storeSignedTransaction(
          tx,
          outcome.transaction,
          outcome.paid.map((payout, i) => ({ id: payout.id, fee: outcome.fees[i] as string })),
          now,
        );
        const waiting = toSign.filter((payout) => !outcome.paid.includes(payout));
        await setWaitReason(tx, waiting.map((payout) => payout.id), 'awaiting_liquidity', now);
        if (waiting.length > 0) this.logger.warn({ chain: payer.chain, payouts: waiting.length }, 'the hot wallet cannot cover every requested payout: the rest wait for liquidity');
        const count = outcome.paid.length;
        return { id: transactionId, txid: outcome.transaction.txid, raw: outcome.transaction.raw, count, more: claimed.length === payer.batchMax };
      }
      if (toSign.length > 0) {
        await setWaitReason(tx, toSign.map((payout) => payout.id), 'awaiting_liquidity', now);
        this.logger.warn({ chain: payer.chain, payouts: toSign.length }, 'the hot wallet cannot cover the requested payouts: they wait for liquidity');
      }
      return undefined;
    });
    if (signed === undefined) return false;
    this.logger.info({ chain: payer.chain, txid: signed.txid, payouts: signed.count }, 'payout transaction signed and stored');
    await this.hooks.afterStore?.(signed.txid);
    await payer.broadcast(signed.raw);
    await markBroadcast(this.db, signed.id, this.now());
    this.logger.info({ chain: payer.chain, txid: signed.txid }, 'payout transaction broadcast');
    return signed.more && signed.count === payer.batchMax;
  }
}
