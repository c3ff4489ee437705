import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF rules of webhook URLs (docs/contract.md §8). In production only `https` URLs whose every resolved
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

/** Whether an IP address (v4, v6, or a v6 form that carries a v4) is a public one. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  if (groups === undefined) return false;
  // A v6 form that carries a v4 reaches that v4 (the kernel, a NAT64 gateway or a 6to4 relay
  // unwraps it): it is judged by the v4 it carries.
  const carried = carriedIpv4(groups);
  if (carried !== undefined && !isPublicAddress(carried.address)) return false;
  // The mapped, translated and compatible forms are the v4 itself; NAT64 and 6to4 stay refused
  // whole below (NOT_PUBLIC), whatever they carry.
  if (carried?.sameHost === true) return true;
  return !NOT_PUBLIC.check(groups.map((group) => group.toString(16)).join(':'), 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address that isIP accepted (a zone id ignored, a trailing dotted quad read). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined): number[] => (part === undefined || part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const groups = halves.length === 2 ? [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 address carries, if it has one of the forms that carry one:
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96` and IPv4-compatible `::/96`
 * (the same host: `sameHost`), NAT64 `64:ff9b::/96` (RFC 6052) and 6to4 `2002::/16` (RFC 3056).
 */
function carriedIpv4(groups: readonly number[]): { address: string; sameHost: boolean } | undefined {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeros(5) && g5 === 0xffff) return { address: v4(g6, g7), sameHost: true };
  if (zeros(4) && g4 === 0xffff && g5 === 0) return { address: v4(g6, g7), sameHost: true };
  if (zeros(6)) return { address: v4(g6, g7), sameHost: true };
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return { address: v4(g6, g7), sameHost: false };
  if (g0 === 0x2002) return { address: v4(g1 ?? 0, g2 ?? 0), sameHost: false };
  return undefined;
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
