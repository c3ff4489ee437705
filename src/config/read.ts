import { isIP } from 'node:net';
import { Decimal, DECIMAL_PATTERN } from '../domain/money.js';
import { SIGNED_CHAINS } from '../signer/hot-wallet.js';
import { variableSchema, type Variable } from './schema.js';

/**
 * Reading the environment: each variable's text checked and turned into a value, a bad one a
 * ConfigError naming it. Defaults and bounds come from the schema (config/schema.ts); how the
 * values make the service's settings is config.ts's.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export const PRICE_SOURCE_NAMES = ['static', 'binance', 'coinbase'] as const;
export type PriceSourceName = (typeof PRICE_SOURCE_NAMES)[number];

/** An IP_BLOCKLIST entry. */
export interface BlockedSubnet {
  readonly address: string;
  /** Prefix length in bits: 0–32 (ipv4), 0–128 (ipv6). */
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** An integer variable of the schema: its default and bounds are the schema's. */
export function integer(env: Env, name: Variable): number {
  const schema = variableSchema(name);
  const fallback = schema.default;
  if (typeof fallback !== 'number' && optional(env, name) === undefined) throw new ConfigError(name, 'is required here');
  return integerWithin(env, name, fallback as number, schema.minimum ?? 0, schema.maximum ?? Number.MAX_SAFE_INTEGER);
}

/** An integer variable outside the schema (a family such as SIGNER_FEE_MAX_AGE_SECONDS_<CHAIN>, the signer's own). */
export function integerWithin(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

/** Accepts 64 hex characters or the base64/base64url spelling of 32 bytes. */
export function parseSecretsKey(raw: string | undefined): Buffer | undefined {
  return parseKey32('SECRETS_KEY', raw);
}

/** A 32-byte key named `variable`: 64 hex characters or the base64/base64url spelling. */
export function parseKey32(variable: string, raw: string | undefined): Buffer | undefined {
  if (raw === undefined) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(raw)
      ? Buffer.from(raw, 'base64url')
      : undefined;
  if (key?.length !== 32) {
    throw new ConfigError(variable, 'must be 32 bytes as 64 hex characters or base64');
  }
  return key;
}

/**
 * A variable that is one of a few words, as the schema lists them; `fallback` for a variable whose
 * default depends on others (the schema has none), else the schema's default.
 */
export function oneOf(env: Env, name: Variable, fallback?: string): string {
  const schema = variableSchema(name);
  const allowed = (schema.anyOf ?? []).map((option) => option.const);
  const value = optional(env, name) ?? fallback ?? (schema.default as string);
  if (!allowed.includes(value)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}`);
  return value;
}

/** A text variable, or its default in the schema (undefined where it has none). */
export function text(env: Env, name: Variable): string | undefined {
  return optional(env, name) ?? (variableSchema(name).default as string | undefined);
}

/** A text variable that has a default in the schema. */
export function defaulted(env: Env, name: Variable): string {
  const value = text(env, name);
  if (value === undefined) throw new Error(`${name} has no default in config/schema.ts`);
  return value;
}

export function decimalText(env: Env, name: Variable): string {
  const value = text(env, name) ?? '';
  if (!/^\d{1,3}(\.\d{1,6})?$/.test(value)) throw new ConfigError(name, 'must be a decimal number such as 0.5');
  return value;
}

/** HOT_WALLET_MIN_<ASSET> and HOT_WALLET_MAX_<ASSET>: non-negative decimals, the maximum not below the minimum. */
export function parseHotWalletThresholds(env: Env): Record<string, { min?: string; max?: string }> {
  const found: Record<string, { min?: string; max?: string }> = {};
  for (const name of Object.keys(env)) {
    const match = /^HOT_WALLET_(MIN|MAX)_([A-Z0-9_]+)$/.exec(name);
    const value = optional(env, name);
    if (match === null || value === undefined) continue;
    if (!new RegExp(DECIMAL_PATTERN).test(value)) throw new ConfigError(name, 'must be an amount of the asset, a decimal such as 2.5');
    const asset = match[2] as string;
    found[asset] = { ...found[asset], [match[1] === 'MIN' ? 'min' : 'max']: new Decimal(value).toFixed() };
  }
  for (const [asset, { min, max }] of Object.entries(found)) {
    if (min !== undefined && max !== undefined && new Decimal(max).lt(min)) throw new ConfigError(`HOT_WALLET_MAX_${asset}`, `below HOT_WALLET_MIN_${asset}`);
  }
  return found;
}

/** `{ BTC: value }` for every set `<prefix>BTC` variable. */
export function prefixed(env: Env, prefix: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    if (!name.startsWith(prefix)) continue;
    const chain = name.slice(prefix.length);
    const value = optional(env, name);
    if (!/^[A-Z0-9]{1,12}$/.test(chain)) throw new ConfigError(name, 'the chain part must be upper-case A-Z 0-9');
    if (value !== undefined) found[chain] = value;
  }
  return found;
}

/** `{ LTC: value }` for every set `<prefix>LTC<suffix>` variable. */
export function surrounded(env: Env, prefix: string, suffix: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    if (!name.startsWith(prefix) || !name.endsWith(suffix) || name.length <= prefix.length + suffix.length) continue;
    const chain = name.slice(prefix.length, -suffix.length);
    const value = optional(env, name);
    if (!/^[A-Z0-9]{1,12}$/.test(chain)) throw new ConfigError(name, 'the chain part must be upper-case A-Z 0-9');
    if (value !== undefined) found[chain] = value;
  }
  return found;
}

/** Node URLs must be http(s); credentials may ride in the URL (never logged). */
export function parseRpcUrls(urls: Record<string, string>): Record<string, string> {
  for (const [chain, url] of Object.entries(urls)) urlWithin(`CHAIN_${chain}_RPC_URL`, url, ['http:', 'https:']);
  return urls;
}

/** `raw` as a URL of one of `protocols` (`'https:'`), else a ConfigError naming `name`. */
export function urlWithin(name: string, raw: string, protocols: readonly string[], unparsable?: string): URL {
  const problem = `must be an ${protocols.map((protocol) => `${protocol}//`).join(' or ')} URL`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, unparsable ?? problem);
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(name, problem);
  return url;
}

export function parsePriceSources(raw: string | undefined): PriceSourceName[] {
  if (raw === undefined) return ['static'];
  const names = [...new Set(raw.split(',').map((name) => name.trim().toLowerCase()))];
  for (const name of names) {
    if (!(PRICE_SOURCE_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError('PRICE_SOURCES', `"${name}" is not one of ${PRICE_SOURCE_NAMES.join(', ')}`);
    }
  }
  return names as PriceSourceName[];
}

/** PAYOUT_SIGNER_CHAINS: chain codes the signer holds a hot wallet for, upper case, each once. */
export function parseSignerChains(raw: string | undefined, databaseUrl: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const chains = [...new Set(raw.split(',').map((chain) => chain.trim().toUpperCase()))];
  for (const chain of chains) {
    // DOGE has hot-wallet keys but no payer yet: its payouts would wait for ever.
    if (!SIGNED_CHAINS.includes(chain)) throw new ConfigError('PAYOUT_SIGNER_CHAINS', `the signer pays no chain "${chain}" (it pays ${SIGNED_CHAINS.join(', ')})`);
  }
  if (databaseUrl === undefined) throw new ConfigError('PAYOUT_SIGNER_CHAINS', 'needs DATABASE_URL: the signer is its own process and reaches payouts through PostgreSQL');
  return chains;
}

/** REGION_BLOCKLIST's countries, upper case, each once. */
export function parseCountries(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const codes = [...new Set(raw.split(',').map((code) => code.trim().toUpperCase()))];
  for (const code of codes) {
    if (!/^[A-Z]{2}$/.test(code)) {
      throw new ConfigError('REGION_BLOCKLIST', `"${code}" is not an ISO 3166-1 alpha-2 country code (two letters, e.g. CU,IR,KP)`);
    }
    // The one common slip: the United Kingdom's code is GB; UK would silently match nobody.
    if (code === 'UK') throw new ConfigError('REGION_BLOCKLIST', '"UK" is not an ISO 3166-1 alpha-2 code: the United Kingdom is GB');
  }
  return codes;
}

/** IP_BLOCKLIST's subnets: `address/prefix`, or a bare address (a /32 or /128). */
export function parseCidrs(raw: string | undefined): BlockedSubnet[] {
  if (raw === undefined) return [];
  return raw.split(',').map((entry) => {
    const text = entry.trim();
    const [address = '', bits, extra] = text.split('/');
    const family = isIP(address) === 4 ? 'ipv4' : isIP(address) === 6 && !address.includes('%') ? 'ipv6' : undefined;
    const maxBits = family === 'ipv4' ? 32 : 128;
    if (family === undefined || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError('IP_BLOCKLIST', `"${text}" is not an IPv4 or IPv6 CIDR (e.g. 203.0.113.0/24 or 2001:db8::/32)`);
    }
    return Object.freeze({ address, prefix: bits === undefined ? maxBits : Number(bits), family });
  });
}

export function parseTrustProxy(raw: string | undefined): boolean | number | string[] {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError('TRUST_PROXY', `"${entry}" is not true, false, a hop count or an address/CIDR`);
    }
  }
  return entries;
}

/** `host:port,host:port` (spaces around entries allowed); at least one entry. */
export function parseRedisSentinels(value: string | undefined): { host: string; port: number }[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((entry) => {
    const match = /^\s*([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):([0-9]{1,5})\s*$/.exec(entry);
    const port = Number(match?.[2]);
    if (match?.[1] === undefined || port < 1 || port > 65_535) throw new ConfigError('REDIS_SENTINELS', `must be host:port entries separated by commas, got "${entry.trim()}"`);
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
}

export function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const url = urlWithin('PUBLIC_URL', raw, ['http:', 'https:'], 'must be an absolute http:// or https:// URL');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError('PUBLIC_URL', 'must have no query, fragment or credentials');
  }
  // A path prefix is kept (a proxy may serve the service under one); no trailing slash.
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** LOG_LEVEL (default info): every process of the service reads it the same way. */
export function parseLogLevel(env: Env): LogLevel {
  return oneOf(env, 'LOG_LEVEL') as LogLevel;
}
