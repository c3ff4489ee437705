import { BlockList } from 'node:net';
import type { EndUserBlocklistConfig } from '../config.js';
import type { EndUserIp } from '../domain/end-user-ip.js';

/** The country of an address (ISO 3166-1 alpha-2), or undefined where the data has none. */
export type CountryLookup = (address: string) => string | undefined;

/**
 * The `geoip-country` package's lookup. Imported on first use only: the package reads its whole
 * IP-to-country table into memory when loaded (several MB), which a service without
 * REGION_BLOCKLIST never needs. Its data is refreshed by updating the package.
 */
async function loadGeoipCountry(): Promise<CountryLookup> {
  const { default: geoip } = await import('geoip-country');
  return (address) => geoip.lookup(address)?.country ?? undefined;
}

/**
 * The operator's blocklist of end users (docs/contract.md §10.8): IP_BLOCKLIST's subnets (node:net
 * BlockList, IPv4-mapped IPv6 addresses matching IPv4 subnets) and REGION_BLOCKLIST's countries.
 * An address whose country the data does not know (private or unallocated ranges) is not
 * refused by country.
 */
export class EndUserBlocklist {
  private readonly subnets = new BlockList();
  private readonly countries: ReadonlySet<string>;
  private lookup: Promise<CountryLookup> | undefined;

  constructor(
    config: EndUserBlocklistConfig,
    private readonly loadLookup: () => Promise<CountryLookup> = loadGeoipCountry,
  ) {
    for (const subnet of config.cidrs) this.subnets.addSubnet(subnet.address, subnet.prefix, subnet.family);
    this.countries = new Set(config.countries);
  }

  /** Why `ip` is refused, as the words of a 403 `region_restricted`; undefined when it is not. */
  async refusal(ip: EndUserIp): Promise<string | undefined> {
    if (this.subnets.check(ip.address, ip.family)) {
      return 'the end user\'s address (X-End-User-IP) is in a range this exchange does not serve';
    }
    if (this.countries.size === 0) return undefined;
    // A failed load is not kept: the next request tries again.
    this.lookup ??= this.loadLookup().catch((error: unknown) => {
      this.lookup = undefined;
      throw error;
    });
    const country = (await this.lookup)(ip.address);
    if (country !== undefined && this.countries.has(country)) {
      return `the end user's country (${country}, from X-End-User-IP) is one this exchange does not serve`;
    }
    return undefined;
  }
}
