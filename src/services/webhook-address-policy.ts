import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF rules of webhook URLs (DESIGN §8). In production only `https` URLs whose every resolved
 * address is public are used; WEBHOOK_ALLOW_PRIVATE=true (the embedded default) also allows
 * `http` and private addresses, so a receiver on the developer's own machine works.
 */

/** Addresses that are not on the public internet: loopback, private, link-local (cloud metadata), reserved. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4, v6, or v4 mapped into v6) is a public one. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1] !== undefined) return isPublicAddress(mapped[1]);
    // ::ffff:0:0/96 written in hex, and the v4-compatible ::/96: refuse rather than decode.
    if (/^::(ffff:)?[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(address)) return false;
  }
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name → addresses (dns.lookup by default; tests give a name that resolves to 10.0.0.1). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => (error === null ? resolve(addresses) : reject(error)));
  });

/** The host of a URL as an address or a name (`[::1]` loses its brackets). */
export function urlHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * What is wrong with a webhook URL as written (before any name is resolved), or undefined:
 * http(s) only, https only in production, no credentials in it, and in production no address
 * literal that is not public. Names are checked again on their resolved addresses at send time.
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (!allowPrivate && url.protocol !== 'https:') return 'must be an https:// URL (http is allowed only with WEBHOOK_ALLOW_PRIVATE=true)';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hostname === '') return 'has no host';
  const host = urlHost(url);
  if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) return `points at ${host}, which is not a public address`;
  return undefined;
}
