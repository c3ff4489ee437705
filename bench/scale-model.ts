/**
 * `--only scale`'s arithmetic, apart from the processes it runs (bench/scale.ts) so that it can
 * be tested alone: which process counts a run measures, and what N machines would serve given
 * the CPU each request costs the API processes and PostgreSQL (bench/README.md, "Scale-out").
 */

/** `--scale-api` / `--scale-workers`: a comma-separated list of whole counts, each 1..max, kept in order, no repeats. */
export function parseCounts(flag: string, raw: string | undefined, fallback: readonly number[], max: number): number[] {
  if (raw === undefined) return [...fallback];
  const counts = raw.split(',').map((part) => part.trim());
  const parsed: number[] = [];
  for (const part of counts) {
    const count = Number(part);
    if (!/^\d+$/.test(part) || count < 1 || count > max) throw new Error(`--${flag}: each count must be a whole number from 1 to ${max}, got "${part}" in "${raw}"`);
    if (parsed.includes(count)) throw new Error(`--${flag}: ${count} is given twice in "${raw}"`);
    parsed.push(count);
  }
  return parsed;
}

/** What a measured configuration costs per request of the mix, the inputs of the model. */
export interface MeasuredCosts {
  /** CPU of the API processes per request of the mix, µs (from one process: no cluster primary, least contention). */
  apiCpuUsPerRequest: number;
  /** CPU of PostgreSQL's backends per request of the mix, µs: all of it on the primary. */
  pgCpuUsPerRequest: number;
  /** Share of the mix's requests that create an order. */
  orderShare: number;
}

/** The machines assumed: API machines of `apiCores` cores, one PostgreSQL primary of `pgCores`, each run up to `utilisation`. */
export interface Fleet {
  apiCores: number;
  pgCores: number;
  /** 0..1: the share of each core planned for (headroom for bursts, GC, failover). */
  utilisation: number;
}

export interface FleetRow {
  machines: number;
  /** What the API machines can answer, mix requests/s. */
  apiCapacity: number;
  /** What the primary can carry, mix requests/s. */
  primaryCapacity: number;
  /** min(API, primary): mix requests/s served. */
  served: number;
  /** Orders created per second at `served`. */
  ordersPerSecond: number;
  /** Which side limits `served`. */
  bound: 'api' | 'primary';
}

/** Requests per second that `cores` cores at `utilisation` give at `cpuUs` µs each. */
export function capacity(cores: number, utilisation: number, cpuUs: number): number {
  if (!(cpuUs > 0)) throw new Error(`a cost per request must be above 0 µs, got ${cpuUs}`);
  return (cores * utilisation * 1e6) / cpuUs;
}

function checkFleet(fleet: Fleet, costs: MeasuredCosts): void {
  if (!(fleet.utilisation > 0 && fleet.utilisation <= 1)) throw new Error(`utilisation must be in (0, 1], got ${fleet.utilisation}`);
  if (!(costs.orderShare > 0 && costs.orderShare <= 1)) throw new Error(`the order share must be in (0, 1], got ${costs.orderShare}`);
}

/**
 * PostgreSQL's CPU per order: the mix's per request over the share of orders in it. In the mix
 * the reads barely reach PostgreSQL (catalog and quotes from memory, order reads from the
 * order read cache), so all of it is put on the orders.
 */
export function pgCpuUsPerOrder(costs: MeasuredCosts): number {
  return costs.pgCpuUsPerRequest / costs.orderShare;
}

/**
 * N API machines in front of one primary. The API tier scales linearly (its processes share
 * nothing but the database and Redis); the primary does not: every order is a write there.
 */
export function fleetRow(machines: number, fleet: Fleet, costs: MeasuredCosts): FleetRow {
  checkFleet(fleet, costs);
  const apiCapacity = machines * capacity(fleet.apiCores, fleet.utilisation, costs.apiCpuUsPerRequest);
  const primaryCapacity = capacity(fleet.pgCores, fleet.utilisation, costs.pgCpuUsPerRequest);
  const served = Math.min(apiCapacity, primaryCapacity);
  return { machines, apiCapacity, primaryCapacity, served, ordersPerSecond: served * costs.orderShare, bound: apiCapacity <= primaryCapacity ? 'api' : 'primary' };
}

/** The number of API machines (fractional) at which the primary saturates: more add nothing. */
export function saturatingMachines(fleet: Fleet, costs: MeasuredCosts): number {
  const row = fleetRow(1, fleet, costs);
  return row.primaryCapacity / row.apiCapacity;
}

/**
 * Shards (each its own primary of `pgCores`, partners assigned by partner id) needed for
 * `ordersPerSecond`: the orders split by partner, so the busiest partner's share must fit one
 * shard too (`largestPartnerShare` of the orders); returns how many, or undefined when one
 * partner alone is more than a primary carries (sharding by partner cannot help).
 */
export function shardsFor(ordersPerSecond: number, fleet: Fleet, costs: MeasuredCosts, largestPartnerShare: number): number | undefined {
  checkFleet(fleet, costs);
  if (!(largestPartnerShare > 0 && largestPartnerShare <= 1)) throw new Error(`the largest partner's share must be in (0, 1], got ${largestPartnerShare}`);
  const perShard = capacity(fleet.pgCores, fleet.utilisation, pgCpuUsPerOrder(costs));
  if (ordersPerSecond * largestPartnerShare > perShard) return undefined;
  return Math.max(1, Math.ceil(ordersPerSecond / perShard));
}
