import { parse } from 'lossless-json';
import { PriceFeedError } from './price-feed-error.js';
import { readCappedBody } from '../http-body.js';

/** Default cap on a feed's response body, bytes. Real answers here are a few KiB. */
export const DEFAULT_MAX_FEED_BODY_BYTES = 1024 * 1024;

/** How much of an error response body goes into the error message, characters. */
const ERROR_BODY_SNIPPET_CHARS = 200;

export interface FeedRequest {
  /** PriceSource name, for errors. */
  source: string;
  url: string;
  /** Whole-request budget (connect, headers and body), milliseconds. */
  timeoutMs: number;
  /** The caller's signal; aborting it aborts the request. */
  signal: AbortSignal;
  /** Body size cap, bytes. Default DEFAULT_MAX_FEED_BODY_BYTES. */
  maxBodyBytes?: number;
}

/**
 * GET a JSON document from a market-data feed. Numbers are parsed with lossless-json, so a price
 * sent as a JSON number arrives as a LosslessNumber holding its exact literal, never a float.
 * Every failure is a PriceFeedError; nothing else escapes.
 */
export async function fetchFeedJson(request: FeedRequest): Promise<unknown> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  const maxBytes = request.maxBodyBytes ?? DEFAULT_MAX_FEED_BODY_BYTES;
  let text: string;
  try {
    const response = await fetch(request.url, { signal, headers: { accept: 'application/json' } });
    if (!response.ok) {
      const snippet = await readSnippet(response);
      throw new PriceFeedError(
        request.source,
        'http_status',
        `HTTP ${response.status} from ${request.url}${snippet ? `: ${snippet}` : ''}`,
        { status: response.status },
      );
    }
    text = await readCapped(response, maxBytes, request.source);
  } catch (error) {
    if (error instanceof PriceFeedError) throw error;
    // Check our own timeout first: when both fire, the timeout is the more useful diagnosis.
    if (timeout.aborted) {
      throw new PriceFeedError(request.source, 'timeout', `no answer within ${request.timeoutMs} ms`, {
        cause: error,
      });
    }
    if (request.signal.aborted) {
      throw new PriceFeedError(request.source, 'aborted', 'request aborted by caller', { cause: error });
    }
    throw new PriceFeedError(request.source, 'network', `request to ${request.url} failed`, { cause: error });
  }
  try {
    return parse(text);
  } catch (error) {
    throw new PriceFeedError(request.source, 'malformed', 'response is not valid JSON', { cause: error });
  }
}

async function readCapped(response: Response, maxBytes: number, source: string): Promise<string> {
  const body = await readCappedBody(response, maxBytes);
  if (body.kind === 'too_large') {
    const what = body.declared === undefined ? 'body' : `declared body of ${body.declared} bytes`;
    throw new PriceFeedError(source, 'too_large', `${what} exceeds ${maxBytes} bytes`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body.bytes);
  } catch (error) {
    throw new PriceFeedError(source, 'malformed', 'response is not valid UTF-8', { cause: error });
  }
}

/** A short, single-line prefix of an error body (e.g. Binance's {"code":-1121,...}); '' if unreadable. */
async function readSnippet(response: Response): Promise<string> {
  try {
    const text = await readCapped(response, 4096, '');
    return text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_SNIPPET_CHARS);
  } catch {
    return '';
  }
}
