import type { App, Services } from '../../app-types.js';
import { html } from './html.js';
import { page, time } from './layout.js';
import { sessionOf, type CabinetSessions } from './session.js';

const SHOWN = 100;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const STATUS = /^(?:[1-5]xx|[1-5][0-9]{2})$/;

/**
 * The request log (what Stripe's gives): the mode's keys' requests of the last 7 days, newest
 * first — method, path, status, latency, time, error code; never a body (none is stored).
 * Filtered by key, status (class or exact), method and path prefix; 100 at a time, older ones
 * through a keyset link.
 */
export function registerCabinetRequests(app: App, { apiKeys, requestLog }: Services, sessions: CabinetSessions): void {
  app.get('/cabinet/requests', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const query = request.query as Record<string, unknown>;
    const text = (name: string) => (typeof query[name] === 'string' && query[name] !== '' ? (query[name]) : undefined);
    const sandbox = session.mode === 'sandbox';
    const keys = await apiKeys.listForCabinet(session.partnerId, sandbox);
    const keyId = keys.some((key) => key.key_id === text('key')) ? text('key') : undefined;
    const status = STATUS.test(text('status') ?? '') ? text('status') : undefined;
    const method = (METHODS as readonly string[]).includes(text('method') ?? '') ? text('method') : undefined;
    const pathPrefix = text('path')?.slice(0, 200);
    const cursor = /^(\d{4}-\d{2}-\d{2}T[0-9:.]+Z)_(\d{1,19})$/.exec(text('before') ?? '');
    const before = cursor === null || Number.isNaN(Date.parse(cursor[1]!)) ? undefined : { at: new Date(cursor[1]!), id: cursor[2]! };
    const rows = await requestLog.list({ partnerId: session.partnerId, sandbox, keyId, status, method, pathPrefix, before, limit: SHOWN + 1 });
    const shown = rows.slice(0, SHOWN);
    const last = shown[shown.length - 1];
    const older = new URLSearchParams();
    for (const [name, value] of [['key', keyId], ['status', status], ['method', method], ['path', pathPrefix]] as const) if (value !== undefined) older.set(name, value);
    if (last !== undefined) older.set('before', `${last.at.toISOString()}_${last.id}`);
    const labelOf = new Map(keys.map((key) => [key.key_id, key.label ?? key.key_id]));
    const body = html`<p>The requests your ${sandbox ? 'sandbox' : 'live'} keys made in the last 7 days, newest first. Bodies are never stored: method, path, status, time taken and the error code only.</p>
<form method="get" action="/cabinet/requests" class="filters" aria-label="Filter requests">
  <label>Key <select name="key"><option value="">any</option>${keys.map((key) => html`<option value="${key.key_id}"${key.key_id === keyId ? html` selected` : ''}>${key.label ?? key.key_id}</option>`)}</select></label>
  <label>Status <select name="status"><option value="">any</option>${['2xx', '4xx', '5xx'].map((value) => html`<option value="${value}"${value === status ? html` selected` : ''}>${value}</option>`)}</select></label>
  <label>Method <select name="method"><option value="">any</option>${METHODS.map((value) => html`<option value="${value}"${value === method ? html` selected` : ''}>${value}</option>`)}</select></label>
  <label>Path starts with <input type="text" name="path" value="${pathPrefix ?? ''}" maxlength="200" placeholder="/api/v1/partner/orders"></label>
  <button type="submit">Filter</button>
</form>
${shown.length === 0
  ? html`<p>No requests match.</p>`
  : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">Time</th><th scope="col">Method and path</th><th scope="col">Status</th><th scope="col" class="num">Took</th><th scope="col">Error code</th><th scope="col">Key</th></tr></thead>
<tbody>${shown.map(
  (row) => html`<tr>
<td data-label="Time">${time(row.at)}</td>
<td data-label="Method and path"><div class="mono">${row.method} ${row.path}</div></td>
<td data-label="Status"><span class="badge ${row.status >= 500 ? 'bad' : row.status >= 400 ? 'wait' : 'good'}">${row.status}</span></td>
<td data-label="Took" class="num">${row.duration_ms} ms</td>
<td data-label="Error code">${row.error_code ?? '—'}</td>
<td data-label="Key"><div class="mono">${labelOf.get(row.key_id) ?? row.key_id}</div></td>
</tr>`,
)}</tbody></table></div>`}
${rows.length > SHOWN ? html`<p class="pager"><a href="/cabinet/requests?${older.toString()}">Older requests</a></p>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page({ title: 'Requests', session, active: '/cabinet/requests', body }));
  });
}
