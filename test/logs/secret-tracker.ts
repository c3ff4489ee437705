import { AssertionError } from 'node:assert';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/app-types.js';

/** Request headers that carry credentials. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-signature'] as const;

/**
 * Shorter or more uniform values are not credentials (a fuzzer's "aaaa…" or "Bearer x"), and
 * may legitimately appear in a log line for another reason (a logged URL that holds the same
 * junk). Every real credential here is 43+ random characters.
 */
const MIN_LENGTH = 16;
const MIN_DISTINCT_CHARS = 8;

function credentialLike(value: string): boolean {
  return value.length >= MIN_LENGTH && new Set(value).size >= MIN_DISTINCT_CHARS;
}

type Inject = App['inject'];

/**
 * Every credential a test app handed out or received, and the check that none of them reached
 * the logs. `wrapInject` replaces `app.inject` so that every request's Authorization, X-API-Key
 * and X-Signature values, and every `api_key` a response returns, are recorded on the way.
 */
export class SecretTracker {
  /** value → what it is (never printed: a failure names the kind, not the value). */
  private readonly values = new Map<string, string>();
  /**
   * What the tests sent in places the app may log (URLs, other headers such as Accept-Version,
   * which Fastify logs as `version`). A credential that a test also put there is not counted:
   * finding it in a log line says nothing about the app (a fuzzer reuses its junk values).
   */
  private readonly publicValues = new Set<string>();

  get size(): number {
    return this.values.size;
  }

  /** Records a credential; `<key_id>.<secret>` keys also record the secret on its own. */
  add(value: string, label: string): void {
    if (!credentialLike(value) || this.values.has(value)) return;
    this.values.set(value, label);
    const dot = value.indexOf('.');
    if (dot > 0) {
      const secret = value.slice(dot + 1);
      if (credentialLike(secret) && !this.values.has(secret)) this.values.set(secret, `${label} (secret part)`);
    }
  }

  noteRequest(options: InjectOptions): void {
    const url = options.url ?? options.path;
    if (typeof url === 'string') this.notePublic(url);
    for (const [name, raw] of Object.entries(options.headers ?? {})) {
      const lower = name.toLowerCase();
      if (raw === undefined) continue;
      if (!(CREDENTIAL_HEADERS as readonly string[]).includes(lower)) {
        for (const value of Array.isArray(raw) ? raw : [raw]) this.notePublic(String(value));
        continue;
      }
      for (const value of Array.isArray(raw) ? raw : [raw]) {
        const text = String(value);
        const label = `${lower} header`;
        this.add(text, label);
        // "Bearer <token>": the token alone is the credential.
        const token = /^\s*\S+\s+(.+?)\s*$/.exec(text)?.[1];
        if (token !== undefined) this.add(token, label);
        // "k1, k2": duplicated headers joined the way Node joins them.
        for (const part of text.split(',')) this.add(part.trim(), label);
      }
    }
  }

  private notePublic(value: string): void {
    // Too short or uniform to hold a credential-like substring.
    if (value.length >= MIN_LENGTH && new Set(value).size >= MIN_DISTINCT_CHARS) this.publicValues.add(value);
  }

  noteResponse(response: LightMyRequestResponse): void {
    if (!response.body.includes('"api_key"')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      return;
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const apiKey = (item as { api_key?: unknown } | null)?.api_key;
      if (typeof apiKey === 'string') this.add(apiKey, 'issued API key');
    }
  }

  /** Replaces `app.inject` (promise and callback forms) with one that records credentials. */
  wrapInject(app: App): void {
    const original = app.inject.bind(app) as (...args: unknown[]) => unknown;
    const wrapped = (options?: InjectOptions | string, callback?: (error: unknown, res?: LightMyRequestResponse) => void) => {
      // The chain form (inject() without options) sets headers later: not tracked.
      if (options === undefined) return original();
      if (typeof options === 'object') this.noteRequest(options);
      if (callback !== undefined) {
        return original(options, (error: unknown, res?: LightMyRequestResponse) => {
          if (res !== undefined) this.noteResponse(res);
          callback(error, res);
        });
      }
      return (original(options) as Promise<LightMyRequestResponse>).then((res) => {
        this.noteResponse(res);
        return res;
      });
    };
    (app as { inject: Inject }).inject = wrapped as Inject;
  }

  /** Lines of `logs` that hold a recorded credential, raw or as JSON escapes it. */
  findIn(logs: readonly string[]): Array<{ line: number; label: string }> {
    const sentInPublic = new Set<string>();
    const raw = new Map([...this.values].map(([value, label]) => [value, label]));
    for (const text of this.publicValues) for (const value of searchAll(text, raw)) sentInPublic.add(value);
    const patterns = new Map<string, string>();
    for (const [value, label] of this.values) {
      if (sentInPublic.has(value)) continue;
      patterns.set(value, label);
      patterns.set(JSON.stringify(value).slice(1, -1), label);
    }
    const found: Array<{ line: number; label: string }> = [];
    logs.forEach((text, line) => {
      for (const pattern of searchAll(text, patterns)) found.push({ line, label: patterns.get(pattern) ?? 'credential' });
    });
    return found;
  }

  assertNotIn(logs: readonly string[]): void {
    const found = this.findIn(logs);
    if (found.length === 0) return;
    const lines = found.slice(0, 5).map(({ line, label }) => `  log line ${line}: ${label}: ${this.mask(logs[line] ?? '')}`);
    throw new AssertionError({
      message: `${found.length} log line(s) hold a credential:\n${lines.join('\n')}`,
    });
  }

  /** The line with every recorded credential replaced, so the failure itself leaks nothing. */
  private mask(line: string): string {
    let masked = line;
    for (const [value, label] of this.values) masked = masked.split(value).join(`[${label}]`);
    return masked.slice(0, 2000);
  }
}

/**
 * Multi-pattern search (Rabin-Karp on the first MIN_LENGTH characters of every pattern), so a
 * suite with thousands of credentials and tens of thousands of log lines stays linear.
 */
/** The patterns (keys of `patterns`) that occur in `text`. */
function searchAll(text: string, patterns: ReadonlyMap<string, string>): Set<string> {
  const found = new Set<string>();
  if (text.length < MIN_LENGTH) return found;
  const byHash = index(patterns);
  const B = 31;
  let power = 1;
  for (let i = 0; i < MIN_LENGTH - 1; i++) power = Math.imul(power, B);
  let hash = 0;
  for (let i = 0; i < MIN_LENGTH; i++) hash = (Math.imul(hash, B) + text.charCodeAt(i)) | 0;
  for (let start = 0; ; start++) {
    const candidates = byHash.get(hash);
    if (candidates !== undefined) {
      for (const [pattern] of candidates) if (text.startsWith(pattern, start)) found.add(pattern);
    }
    const end = start + MIN_LENGTH;
    if (end >= text.length) break;
    hash = (Math.imul(hash - Math.imul(text.charCodeAt(start), power), B) + text.charCodeAt(end)) | 0;
  }
  return found;
}

const indexCache = new WeakMap<ReadonlyMap<string, string>, Map<number, Array<[string, string]>>>();
function index(patterns: ReadonlyMap<string, string>): Map<number, Array<[string, string]>> {
  const cached = indexCache.get(patterns);
  if (cached !== undefined) return cached;
  const byHash = new Map<number, Array<[string, string]>>();
  for (const [pattern, label] of patterns) {
    if (pattern.length < MIN_LENGTH) continue;
    let hash = 0;
    for (let i = 0; i < MIN_LENGTH; i++) hash = (Math.imul(hash, 31) + pattern.charCodeAt(i)) | 0;
    const list = byHash.get(hash) ?? [];
    list.push([pattern, label]);
    byHash.set(hash, list);
  }
  indexCache.set(patterns, byHash);
  return byHash;
}
