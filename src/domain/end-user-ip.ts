import { isIP } from 'node:net';

/**
 * The end user's address a partner sends in `X-End-User-IP` (docs/contract.md §10.8): one IPv4 address in
 * dotted decimal or one IPv6 address in any RFC 4291 text form (IPv4-mapped included). A zone
 * id (`fe80::1%eth0`) names an interface of the partner's machine, not an address on the
 * internet (and PostgreSQL's inet refuses it): refused, as is a list, a port or a range.
 */
export interface EndUserIp {
  address: string;
  family: 'ipv4' | 'ipv6';
}

/** The address, or undefined when `text` is not one address as above. */
export function parseEndUserIp(text: string): EndUserIp | undefined {
  if (text.includes('%')) return undefined;
  const family = isIP(text);
  if (family === 4) return { address: text, family: 'ipv4' };
  if (family === 6) return { address: text.toLowerCase(), family: 'ipv6' };
  return undefined;
}
