/**
 * A web origin as a browser sends it in `Origin`: `http` or `https`, a host and an optional
 * port, nothing else (no path, no trailing slash), host in lower case. Partners list these in
 * `cors_origins` (docs/contract.md §10.9); what is stored is compared with the header as text.
 */
export function isWebOrigin(value: string): boolean {
  if (value.length > 200 || !/^https?:\/\/[^/?#@\s]+$/.test(value)) return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/** The most origins a partner may list (migration 0049 checks it too). */
export const CORS_ORIGINS_MAX = 20;
