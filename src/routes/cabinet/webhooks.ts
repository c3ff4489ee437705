import type { FastifyReply } from 'fastify';
import type { App, Services } from '../../app-types.js';
import type { AttemptResponse } from '../../db/repositories/webhook-deliveries-repository.js';
import type { WebhookEndpointRow } from '../../db/schema/webhooks.js';
import { isMode } from '../../domain/modes.js';
import { CANONICAL_UUID_PATTERN } from '../../domain/short-id.js';
import { SUBSCRIBABLE_EVENT_TYPES, type WebhookEventType } from '../../domain/webhook-events.js';
import { ApiError } from '../../errors.js';
import { html, type Html } from './html.js';
import { can, confirmForm, csrfField, errorPage, page, roleNote, time } from './layout.js';
import { formField, sessionOf, type CabinetSession, type CabinetSessions } from './session.js';

const DELIVERIES_SHOWN = 50;
/** The most lines "Show more" reaches (50 at a time). */
const DELIVERIES_MAX = 1000;
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The delivery log's view: a status, an event type, how many lines (`?status=&event=&shown=`). */
interface LogView {
  status: DeliveryStatus | undefined;
  event: WebhookEventType | 'ping' | undefined;
  shown: number;
}

function logView(query: Record<string, unknown>): LogView {
  const status = DELIVERY_STATUSES.find((value) => value === query.status);
  const event = [...SUBSCRIBABLE_EVENT_TYPES, 'ping' as const].find((value) => value === query.event);
  const asked = typeof query.shown === 'string' && /^[0-9]{1,4}$/.test(query.shown) ? Number(query.shown) : DELIVERIES_SHOWN;
  return { status, event, shown: Math.min(DELIVERIES_MAX, Math.max(DELIVERIES_SHOWN, Math.ceil(asked / DELIVERIES_SHOWN) * DELIVERIES_SHOWN)) };
}

/** An event's request body as sent (pretty-printed when it is JSON). */
function requestBody(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}
const NOT_FOUND = 'There is no webhook endpoint or delivery of yours with this id.';

/** What the receiver answered to an attempt: status, headers, and the first 4 KiB of the body as text. */
function responseView(statusCode: number | null, response: AttemptResponse | undefined): Html {
  if (response === undefined || (response.response_headers === null && response.response_body === null)) return html``;
  const headers = Object.entries(response.response_headers ?? {});
  const body = response.response_body === null || response.response_body.length === 0 ? '' : response.response_body.toString('utf8');
  return html`<details class="request"><summary>Response</summary>
<pre class="mono">HTTP ${statusCode ?? '—'}
${headers.map(([name, value]) => `${name}: ${value}\n`).join('')}
${body === '' ? '(empty body)' : body}</pre>${response.response_body !== null && response.response_body.length >= 4096 ? html`<p class="hint">The first 4 KiB of the body: the rest was not read.</p>` : ''}</details>`;
}

/** What a page says after each form's 303 (`?done=`). */
const DONE: Readonly<Record<string, string>> = {
  test: 'A test event (ping) is on its way: its delivery is listed below.',
  disable: 'The endpoint is disabled: its deliveries wait.',
  enable: 'The endpoint is enabled.',
  resent: 'The delivery is sent again now, with the same webhook-id.',
  deleted: 'The endpoint is deleted.',
  edited: 'The endpoint is saved.',
};
const doneNotice = (query: unknown): string | undefined => {
  const done = (query as Record<string, unknown>).done;
  return typeof done === 'string' && Object.hasOwn(DONE, done) ? DONE[done] : undefined;
};

/** The secret of a new or rotated endpoint, shown once as an API key is. */
function secretBox(title: string, secret: string): Html {
  return html`<section class="secret" aria-labelledby="secret-title">
<h2 id="secret-title">${title}</h2>
<p>Your receiver verifies every delivery with this signing secret (Standard Webhooks). Copy it now: it is shown only this once.</p>
<label>Signing secret <input type="text" id="new-secret" value="${secret}" readonly spellcheck="false" autocomplete="off"></label>
<p><button type="button" data-copy="new-secret" hidden>Copy secret</button> <span id="new-secret-status" role="status"></span></p>
</section>`;
}

function endpointState(endpoint: WebhookEndpointRow): string {
  if (endpoint.enabled) return endpoint.failing_since === null ? 'enabled' : 'enabled, failing';
  return endpoint.disabled_reason === 'operator' ? 'disabled by the operator' : endpoint.disabled_reason === 'failing' ? 'disabled after 5 days of failures' : 'disabled';
}

/**
 * The partner's webhooks (docs/contract.md §8 and §9), through the webhooks service the partner API uses
 * (WebhookEndpoints, scoped to the partner: another partner's endpoint or delivery is a 404;
 * the list shows the cabinet mode's endpoints, and a new one gets that mode, docs/contract.md §9.1, §10.2):
 * endpoints, the delivery log, resend, test, rotate, disable, delete. Adding an endpoint and
 * rotating its secret answer with a redirect to the endpoint's page and a one-use reveal (as a
 * new API key does): that page shows the signing secret once; a reload shows none and neither
 * adds another endpoint nor rotates again.
 */
export function registerCabinetWebhooks(app: App, { webhooks, cabinet }: Services, sessions: CabinetSessions): void {
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);
  /**
   * A refusal of the service, after a form: 303 back to `path` with its message (written for the
   * partner); an endpoint or delivery that is not the partner's goes to the list.
   */
  const refusal = (reply: FastifyReply, session: CabinetSession, error: unknown, path: string) => {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'not_found') return sessions.flash.redirect(reply, session, '/cabinet/webhooks', 'problem', NOT_FOUND);
    return sessions.flash.redirect(reply, session, path, 'problem', error.message);
  };

  const listPage = async (session: CabinetSession, options: { problem?: string; notice?: string } = {}) => {
    // The endpoints of the cabinet's mode (docs/contract.md §9.1); a new one gets that mode.
    const endpoints = await webhooks.list({ partnerId: session.partnerId, mode: session.mode });
    return page({
      title: 'Webhooks',
      session,
      active: '/cabinet/webhooks',
      notice: options.notice,
      problem: options.problem,
      body: html`<h2>Your ${session.mode === 'sandbox' ? 'sandbox' : 'live'} endpoints</h2>
${endpoints.length === 0
  ? html`<p>No ${session.mode === 'sandbox' ? 'sandbox' : 'live'} endpoints yet: add one to be told of every order's changes.</p>`
  : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">URL</th><th scope="col">Mode</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Created</th></tr></thead>
<tbody>${endpoints.map(
  (endpoint) => html`<tr>
<td data-label="URL"><div><a class="mono" href="/cabinet/webhooks/${endpoint.id}">${endpoint.url}</a>${endpoint.description === null ? '' : html`<br><span class="hint">${endpoint.description}</span>`}</div></td>
<td data-label="Mode">${endpoint.mode}</td>
<td data-label="Events">${endpoint.events === null ? 'all' : endpoint.events.join(', ')}</td>
<td data-label="State">${endpointState(endpoint)}</td>
<td data-label="Created">${time(endpoint.created_at)}</td>
</tr>`,
)}</tbody></table></div>`}
${can(session, 'webhooks')
  ? html`<h2>Add an endpoint</h2>
<form method="post" action="/cabinet/webhooks" class="stack">
  ${csrfField(session.csrf)}
  <label>URL <input type="url" name="url" required maxlength="2048" placeholder="https://example.com/webhooks/exchange"></label>
  <label>Description (optional) <input type="text" name="description" maxlength="200"></label>
  <input type="hidden" name="mode" value="${session.mode}">
  <p class="hint">It receives the events of ${session.mode === 'sandbox' ? 'sandbox (test) orders: switch to live mode for an endpoint of live orders' : 'live orders: switch to test mode for an endpoint of sandbox orders'}.</p>
  <fieldset>
    <legend>Events (none checked: all)</legend>
    ${SUBSCRIBABLE_EVENT_TYPES.map((type) => html`<label class="check"><input type="checkbox" name="events" value="${type}"> ${type}</label>`)}
  </fieldset>
  <button type="submit">Add endpoint</button>
</form>`
  : roleNote(session, 'adding and changing endpoints needs a developer or an owner')}`,
    });
  };

  const detailPage = async (
    session: CabinetSession,
    id: string,
    options: { secret?: { title: string; value: string }; notice?: string; problem?: string; view?: LogView } = {},
  ) => {
    const view = options.view ?? { status: undefined, event: undefined, shown: DELIVERIES_SHOWN };
    const endpoint = await webhooks.get(id, session.partnerId);
    // The service filters by status; the event filter keeps that event's lines of the newest
    // DELIVERIES_MAX (the log's reach), so an older event is found behind many newer ones.
    const read = await webhooks.deliveries(id, session.partnerId, { status: view.status, limit: (view.event === undefined ? view.shown : DELIVERIES_MAX) + 1 });
    const matching = view.event === undefined ? read : read.filter((delivery) => delivery.event_type === view.event);
    const deliveries = matching.slice(0, view.shown);
    const more = matching.length > view.shown && view.shown < DELIVERIES_MAX;
    // Each delivery's request body (the event as sent) and its order, the partner's own events only.
    const { events, responses } = await webhooks.deliveryDetails(session.partnerId, endpoint.id, deliveries);
    const eventOf = new Map(events.map((event) => [event.id, event]));
    const responseOf = new Map(responses.map((response) => [`${response.delivery_id}:${response.attempt}`, response]));
    const viewQuery = (shown: number) => {
      const params = new URLSearchParams();
      if (view.status !== undefined) params.set('status', view.status);
      if (view.event !== undefined) params.set('event', view.event);
      params.set('shown', String(shown));
      return params.toString();
    };
    const action = (path: string, label: string, style = '') =>
      html`<form method="post" action="/cabinet/webhooks/${endpoint.id}/${path}" class="inline">${csrfField(session.csrf)}<button type="submit"${style === '' ? '' : html` class="${style}"`}>${label}</button></form>`;
    return page({
      title: 'Webhook endpoint',
      session,
      active: '/cabinet/webhooks',
      notice: options.notice,
      problem: options.problem,
      body: html`${options.secret === undefined ? '' : secretBox(options.secret.title, options.secret.value)}
<dl class="facts">
<dt>URL</dt><dd class="mono">${endpoint.url}</dd>
<dt>Mode</dt><dd>${endpoint.mode === 'live' ? 'live: events of live orders' : 'sandbox: events of sandbox (test) orders'}</dd>
<dt>Description</dt><dd>${endpoint.description ?? '—'}</dd>
<dt>Events</dt><dd>${endpoint.events === null ? 'all' : endpoint.events.join(', ')}</dd>
<dt>State</dt><dd>${endpointState(endpoint)}${endpoint.failing_since === null ? '' : html` (failing since ${time(endpoint.failing_since)})`}</dd>
<dt>Secret rotated</dt><dd>${endpoint.previous_secret_expires_at === null ? 'never' : html`the old secret signs until ${time(endpoint.previous_secret_expires_at)}`}</dd>
</dl>
${can(session, 'webhooks')
  ? html`<div class="actions">${action('test', 'Send a test event')} ${endpoint.enabled ? action('disable', 'Disable', 'secondary') : action('enable', 'Enable', 'secondary')}
${confirmForm({ action: `/cabinet/webhooks/${endpoint.id}/rotate`, csrf: session.csrf, label: 'Rotate secret…', question: 'A new signing secret is made now; the old one keeps signing for 24 hours beside it, then stops. Your receiver must learn the new one within that time.', confirm: 'Yes, rotate the secret' })}
${confirmForm({ action: `/cabinet/webhooks/${endpoint.id}/delete`, csrf: session.csrf, label: 'Delete endpoint…', question: 'The endpoint and its delivery log are deleted, and its deliveries not yet made are dropped. This cannot be undone.', confirm: 'Yes, delete the endpoint' })}</div>`
  : roleNote(session, 'testing, changing and deleting endpoints needs a developer or an owner')}
${can(session, 'webhooks')
  ? html`<h2>Edit</h2>
<form method="post" action="/cabinet/webhooks/${endpoint.id}/edit" class="stack">
  ${csrfField(session.csrf)}
  <label>URL <input type="url" name="url" required maxlength="2048" value="${endpoint.url}"></label>
  <label>Description (optional) <input type="text" name="description" maxlength="200" value="${endpoint.description ?? ''}"></label>
  <fieldset>
    <legend>Events (none checked: all)</legend>
    ${SUBSCRIBABLE_EVENT_TYPES.map((type) => html`<label class="check"><input type="checkbox" name="events" value="${type}"${endpoint.events?.includes(type) === true ? html` checked` : ''}> ${type}</label>`)}
  </fieldset>
  <button type="submit">Save endpoint</button>
</form>`
  : roleNote(session, 'editing needs a developer or an owner')}
<h2>Deliveries</h2>
<form method="get" action="/cabinet/webhooks/${endpoint.id}" class="filters">
  <label>Status <select name="status"><option value="">any</option>${DELIVERY_STATUSES.map((status) => html`<option value="${status}"${view.status === status ? html` selected` : ''}>${status}</option>`)}</select></label>
  <label>Event <select name="event"><option value="">any</option>${[...SUBSCRIBABLE_EVENT_TYPES, 'ping'].map((type) => html`<option value="${type}"${view.event === type ? html` selected` : ''}>${type}</option>`)}</select></label>
  <button type="submit">Show deliveries</button>
</form>
${deliveries.length === 0
  ? html`<p>No deliveries${view.status === undefined && view.event === undefined ? ' yet' : ' match'}.</p>`
  : html`<div class="table-wrap"><table class="responsive">
<caption class="hint">The last ${deliveries.length} attempts${view.status === undefined ? '' : html` ${view.status}`}${view.event === undefined ? '' : html` of ${view.event}`}, newest first</caption>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempt</th><th scope="col">Answer</th><th scope="col">Next attempt</th><th scope="col">Resend</th></tr></thead>
<tbody>${deliveries.map(
  (delivery) => html`<tr>
<td data-label="Event"><div>${delivery.event_type}<br><span class="mono hint">${delivery.event_id}</span>${(() => {
    const event = eventOf.get(delivery.event_id);
    if (event === undefined) return '';
    return html`${event.order_id === null ? '' : html`<br><a href="/cabinet/orders/${event.order_id}">Order</a>`}<details class="request"><summary>Request body</summary><pre class="mono">${requestBody(event.payload)}</pre></details>`;
  })()}</div></td>
<td data-label="Status">${delivery.status}</td>
<td data-label="Attempt" class="num">${delivery.attempt === 0 ? 'queued' : delivery.attempt}</td>
<td data-label="Answer"><div>${delivery.attempted_at === null ? '—' : html`${time(delivery.attempted_at)}: ${delivery.status_code ?? 'no answer'}${delivery.duration_ms === null ? '' : html` in ${delivery.duration_ms} ms`}${delivery.error === null ? '' : html`, ${delivery.error}`}${responseView(delivery.status_code, responseOf.get(`${delivery.id}:${delivery.attempt}`))}`}</div></td>
<td data-label="Next attempt"><div>${time(delivery.next_attempt_at)}</div></td>
<td data-label="Resend">${can(session, 'webhooks') ? html`<form method="post" action="/cabinet/webhooks/deliveries/${delivery.id}/resend" class="inline">${csrfField(session.csrf)}<button type="submit" class="secondary">Resend<span class="visually-hidden"> ${delivery.event_type} ${delivery.event_id}</span></button></form>` : '—'}</td>
</tr>`,
)}</tbody></table></div>`}
${more ? html`<p class="pager"><a href="/cabinet/webhooks/${endpoint.id}?${viewQuery(view.shown + DELIVERIES_SHOWN)}">Show ${DELIVERIES_SHOWN} more</a></p>` : ''}
<p><a href="/cabinet/webhooks">All endpoints</a></p>`,
    });
  };
  const idOf = (params: unknown): string | undefined => {
    const id = (params as { id?: string }).id;
    return id !== undefined && CANONICAL_UUID_PATTERN.test(id) ? id : undefined;
  };
  const notFound = (reply: FastifyReply) => send(reply, errorPage('Not found', NOT_FOUND), 404);

  app.get('/cabinet/webhooks', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const flash = sessions.flash.read(session, request.query);
    return send(reply, await listPage(session, { notice: flash.notice ?? doneNotice(request.query), problem: flash.problem }));
  });

  app.post('/cabinet/webhooks', { schema: { hide: true }, preHandler: sessions.permitted('webhooks') }, async (request, reply) => {
    const session = sessionOf(request);
    const raw = (request.body as Record<string, unknown>).events;
    const picked = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((type): type is WebhookEventType =>
      (SUBSCRIBABLE_EVENT_TYPES as readonly unknown[]).includes(type),
    );
    const description = (formField(request, 'description') ?? '').trim();
    // docs/contract.md §10.2: the person chooses the mode: the cabinet's mode the form was shown in.
    const mode = formField(request, 'mode') ?? session.mode;
    if (!isMode(mode)) return sessions.flash.redirect(reply, session, '/cabinet/webhooks', 'problem', 'Choose the mode: live or sandbox.');
    try {
      const created = await webhooks.create({ partnerId: session.partnerId, mode }, {
        url: (formField(request, 'url') ?? '').trim(),
        events: picked.length === 0 ? null : picked,
        description: description === '' ? null : description.slice(0, 200),
      });
      const reveal = await cabinet.reveals.offer(session.found.session.id, 'webhook_secret', created.endpoint.id);
      return reply.redirect(`/cabinet/webhooks/${created.endpoint.id}?created=${reveal}`, 303);
    } catch (error) {
      return refusal(reply, session, error, '/cabinet/webhooks');
    }
  });

  /** The pages a create or rotate form redirected to: the signing secret once, then never again. */
  const REVEALS = {
    created: { title: 'Your new endpoint', notice: 'The endpoint is added.' },
    rotated: { title: 'Your new signing secret', notice: 'The old secret keeps signing for 24 hours beside the new one.' },
  } as const;
  const revealed = async (session: CabinetSession, id: string, query: Record<string, unknown>) => {
    for (const [name, words] of Object.entries(REVEALS)) {
      const reveal = query[name];
      if (typeof reveal !== 'string') continue;
      const subject = CANONICAL_UUID_PATTERN.test(reveal) ? await cabinet.reveals.take(session.found.session.id, reveal, 'webhook_secret') : undefined;
      if (subject === id) return { secret: { title: words.title, value: await webhooks.openSecret(id, session.partnerId) }, notice: words.notice };
      return { notice: 'A signing secret is shown only once, on the page right after it is made: it is not shown again. If you did not copy it, rotate it.' };
    }
    return {};
  };

  app.get('/cabinet/webhooks/:id', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const id = idOf(request.params);
    if (id === undefined) return notFound(reply);
    const session = sessionOf(request);
    const query = request.query as Record<string, unknown>;
    const flash = sessions.flash.read(session, query);
    try {
      const shown = await revealed(session, id, query);
      return send(reply, await detailPage(session, id, { ...shown, notice: shown.notice ?? flash.notice ?? doneNotice(query), problem: flash.problem, view: logView(query) }));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return notFound(reply);
      throw error;
    }
  });

  /** The endpoint's actions: each answers 303 to the endpoint's page (docs/contract.md §9.1), which says what happened. */
  const ACTIONS = {
    test: (session: CabinetSession, id: string) => webhooks.ping(id, session.partnerId),
    disable: (session: CabinetSession, id: string) => webhooks.update(id, session.partnerId, { enabled: false }),
    enable: (session: CabinetSession, id: string) => webhooks.update(id, session.partnerId, { enabled: true }),
  } as const;

  app.post('/cabinet/webhooks/:id/rotate', { schema: { hide: true }, preHandler: sessions.permitted('webhooks') }, async (request, reply) => {
    const session = sessionOf(request);
    const id = idOf(request.params);
    if (id === undefined) return sessions.flash.redirect(reply, session, '/cabinet/webhooks', 'problem', NOT_FOUND);
    try {
      await webhooks.rotateSecret(id, session.partnerId);
    } catch (error) {
      return refusal(reply, session, error, `/cabinet/webhooks/${id}`);
    }
    const reveal = await cabinet.reveals.offer(session.found.session.id, 'webhook_secret', id);
    return reply.redirect(`/cabinet/webhooks/${id}?rotated=${reveal}`, 303);
  });

  for (const [name, run] of Object.entries(ACTIONS)) {
    app.post(`/cabinet/webhooks/:id/${name}`, { schema: { hide: true }, preHandler: sessions.permitted('webhooks') }, async (request, reply) => {
      const session = sessionOf(request);
      const id = idOf(request.params);
      if (id === undefined) return sessions.flash.redirect(reply, session, '/cabinet/webhooks', 'problem', NOT_FOUND);
      try {
        await run(session, id);
      } catch (error) {
        return refusal(reply, session, error, `/cabinet/webhooks/${id}`);
      }
      return reply.redirect(`/cabinet/webhooks/${id}?done=${name}`, 303);
    });
  }

  /** Edit: URL, description and events (the service checks the URL as it checks a new one). */
  app.post('/cabinet/webhooks/:id/edit', { schema: { hide: true }, preHandler: sessions.permitted('webhooks') }, async (request, reply) => {
    const session = sessionOf(request);
    const id = idOf(request.params);
    if (id === undefined) return sessions.flash.redirect(reply, session, '/cabinet/webhooks', 'problem', NOT_FOUND);
    const raw = (request.body as Record<string, unknown>).events;
    const picked = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((type): type is WebhookEventType =>
      (SUBSCRIBABLE_EVENT_TYPES as readonly unknown[]).includes(type),
    );
    const description = (formField(request, 'description') ?? '').trim();
    try {
      await webhooks.update(id, session.partnerId, {
        url: (formField(request, 'url') ?? '').trim(),
        events: picked.length === 0 ? null : picked,
        description: description === '' ? null : description.slice(0, 200),
      });
    } catch (error) {
      return refusal(reply, session, error, `/cabinet/webhooks/${id}`);
    }
    return reply.redirect(`/cabinet/webhooks/${id}?done=edited`, 303);
  });

  app.post('/cabinet/webhooks/:id/delete', { schema: { hide: true }, preHandler: sessions.permitted('webhooks') }, async (request, reply) => {
    const session = sessionOf(request);
    const id = idOf(request.params);
    if (id === undefined) return sessions.flash.redirect(reply, session, '/cabinet/webhooks', 'problem', NOT_FOUND);
    try {
      await webhooks.remove(id, session.partnerId);
    } catch (error) {
      return refusal(reply, session, error, '/cabinet/webhooks');
    }
    return reply.redirect('/cabinet/webhooks?done=deleted', 303);
  });

  app.post('/cabinet/webhooks/deliveries/:id/resend', { schema: { hide: true }, preHandler: sessions.permitted('webhooks') }, async (request, reply) => {
    const session = sessionOf(request);
    const id = idOf(request.params);
    if (id === undefined) return sessions.flash.redirect(reply, session, '/cabinet/webhooks', 'problem', NOT_FOUND);
    let endpointId: string;
    try {
      endpointId = (await webhooks.retry(id, session.partnerId)).endpoint_id;
    } catch (error) {
      return refusal(reply, session, error, '/cabinet/webhooks');
    }
    return reply.redirect(`/cabinet/webhooks/${endpointId}?done=resent`, 303);
  });
}
