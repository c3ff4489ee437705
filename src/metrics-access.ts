import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

/** Headers a proxy adds: a request carrying one was relayed, so its loopback peer proves nothing. */
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

/** A scrape as the access rule sees it. */
export interface Scrape {
  headers: IncomingHttpHeaders;
  /** The TCP peer. */
  remoteAddress: string | undefined;
  /** The client address as the listener derives it (TRUST_PROXY); the peer where no proxy is trusted. */
  ip: string;
}

/** `ok`; `invalid_token`: a bearer token that is not METRICS_TOKEN; `denied`: no token, not from this host. */
export type ScrapeVerdict = 'ok' | 'invalid_token' | 'denied';

/**
 * Who may scrape, on every listener that serves metrics (the API's /metrics and the worker's
 * WORKER_METRICS_PORT): the bearer METRICS_TOKEN from anywhere, or a scraper on this host
 * (loopback peer, the client address derived agreeing, and no proxy header: a proxy on the same
 * host relaying the internet must not count as local). Metrics name routes, volumes and error
 * rates, which nobody outside should read (/metrics was public).
 */
export function metricsAccess(token: string | undefined): (scrape: Scrape) => ScrapeVerdict {
  const expected = token === undefined ? undefined : createHash('sha256').update(token).digest();
  return ({ headers, remoteAddress, ip }) => {
    const match = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
    if (expected !== undefined && match !== null) {
      return timingSafeEqual(createHash('sha256').update(match[1] ?? '').digest(), expected) ? 'ok' : 'invalid_token';
    }
    const local = isLoopback(remoteAddress) && isLoopback(ip) && PROXY_HEADERS.every((name) => headers[name] === undefined);
    return local ? 'ok' : 'denied';
  };
}
