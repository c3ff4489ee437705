import { ConfigError, defaulted, integer, integerWithin, optional, parseLogLevel, type Env, type LogLevel } from '../config.js';
import { Decimal, DECIMAL_PATTERN, toBaseUnits } from '../domain/money.js';
import type { FeeBounds } from './bitcoin/bitcoin-payer.js';
import type { EvmFeeBounds } from './evm/evm-fees.js';
import { DEFAULT_FEE_GUARD, type FeeGuardSettings } from './fee-guard.js';
import { HOT_WALLET_CHAINS, SIGNED_CHAINS } from './hot-wallet.js';
import { parseSignerPolicy, type SignerPolicy } from './policy.js';


/** The EVM chains among them: one account (the EVM key's funding address), one nonce sequence each. */
export const EVM_CHAINS: readonly string[] = ['ETH', 'BSC'];

export interface SignerConfig {
  databaseUrl: string;
  logLevel: LogLevel;
  /** CHAIN_<CHAIN>_RPC_URL of each chain the signer pays (a chain without one is not paid). */
  rpcUrls: Readonly<Record<string, string>>;
  policy: SignerPolicy;
  /** PAYOUT_BATCH_MAX (default 50): payouts per transaction at most. */
  batchMax: number;
  /** PAYOUT_BATCH_SECONDS (default 30), in ms. */
  batchIntervalMs: number;
  /** PAYOUT_CONFIRMATIONS (default 1). */
  confirmations: number;
  /** SIGNER_INTERVAL_MS (default 2000): pause between passes. */
  intervalMs: number;
  /** SIGNER_FEE_RATE_MIN_<CHAIN> / SIGNER_FEE_RATE_MAX_<CHAIN>, satoshis per vbyte (Bitcoin family). */
  fees: Readonly<Record<string, FeeBounds>>;
  /** SIGNER_MIN_PRIORITY_FEE_GWEI_<CHAIN> / SIGNER_MAX_FEE_GWEI_<CHAIN>, in wei per gas (EVM chains). */
  evmFees: Readonly<Record<string, EvmFeeBounds>>;
  /**
   * Per chain: SIGNER_FEE_MAX_JUMP (default 3), SIGNER_FEE_MAX_BLOCK_LAG (default 2) and
   * SIGNER_FEE_MAX_AGE_SECONDS_<CHAIN> (default 7200 on Bitcoin-family chains, 600 on EVM chains):
   * what a fee estimate must pass (fee-guard.ts).
   */
  feeGuards: Readonly<Record<string, FeeGuardSettings>>;
  /** SIGNER_CHAIN_ID_<CHAIN> (optional, EVM chains): the chain id the node must report, else the signer does not start. */
  chainIds: Readonly<Record<string, number>>;
  /** EVM_REPLACE_AFTER_BLOCKS (default 12): an EVM transaction not mined this many blocks after it was sent is replaced. */
  replaceAfterBlocks: number;
  /** SIGNER_WALLET_BIRTHDAY (unix seconds, default 0): where the node's wallet rescans from. */
  walletBirthday: number;
}

/** Satoshis per vbyte when the operator sets none: the relay minimum, and a ceiling no sane estimate passes. */
const DEFAULT_FEE_RATE = { min: '1', max: '500' } as const;

/**
 * Gwei per gas when the operator sets none: a tip floor a block builder still takes, and a fee
 * cap ceiling no sane estimate passes on the chain (Ethereum's base fee rarely tops 100 gwei,
 * BNB Smart Chain's gas price is a few gwei at most).
 */
const DEFAULT_EVM_FEES: Readonly<Record<string, { minPriority: string; max: string }>> = {
  ETH: { minPriority: '0.01', max: '500' },
  BSC: { minPriority: '0.05', max: '50' },
};

/**
 * The signer's configuration, from the signer's environment only (docs/contract.md §11.1): it reaches
 * PostgreSQL (its own role, docs/security.md) and each chain's node; its limits are its own.
 */
export function loadSignerConfig(env: Env): SignerConfig {
  const databaseUrl = optional(env, 'DATABASE_URL');
  if (databaseUrl === undefined) throw new ConfigError('DATABASE_URL', 'the signer needs PostgreSQL: it works from the payouts table through its own role');
  const rpcUrls: Record<string, string> = {};
  const fees: Record<string, FeeBounds> = {};
  const evmFees: Record<string, EvmFeeBounds> = {};
  const chainIds: Record<string, number> = {};
  const feeGuards: Record<string, FeeGuardSettings> = {};
  const maxJump = jump(env);
  const maxBlockLag = integer(env, 'SIGNER_FEE_MAX_BLOCK_LAG');
  for (const chain of Object.keys(HOT_WALLET_CHAINS)) {
    const url = optional(env, `CHAIN_${chain}_RPC_URL`);
    if (url === undefined) continue;
    if (!SIGNED_CHAINS.includes(chain)) continue;
    if (!/^https?:\/\//.test(url)) throw new ConfigError(`CHAIN_${chain}_RPC_URL`, 'must be an http:// or https:// URL');
    rpcUrls[chain] = url;
    // An EVM chain makes a block every few seconds; a Bitcoin-family one may wait an hour or more.
    const ageDefault = EVM_CHAINS.includes(chain) ? 600 : DEFAULT_FEE_GUARD.maxAgeSeconds;
    feeGuards[chain] = { maxJump, maxBlockLag, maxAgeSeconds: integerWithin(env, `SIGNER_FEE_MAX_AGE_SECONDS_${chain}`, ageDefault, 60, 7 * 24 * 3600) };
    const evmDefaults = DEFAULT_EVM_FEES[chain];
    if (EVM_CHAINS.includes(chain) && evmDefaults !== undefined) {
      const minPriorityFee = gwei(env, `SIGNER_MIN_PRIORITY_FEE_GWEI_${chain}`, evmDefaults.minPriority, true);
      const maxFee = gwei(env, `SIGNER_MAX_FEE_GWEI_${chain}`, evmDefaults.max, false);
      if (maxFee < minPriorityFee) throw new ConfigError(`SIGNER_MAX_FEE_GWEI_${chain}`, `below SIGNER_MIN_PRIORITY_FEE_GWEI_${chain}`);
      evmFees[chain] = { minPriorityFee, maxFee };
      if (optional(env, `SIGNER_CHAIN_ID_${chain}`) !== undefined) chainIds[chain] = integerWithin(env, `SIGNER_CHAIN_ID_${chain}`, 0, 1, Number.MAX_SAFE_INTEGER);
      continue;
    }
    const min = feeRate(env, `SIGNER_FEE_RATE_MIN_${chain}`, DEFAULT_FEE_RATE.min);
    const max = feeRate(env, `SIGNER_FEE_RATE_MAX_${chain}`, DEFAULT_FEE_RATE.max);
    if (max.lt(min)) throw new ConfigError(`SIGNER_FEE_RATE_MAX_${chain}`, `below SIGNER_FEE_RATE_MIN_${chain}`);
    fees[chain] = { min, max, targetBlocks: integer(env, 'SIGNER_FEE_TARGET_BLOCKS') };
  }
  return {
    databaseUrl,
    logLevel: parseLogLevel(env),
    rpcUrls,
    policy: parseSignerPolicy(env),
    batchMax: integer(env, 'PAYOUT_BATCH_MAX'),
    batchIntervalMs: integer(env, 'PAYOUT_BATCH_SECONDS') * 1000,
    confirmations: integer(env, 'PAYOUT_CONFIRMATIONS'),
    intervalMs: integer(env, 'SIGNER_INTERVAL_MS'),
    fees,
    evmFees,
    feeGuards,
    chainIds,
    replaceAfterBlocks: integer(env, 'EVM_REPLACE_AFTER_BLOCKS'),
    walletBirthday: integer(env, 'SIGNER_WALLET_BIRTHDAY'),
  };
}

/** SIGNER_FEE_MAX_JUMP: a multiple above 1, like 3 or 2.5. */
function jump(env: Env): Decimal {
  const raw = defaulted(env, 'SIGNER_FEE_MAX_JUMP');
  if (!new RegExp(DECIMAL_PATTERN).test(raw) || new Decimal(raw).lte(1)) throw new ConfigError('SIGNER_FEE_MAX_JUMP', 'must be a number above 1, like 3: how many times the last fee used an estimate may be');
  return new Decimal(raw);
}

function feeRate(env: Env, name: string, fallback: string): Decimal {
  const raw = optional(env, name) ?? fallback;
  if (!new RegExp(DECIMAL_PATTERN).test(raw) || new Decimal(raw).lte(0)) throw new ConfigError(name, 'must be a positive number of satoshis per vbyte, like 2.5');
  return new Decimal(raw);
}

/** Gwei (up to 9 decimals) to wei. The floor may be zero; the ceiling must be positive. */
function gwei(env: Env, name: string, fallback: string, zeroAllowed: boolean): bigint {
  const raw = optional(env, name) ?? fallback;
  const valid = new RegExp(DECIMAL_PATTERN).test(raw) && (zeroAllowed ? new Decimal(raw).gte(0) : new Decimal(raw).gt(0)) && new Decimal(raw).decimalPlaces() <= 9;
  if (!valid) throw new ConfigError(name, `must be a ${zeroAllowed ? 'non-negative' : 'positive'} number of gwei per gas with at most 9 decimals, like 1.5`);
  return toBaseUnits(new Decimal(raw), 9);
}
