/**
 * The cabinet's team roles (docs/decisions.md, "Cabinet team roles"). An owner manages the
 * people, the markup and the payout addresses, and does all a developer does; a developer
 * manages API keys and webhooks and acts on orders; a viewer reads.
 */
export const CABINET_ROLES = ['owner', 'developer', 'viewer'] as const;
export type CabinetRole = (typeof CABINET_ROLES)[number];

/** What a role may change; reading is open to every role. */
export type CabinetPermission = 'people' | 'markup' | 'payout_addresses' | 'keys' | 'webhooks' | 'orders' | 'integration_settings';

const GRANTS: Readonly<Record<CabinetRole, ReadonlySet<CabinetPermission>>> = {
  owner: new Set(['people', 'markup', 'payout_addresses', 'keys', 'webhooks', 'orders', 'integration_settings']),
  developer: new Set(['keys', 'webhooks', 'orders', 'integration_settings']),
  viewer: new Set(),
};

export function roleAllows(role: CabinetRole, permission: CabinetPermission): boolean {
  return GRANTS[role].has(permission);
}

export function isCabinetRole(value: unknown): value is CabinetRole {
  return typeof value === 'string' && (CABINET_ROLES as readonly string[]).includes(value);
}

/** How a page names each role, with what it allows. */
export const ROLE_WORDS: Readonly<Record<CabinetRole, { name: string; allows: string }>> = {
  owner: { name: 'Owner', allows: 'people, markup and payout addresses, and everything a developer does' },
  developer: { name: 'Developer', allows: 'API keys, webhooks, settings of the integration and order actions' },
  viewer: { name: 'Viewer', allows: 'reads every page, changes nothing of the partner' },
};
