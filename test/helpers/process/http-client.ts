/** HTTP calls to a server process over a real socket, for process tests, scripts and the bench. */
import { performance } from 'node:perf_hooks';

export interface HttpResult {
  status: number;
  text: string;
  headers: Headers;
  ms: number;
}

/**
 * One HTTP call with a hard time bound (a hung request fails the caller instead of the suite).
 * `json` bodies are sent as JSON text.
 */
export async function http(
  baseUrl: string,
  method: string,
  route: string,
  options: { json?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const started = performance.now();
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, ms: performance.now() - started };
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const index = next++;
      await task(index);
    }
  });
  await Promise.all(runners);
}

/** An operator partner with a (huge, by default) rate limit and one key, created through `apiUrl`. */
export async function createPartner(
  apiUrl: string,
  adminToken: string,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; apiKey: string; keyId: string }> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const partner = await http(apiUrl, 'POST', '/admin/v1/partners', {
    headers: auth,
    // Load and fault tests: neither the rate limit nor the open-order cap is what they measure.
    json: { name: 'Process Test Partner', rate_limit_per_minute: 1_000_000, max_open_orders: 1_000_000, ...fields },
  });
  if (partner.status !== 201) throw new Error(`partner create: ${partner.status} ${partner.text}`);
  const { id } = JSON.parse(partner.text) as { id: string };
  const key = await http(apiUrl, 'POST', `/admin/v1/partners/${id}/keys`, { headers: auth });
  if (key.status !== 201) throw new Error(`key create: ${key.status} ${key.text}`);
  const { api_key, key_id } = JSON.parse(key.text) as { api_key: string; key_id: string };
  return { id, apiKey: api_key, keyId: key_id };
}
