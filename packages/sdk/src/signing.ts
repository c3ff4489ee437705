/**
 * Request signing (optional): `X-Signature` is the lowercase hex HMAC-SHA256, keyed with the
 * secret part of the API key (`<key_id>.<secret>`, as text), of
 * - `body`: the exact body bytes (empty for a GET), v1's rule;
 * - `replay-proof` (docs/contract.md §7.7): `{X-Timestamp}.{METHOD}.{request target}.{body}`, with
 *   X-Timestamp the Unix time in ms and the target the path and query as sent. The server
 *   accepts it within ±5 minutes and once only, so every try of a request is signed anew.
 */
import { hmacKey, hmacSha256, toHex, utf8, type HmacKey } from './crypto-helpers.js';

export type SigningMode = 'none' | 'body' | 'replay-proof';

export class RequestSigner {
  private key: Promise<HmacKey> | undefined;
  /** The last X-Timestamp sent: the next one is later, so two identical requests in one ms differ. */
  private lastTimestamp = 0;

  constructor(
    private readonly mode: SigningMode,
    private readonly apiKey: string | undefined,
  ) {}

  /** The headers that sign this request (none when signing is off or no key is set). */
  async headers(method: string, url: URL, body: string, now: number): Promise<Record<string, string>> {
    if (this.mode === 'none' || this.apiKey === undefined) return {};
    const secret = this.apiKey.slice(this.apiKey.indexOf('.') + 1);
    this.key ??= hmacKey(utf8(secret));
    const key = await this.key;
    if (this.mode === 'body') return { 'x-signature': toHex(await hmacSha256(key, body)) };
    // The server takes each signature once: identical requests (two polls of an order) sent in
    // the same millisecond would sign alike, and the second be refused as a replay.
    this.lastTimestamp = Math.max(now, this.lastTimestamp + 1);
    const timestamp = String(this.lastTimestamp);
    const target = `${url.pathname}${url.search}`;
    return { 'x-timestamp': timestamp, 'x-signature': toHex(await hmacSha256(key, `${timestamp}.${method.toUpperCase()}.${target}.${body}`)) };
  }
}
