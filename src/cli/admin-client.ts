import { parse } from 'lossless-json';
import { ApiFailure, CliError } from './admin-errors.js';
import type { AdminTarget } from './admin-target.js';

/** A request that gets no answer in this time is reported, not waited on forever. */
const TIMEOUT_MS = 30_000;

export interface ApiResponse {
  status: number;
  /** The body exactly as the API sent it: what --json prints. */
  text: string;
  /** The next page's cursor, from a `Link: <…?cursor=…>; rel="next"` header (list answers). */
  nextCursor?: string | undefined;
}

/** The `cursor` of the rel="next" link of a Link header (RFC 8288), if there is one. */
function nextCursorOf(link: string | null): string | undefined {
  const match = link === null ? null : /<([^>]*)>\s*;\s*rel="?next"?/.exec(link);
  if (match?.[1] === undefined) return undefined;
  return new URL(match[1], 'http://link.invalid').searchParams.get('cursor') ?? undefined;
}

/** The operator API over HTTP: Bearer admin token, JSON in and out. */
export class AdminClient {
  constructor(private readonly target: AdminTarget) {}

  /** `accept`: what to ask for (the ledger's entries come as CSV too); JSON by default. */
  async send(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, accept = 'application/json'): Promise<ApiResponse> {
    const { response, bytes } = await this.exchange(method, path, body, accept, TIMEOUT_MS);
    const text = bytes.toString('utf8');
    if (response.ok) return { status: response.status, text, nextCursor: nextCursorOf(response.headers.get('link')) };
    throw this.failure(response, text);
  }

  /** A binary answer (a backup), as bytes; `timeoutMs` bounds the whole transfer. */
  async download(method: 'GET' | 'POST', path: string, body: unknown, accept: string, timeoutMs: number): Promise<Buffer> {
    const { response, bytes } = await this.exchange(method, path, body, accept, timeoutMs);
    if (response.ok) return bytes;
    throw this.failure(response, bytes.toString('utf8'));
  }

  private async exchange(method: string, path: string, body: unknown, accept: string, timeoutMs: number): Promise<{ response: Response; bytes: Buffer }> {
    const url = `${this.target.url}${path}`;
    try {
      const response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.target.token}`,
          accept,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        // Never follow a redirect: it would carry the admin token somewhere the operator did not name.
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { response, bytes: Buffer.from(await response.arrayBuffer()) };
    } catch (error) {
      throw new CliError(
        `cannot reach the API at ${this.target.url} (${reason(error, timeoutMs)}; URL from ${this.target.urlSource}): ` +
          'is the server running? start it with npm start',
      );
    }
  }

  private failure(response: Response, text: string): ApiFailure {
    let detail: string | undefined;
    let code: string | undefined;
    try {
      const body = JSON.parse(text) as { detail?: unknown; code?: unknown };
      if (typeof body.detail === 'string') detail = body.detail;
      if (typeof body.code === 'string') code = body.code;
    } catch {
      // Not the API's error envelope: described below from the status alone.
    }
    if (detail === undefined) {
      const location = response.headers.get('location');
      detail =
        `${this.target.url} answered HTTP ${response.status}` +
        (location === null ? '' : ` (redirect to ${location}: pass the final URL with --url)`) +
        ' without an API error body: is it the exchange API?';
    } else if (response.status === 401) {
      // Say which token was used (never the token itself): the usual cause is a stale one.
      detail += ` (admin token from ${this.target.tokenSource})`;
    }
    return new ApiFailure(response.status, detail, code);
  }
}

/**
 * Parses a response body keeping every number exact (amounts come as JSON numbers with up to
 * 18 decimals, beyond what a double holds); numbers become LosslessNumber, which prints as typed.
 */
export function parseBody(response: ApiResponse): unknown {
  try {
    return parse(response.text);
  } catch {
    throw new CliError('the API answered with a body that is not JSON');
  }
}

const NETWORK_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EHOSTUNREACH: 'host unreachable',
};

function reason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000}s`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return NETWORK_ERRORS[cause.code] ?? cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
