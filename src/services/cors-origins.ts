import type { Clock } from '../clock.js';
import { someActivePartnerAllowsOrigin } from '../db/repositories/partners-repository.js';
import type { Db } from '../db/schema/index.js';
import { CORS_ORIGINS_MAX, isWebOrigin } from '../domain/web-origin.js';
import { ApiError } from '../errors.js';

/**
 * A partner's cors_origins as given (operator API, cabinet): each a web origin exactly as a
 * browser sends it, duplicates dropped, at most CORS_ORIGINS_MAX; 400 naming the first bad one.
 */
export function checkedCorsOrigins(origins: readonly string[]): string[] {
  const unique = [...new Set(origins)];
  if (unique.length > CORS_ORIGINS_MAX) throw new ApiError('bad_request', `cors_origins: at most ${CORS_ORIGINS_MAX} origins`);
  const bad = unique.find((origin) => !isWebOrigin(origin));
  if (bad !== undefined) {
    throw new ApiError(
      'bad_request',
      `cors_origins: ${JSON.stringify(bad.slice(0, 60))} is not a web origin; write it as a browser sends it: ` +
        'http:// or https://, the host in lower case and an optional port, no path or trailing slash (https://wallet.example)',
    );
  }
  return unique;
}

/** How long an answer is reused, in ms: a cabinet change reaches preflights within it. */
const REMEMBER_MS = 30_000;
/** Origins remembered at most; past it the memory starts over (a flood of made-up origins). */
const REMEMBER_MAX = 1_000;

/**
 * Answers a browser's preflight on a client-key route (docs/contract.md §10.9): whether any active
 * partner allows the origin. A preflight carries no key, so this is all it can be judged by;
 * the request that follows carries the key and is answered for its own partner's origins only.
 * Answers are remembered for 30 s, so preflights cost a query per origin and half-minute at most.
 */
export class CorsOrigins {
  private readonly remembered = new Map<string, { allowed: boolean; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async allowedBySomePartner(origin: string): Promise<boolean> {
    // No partner can list what is not a web origin (checkedCorsOrigins): no query for it. A NUL
    // in the Origin header reached PostgreSQL as a query parameter and failed it, a 500 (found
    // by the 10,000-case fuzz of the order routes with an unauthenticated Origin: \u0000).
    if (!isWebOrigin(origin)) return false;
    const now = this.clock.now().getTime();
    const known = this.remembered.get(origin);
    if (known !== undefined && known.until > now) return known.allowed;
    const allowed = await someActivePartnerAllowsOrigin(this.db, origin);
    if (this.remembered.size >= REMEMBER_MAX) this.remembered.clear();
    this.remembered.set(origin, { allowed, until: now + REMEMBER_MS });
    return allowed;
  }
}
