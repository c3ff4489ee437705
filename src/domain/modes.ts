/**
 * Modes (docs/contract.md §10.2): every key, order and webhook endpoint is `live` or `sandbox`. A key
 * reaches its own mode's orders and endpoints only; a cabinet person reaches both.
 */
export const MODES = ['live', 'sandbox'] as const;
export type Mode = (typeof MODES)[number];

export function isMode(value: unknown): value is Mode {
  return value === 'live' || value === 'sandbox';
}

/** The mode of a key, order or endpoint stored as a `sandbox` flag (api_keys, orders). */
export function modeOf(sandbox: boolean): Mode {
  return sandbox ? 'sandbox' : 'live';
}
