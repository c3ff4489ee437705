import { parse } from 'lossless-json';
import { AdapterError } from '../adapters.js';
import { readCappedBody, type CappedBody } from '../../http-body.js';

export interface JsonRpcOptions {
  /** Per call, ms. Default 10000: a hung node must not hold the worker pass for long. */
  timeoutMs?: number;
  /** Reply size cap, bytes. Default DEFAULT_MAX_REPLY_BYTES. */
  maxReplyBytes?: number;
}

/**
 * Default cap on one reply, bytes: 64 MiB. The largest honest replies are whole blocks with
 * their transactions (a full Bitcoin block at getblock verbosity 2 is some 10 to 20 MB of JSON);
 * a node that answers more, compromised or misconfigured, is refused instead of filling memory.
 */
export const DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024;

/**
 * A minimal JSON-RPC 1.0/2.0 client over fetch, for bitcoind-family and EVM nodes. Plain fetch
 * rather than a library: the watchers need a handful of read calls, and amounts must be
 * parsed exactly, which `lossless` gives (a JSON number becomes a LosslessNumber whose
 * `toString()` is its literal). Credentials in the URL (`http://user:pass@host:port`) are sent
 * as HTTP Basic auth and never appear in errors or logs (`label`).
 */
export class JsonRpcClient {
  /** `http://host:port/path` with the credentials removed: safe to log. */
  readonly label: string;
  private readonly url: string;
  private readonly authorization: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxReplyBytes: number;
  private nextId = 1;

  constructor(url: string, options: JsonRpcOptions = {}) {
    const parsed = new URL(url);
    this.authorization =
      parsed.username === ''
        ? undefined
        : `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`;
    parsed.username = '';
    parsed.password = '';
    this.url = parsed.toString();
    this.label = `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  }

  /** The `result` of one call, parsed with JSON.parse (fast; numbers become floats). */
  call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    return this.request<T>(method, params, false);
  }

  /** The `result` with every JSON number kept as its exact literal (LosslessNumber). */
  callExact<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    return this.request<T>(method, params, true);
  }

  private async request<T>(method: string, params: readonly unknown[], exact: boolean): Promise<T> {
    const id = this.nextId++;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.authorization === undefined ? {} : { authorization: this.authorization }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new AdapterError(`${this.label} ${method}: node unreachable (${describe(error)})`, false);
    }
    // A reply cut off mid-read reads as empty: the JSON check below then says it is not JSON.
    const reply = await readCappedBody(response, this.maxReplyBytes).catch((): CappedBody => ({ kind: 'read', bytes: Buffer.alloc(0) }));
    if (reply.kind === 'too_large') {
      const size = reply.declared === undefined ? 'reply' : `reply of ${reply.declared} bytes`;
      throw new AdapterError(`${this.label} ${method}: ${size} exceeds the ${this.maxReplyBytes}-byte cap`, false);
    }
    const text = reply.bytes.toString('utf8');
    // bitcoind answers RPC errors with HTTP 500 and a JSON body: read the body before the status.
    let body: { result?: unknown; error?: { code?: number | { toString(): string }; message?: string } | null } | undefined;
    try {
      body = (exact ? parse(text) : JSON.parse(text)) as typeof body;
    } catch {
      body = undefined;
    }
    if (body?.error !== undefined && body.error !== null) {
      // With a lossless parse the code is a LosslessNumber: Number() reads either.
      throw new JsonRpcError(`${this.label} ${method}: ${body.error.message ?? 'error'}`, Number(body.error.code?.toString() ?? 0));
    }
    if (!response.ok || body === undefined || !('result' in body)) {
      throw new AdapterError(`${this.label} ${method}: HTTP ${response.status} ${text.slice(0, 120)}`, false);
    }
    return body.result as T;
  }
}

/** The node answered, with an error object (bad params, unknown block, ...). */
export class JsonRpcError extends AdapterError {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message, false);
    this.name = 'JsonRpcError';
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
