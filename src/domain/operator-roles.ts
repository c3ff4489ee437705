/**
 * The operator's roles, least to most (docs/decisions.md, "Operator console"): each role may do
 * what the ones before it may.
 * - `viewer`: reads everything, changes nothing;
 * - `support`: order actions (continue, refund, refund address, fail);
 * - `finance`: payout approvals, commission payouts, treasury and ledger transfers, signer brakes;
 * - `admin`: partners, catalog, prices, pools, people, settings, the simulator.
 */
export const OPERATOR_ROLES = ['viewer', 'support', 'finance', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value);
}

/** Whether `role` may do what `minimum` may. */
export function roleAtLeast(role: OperatorRole, minimum: OperatorRole): boolean {
  return OPERATOR_ROLES.indexOf(role) >= OPERATOR_ROLES.indexOf(minimum);
}

/** The lesser of two roles (a token acts with its own role or its person's, whichever is less). */
export function lesserRole(a: OperatorRole, b: OperatorRole): OperatorRole {
  return roleAtLeast(a, b) ? b : a;
}
