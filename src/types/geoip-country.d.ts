/**
 * The part of the `geoip-country` package (no types of its own) that services/end-user-blocklist.ts
 * uses: a synchronous lookup in the package's own IP-to-country data, loaded when the module is.
 */
declare module 'geoip-country' {
  interface Lookup {
    /** ISO 3166-1 alpha-2, upper case. */
    country: string;
  }
  const geoip: {
    /** The country of an IPv4 or IPv6 address; null where the data has none (private ranges, unallocated). */
    lookup(ip: string): Lookup | null;
  };
  export default geoip;
}
