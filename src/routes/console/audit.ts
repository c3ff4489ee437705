import type { App, Services } from '../../app-types.js';
import { csvField, csvRecord } from '../../domain/csv.js';
import type { AuditFilter } from '../../services/operator-audit-log.js';
import { personActor } from '../../services/operator-people.js';
import { html } from '../cabinet/html.js';
import { time } from '../cabinet/layout.js';
import { consolePage } from './layout.js';
import { consoleSessionOf, type ConsoleSessions } from './session.js';

const PAGE = 100;
const EXPORT_MAX = 10_000;

/** The filter a page or export asks for: actor (exact), action and target (prefixes), an older-than cursor. */
function filterOf(query: unknown, limit: number): { filter: AuditFilter; values: Record<string, string> } {
  const read = (name: string): string | undefined => {
    const value = (query as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined;
  };
  const cursor = read('cursor');
  const values = { actor: read('actor') ?? '', action: read('action') ?? '', target: read('target') ?? '' };
  return {
    filter: { actor: read('actor'), action: read('action'), target: read('target'), beforeId: cursor !== undefined && /^[0-9]{1,18}$/.test(cursor) ? cursor : undefined, limit },
    values,
  };
}

/**
 * The operator audit log in the console (/console/audit): every operator action, from the API,
 * the CLI or the console, newest first, filtered by who, what and on what, paged, and exported
 * as CSV (/console/audit.csv with the same filters).
 */
export function registerConsoleAudit(app: App, { operatorAudit: auditLog, operators }: Services, sessions: ConsoleSessions): void {
  const viewer = { schema: { hide: true }, preHandler: sessions.required('viewer') };

  app.get('/console/audit', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const { filter, values } = filterOf(request.query, PAGE);
    const [rows, people] = await Promise.all([auditLog.list(filter), operators.people.people()]);
    // A person's actions read with their name beside the email their entries keep.
    const names = new Map(people.filter((person) => person.name !== null).map((person) => [personActor(person.email), person.name]));
    const who = (actor: string) => (names.has(actor) ? html`${names.get(actor) ?? ''} <span class="mono">${actor}</span>` : html`${actor}`);
    const query = new URLSearchParams(Object.entries(values).filter(([, value]) => value !== '')).toString();
    const next = rows.length === PAGE ? `/console/audit?${query}${query === '' ? '' : '&'}cursor=${rows[rows.length - 1]!.id}` : undefined;
    return reply.type('text/html; charset=utf-8').send(
      consolePage({
        title: 'Audit log',
        session,
        active: '/console/audit',
        body: html`<form method="get" action="/console/audit" class="inline search" role="search">
  <label>Who <input type="text" name="actor" maxlength="200" value="${values.actor}" placeholder="person:someone@example.com"></label>
  <label>What (starts with) <input type="text" name="action" maxlength="200" value="${values.action}" placeholder="POST /console/orders"></label>
  <label>On what (starts with) <input type="text" name="target" maxlength="200" value="${values.target}" placeholder="orders/"></label>
  <button type="submit">Search</button>
</form>
<p><a href="/console/audit.csv${query === '' ? '' : `?${query}`}" download>Export these entries as CSV</a></p>
${rows.length === 0
  ? html`<p role="status">No entry matches.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">On what</th><th scope="col">Status</th><th scope="col">From</th></tr></thead>
<tbody>${rows.map((row) => html`<tr><td>${time(row.at)}</td><td>${who(row.actor)}</td><td class="mono">${row.action}</td><td class="mono">${row.target ?? '—'}</td><td>${row.status}</td><td>${row.ip ?? '—'}</td></tr>`)}</tbody></table></div>`}
${next === undefined ? '' : html`<p><a href="${next}">Older entries</a></p>`}`,
      }),
    );
  });

  app.get('/console/audit.csv', viewer, async (request, reply) => {
    const { filter } = filterOf(request.query, EXPORT_MAX);
    const rows = await auditLog.list(filter);
    const json = (value: unknown): string => (value === null || value === undefined ? '' : JSON.stringify(value));
    const text = (value: string | null) => csvField(value, 'text');
    const lines = [
      csvRecord(['id', 'at', 'actor', 'action', 'target', 'status', 'ip', 'before', 'after']),
      ...rows.map((row) =>
        csvRecord([row.id, row.at.toISOString(), text(row.actor), text(row.action), text(row.target), String(row.status), text(row.ip), text(json(row.before)), text(json(row.after))]),
      ),
    ];
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="operator-audit.csv"')
      .send(lines.join(''));
  });
}
