import { parseArgs } from 'node:util';
import { UsageError } from './admin-errors.js';

/** Every option any command takes; each command then names the ones it accepts. */
const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  url: { type: 'string' },
  token: { type: 'string' },
  name: { type: 'string' },
  email: { type: 'string' },
  'markup-bps': { type: 'string' },
  'rate-limit': { type: 'string' },
  'max-open-orders': { type: 'string' },
  active: { type: 'string' },
  deposit: { type: 'string' },
  withdraw: { type: 'string' },
  'min-amount': { type: 'string' },
  'max-amount': { type: 'string' },
  'payout-fee': { type: 'string' },
  confirmations: { type: 'string' },
  amount: { type: 'string' },
  txid: { type: 'string' },
  count: { type: 'string' },
  permanent: { type: 'boolean' },
  sandbox: { type: 'boolean' },
  client: { type: 'boolean' },
  'clear-2fa': { type: 'boolean' },
  live: { type: 'boolean' },
  status: { type: 'string' },
  partner: { type: 'string' },
  limit: { type: 'string' },
  reason: { type: 'string' },
  address: { type: 'string' },
  tag: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  chain: { type: 'string' },
  by: { type: 'string' },
  decimals: { type: 'string' },
  contract: { type: 'string' },
  'price-symbol': { type: 'string' },
  at: { type: 'string' },
  csv: { type: 'boolean' },
  actor: { type: 'string' },
  action: { type: 'string' },
  target: { type: 'string' },
  cursor: { type: 'string' },
  period: { type: 'string' },
  role: { type: 'string' },
} as const;

type GlobalOption = 'json' | 'help' | 'url' | 'token';
/** A command-specific option: a switch (boolean) or one taking a value (string). */
export type FlagName = Exclude<keyof typeof OPTIONS, GlobalOption>;
export type Flags = { [Name in FlagName]?: (typeof OPTIONS)[Name]['type'] extends 'boolean' ? boolean : string };

export interface CommandLine {
  positionals: string[];
  flags: Flags;
  json: boolean;
  help: boolean;
  url: string | undefined;
  token: string | undefined;
}

export function parseCommandLine(argv: string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs names the option, never its value, so a mistyped --token is not echoed.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { json, help, url, token, ...flags } = parsed.values;
  return { positionals: parsed.positionals, flags, json: json ?? false, help: help ?? false, url, token };
}

/** A whole number for an integer field; the API checks the range and says so in its detail. */
export function integerFlag(name: FlagName, raw: string): number {
  return wholeNumber(`--${name}`, raw);
}

/** The same check for a positional argument or an option, named as the usage text names it. */
export function wholeNumber(label: string, raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new UsageError(`${label} must be a whole number, got "${raw}"`);
  }
  return value;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A moment for the API's date-time parameters: a date (`2026-01-01`, the start of that day in
 * UTC) or an ISO 8601 date-time with its offset, sent as the API's own ISO form.
 */
export function momentFlag(name: FlagName, raw: string): string {
  const problem = new UsageError(`--${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time with an offset (2026-01-01T12:00:00Z), got "${raw}"`);
  if (DATE.test(raw)) {
    const day = new Date(`${raw}T00:00:00.000Z`);
    // 2026-02-30 parses as a day in March: the round trip refuses it.
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== raw) throw problem;
    return day.toISOString();
  }
  const moment = DATE_TIME.test(raw) ? new Date(raw) : undefined;
  if (moment === undefined || Number.isNaN(moment.getTime())) throw problem;
  return moment.toISOString();
}

export function booleanFlag(name: FlagName, raw: string): boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new UsageError(`--${name} must be true or false, got "${raw}"`);
}

/** Kept as the decimal string typed, so the API receives it exactly (no binary float on the way). */
export function amountFlag(name: FlagName, raw: string): string {
  return decimalAmount(`--${name}`, raw);
}

export function decimalAmount(label: string, raw: string): string {
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new UsageError(`${label} must be a decimal amount like 0.0003, got "${raw}"`);
  return raw;
}
