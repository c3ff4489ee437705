import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isPublicAddress, systemResolver, urlHost, webhookUrlProblem, type Resolver } from './webhook-address-policy.js';

/** Bytes of a receiver's answer read at most (docs/contract.md §8); the rest is never read. */
export const MAX_RESPONSE_BYTES = 4096;
/** Characters of a failed answer's body kept in the delivery log's error. */
const ERROR_BODY_CHARS = 200;

export interface WebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE: http and private addresses allowed (development). */
  allowPrivate: boolean;
  /** The whole attempt's bound, connection to last byte read, ms (10 s; tests shorten it). */
  timeoutMs: number;
  resolve?: Resolver;
  /** Sockets kept per receiver host; the per-endpoint cap of the worker is below it. */
  maxSockets?: number;
}

/** One attempt's outcome, as the delivery log records it. */
export interface SendOutcome {
  delivered: boolean;
  /** The receiver's status code; null when none came back (refused, timed out, no connection). */
  statusCode: number | null;
  /** Milliseconds from the start of the attempt to its end. */
  durationMs: number;
  /** Why it did not count as delivered; null when delivered. */
  error: string | null;
  /** Bytes of the answer's body read (never more than MAX_RESPONSE_BYTES). */
  bytesRead: number;
  /** The answer's headers (RESPONSE_HEADERS_MAX, each value cut), for the delivery log; absent without an answer. */
  responseHeaders?: Record<string, string>;
  /** The answer's body as read (at most MAX_RESPONSE_BYTES), for the delivery log; absent without an answer. */
  responseBody?: Buffer;
}

/** Headers of an answer kept for the delivery log, and the characters of each value. */
const RESPONSE_HEADERS_MAX = 50;
const RESPONSE_HEADER_CHARS = 1000;

/** An answer's headers as the delivery log keeps them: lowercased names, repeated ones joined, bounded. */
function keptHeaders(response: IncomingMessage): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers).slice(0, RESPONSE_HEADERS_MAX)) {
    if (value === undefined) continue;
    kept[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, RESPONSE_HEADER_CHARS);
  }
  return kept;
}

class Refused extends Error {}

/**
 * POSTs a webhook to its receiver: 2xx is delivered, anything else is a failed attempt with its
 * reason. The SSRF rules are applied on the address the connection is made to (a name is
 * resolved by the checking lookup, so a name that resolves to a private address after it was
 * accepted, DNS rebinding, is refused); redirects are never followed (a 3xx is a failed attempt);
 * no more than MAX_RESPONSE_BYTES of an answer is read; the attempt ends at timeoutMs.
 */
export class WebhookSender {
  private readonly resolve: Resolver;
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;

  constructor(private readonly options: WebhookSenderOptions) {
    this.resolve = options.resolve ?? systemResolver;
    const agent = { keepAlive: true, maxSockets: options.maxSockets ?? 16, maxFreeSockets: 4, scheduling: 'lifo' as const };
    this.httpAgent = new HttpAgent(agent);
    this.httpsAgent = new HttpsAgent(agent);
  }

  async send(rawUrl: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const problem = webhookUrlProblem(rawUrl, this.options.allowPrivate);
    if (problem !== undefined) return failure(null, elapsed(), `refused: the URL ${problem}`);
    const url = new URL(rawUrl);
    const host = urlHost(url);
    try {
      // An address literal is connected to as it is (no lookup runs): check it here.
      if (isIP(host) !== 0) this.checkAddress(host);
      const response = await this.post(url, headers, body);
      return await this.outcome(response, elapsed);
    } catch (error) {
      if (error instanceof Refused) return failure(null, elapsed(), `refused: ${error.message}`);
      const message = error instanceof Error ? error.message : String(error);
      return failure(null, elapsed(), message);
    }
  }

  /** Closes kept-alive sockets. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private checkAddress(address: string): void {
    if (!this.options.allowPrivate && !isPublicAddress(address)) throw new Refused(`${address} is not a public address`);
  }

  /** net's lookup, through the resolver, refusing the connection when an address is not public. */
  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        try {
          if (addresses.length === 0) throw new Error(`${hostname} has no address`);
          for (const { address } of addresses) this.checkAddress(address);
          const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
          const usable = wanted.length > 0 ? wanted : addresses;
          if (options.all === true) callback(null, usable);
          else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 4);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 4);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };

  private post(url: URL, headers: Record<string, string>, body: string): Promise<IncomingMessage> {
    const https = url.protocol === 'https:';
    const payload = Buffer.from(body, 'utf8');
    return new Promise((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: https ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
        headers: { ...headers, 'content-length': String(payload.length) },
      });
      const timer = setTimeout(() => request.destroy(new Error(`timed out after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
      request.once('response', (response) => {
        // The same deadline covers reading the answer (a receiver that stalls mid-body).
        response.once('close', () => clearTimeout(timer));
        resolve(response);
      });
      request.once('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof Refused ? error : new Error(describe(error)));
      });
      request.end(payload);
    });
  }

  /** Reads at most MAX_RESPONSE_BYTES of the answer, then decides. */
  private async outcome(response: IncomingMessage, elapsed: () => number): Promise<SendOutcome> {
    const statusCode = response.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let bytesRead = 0;
    let complete = true;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        const room = MAX_RESPONSE_BYTES - bytesRead;
        chunks.push(chunk.subarray(0, room));
        bytesRead += Math.min(chunk.length, room);
        if (chunk.length >= room && (chunk.length > room || !response.complete)) {
          complete = false;
          break;
        }
      }
    } catch (error) {
      // The answer's status line counts; a body cut short by the deadline or the peer does not undo it.
      complete = false;
      if (statusCode < 200 || statusCode > 299) return failure(statusCode, elapsed(), `HTTP ${statusCode}, then ${describe(error)}`, bytesRead);
    }
    // Not read to its end: the socket cannot be reused.
    if (!complete) response.destroy();
    const durationMs = elapsed();
    const answer = { responseHeaders: keptHeaders(response), responseBody: Buffer.concat(chunks) };
    if (statusCode >= 200 && statusCode <= 299) return { delivered: true, statusCode, durationMs, error: null, bytesRead, ...answer };
    if (statusCode >= 300 && statusCode <= 399) {
      const location = response.headers.location ?? '';
      return { ...failure(statusCode, durationMs, `HTTP ${statusCode}: redirect to ${location.slice(0, 200)} not followed`, bytesRead), ...answer };
    }
    const text = answer.responseBody.toString('utf8').slice(0, ERROR_BODY_CHARS);
    return { ...failure(statusCode, durationMs, text === '' ? `HTTP ${statusCode}` : `HTTP ${statusCode}: ${text}`, bytesRead), ...answer };
  }
}

function failure(statusCode: number | null, durationMs: number, error: string, bytesRead = 0): SendOutcome {
  return { delivered: false, statusCode, durationMs, error, bytesRead };
}

function describe(error: unknown): string {
  if (error instanceof Refused) return error.message;
  const e = error as { code?: string; message?: string };
  return e.code !== undefined ? `connection failed: ${e.code}` : (e.message ?? String(error));
}
