import { integerFlag } from './admin-args.js';
import { asRecord, printResponse, text, type Command } from './admin-command.js';
import { cell, table } from './admin-table.js';

const endpointPath = (id: string) => `/admin/v1/webhooks/${encodeURIComponent(id)}`;

/** Fields of an answer's list property as records. */
function listOf(body: unknown, field: string): Record<string, unknown>[] {
  const list = asRecord(body)[field];
  return Array.isArray(list) ? list.map(asRecord) : [];
}

function endpointLine(endpoint: Record<string, unknown>): string {
  const state = endpoint.enabled === true ? 'enabled' : `disabled (${cell(endpoint.disabled_reason)})`;
  return `webhook endpoint ${text(endpoint, 'id')} of partner ${text(endpoint, 'partner_id')}: ${state}, ${text(endpoint, 'url')}`;
}

/** The operator's webhook commands (docs/contract.md §8): any partner's endpoints, their logs, disable, redeliver. */
export const webhookCommands: readonly Command[] = [
  {
    words: ['webhooks', 'list'],
    args: [],
    flags: ['partner', 'limit'],
    async run(context, _args, flags) {
      const query = new URLSearchParams();
      if (flags.partner !== undefined) query.set('partner_id', flags.partner);
      if (flags.limit !== undefined) query.set('limit', String(integerFlag('limit', flags.limit)));
      const path = `/admin/v1/webhooks${query.size > 0 ? `?${query.toString()}` : ''}`;
      printResponse(context, await context.api.send('GET', path), (body) => {
        const endpoints = listOf(body, 'webhooks');
        if (endpoints.length === 0) return 'no webhook endpoints';
        return table(
          ['ID', 'PARTNER', 'STATE', 'FAILING_SINCE', 'URL'],
          endpoints.map((e) => [
            cell(e.id),
            cell(e.partner_id),
            e.enabled === true ? 'enabled' : `disabled:${cell(e.disabled_reason)}`,
            cell(e.failing_since),
            cell(e.url),
          ]),
        );
      });
    },
  },
  {
    words: ['webhooks', 'deliveries'],
    args: ['<endpoint-id>'],
    flags: ['status', 'limit'],
    async run(context, [id = ''], flags) {
      const query = new URLSearchParams();
      if (flags.status !== undefined) query.set('status', flags.status);
      if (flags.limit !== undefined) query.set('limit', String(integerFlag('limit', flags.limit)));
      const path = `${endpointPath(id)}/deliveries${query.size > 0 ? `?${query.toString()}` : ''}`;
      printResponse(context, await context.api.send('GET', path), (body) => {
        const deliveries = listOf(body, 'deliveries');
        if (deliveries.length === 0) return `endpoint ${id} has no deliveries`;
        return table(
          ['DELIVERY', 'EVENT', 'TYPE', 'STATUS', 'ATTEMPT', 'AT', 'CODE', 'MS', 'NEXT_ATTEMPT', 'ERROR'],
          deliveries.map((d) => [
            cell(d.id),
            cell(d.event_id),
            cell(d.event_type),
            cell(d.status),
            cell(d.attempt),
            cell(d.last_attempt_at),
            cell(d.status_code),
            cell(d.duration_ms),
            cell(d.next_attempt_at),
            cell(d.error),
          ]),
        );
      });
    },
  },
  {
    words: ['webhooks', 'disable'],
    args: ['<endpoint-id>'],
    flags: [],
    async run(context, [id = '']) {
      printResponse(context, await context.api.send('POST', `${endpointPath(id)}/disable`), (body) => endpointLine(asRecord(body)));
    },
  },
  {
    words: ['webhooks', 'enable'],
    args: ['<endpoint-id>'],
    flags: [],
    async run(context, [id = '']) {
      printResponse(context, await context.api.send('POST', `${endpointPath(id)}/enable`), (body) => endpointLine(asRecord(body)));
    },
  },
  {
    words: ['webhooks', 'redeliver'],
    args: ['<delivery-id>'],
    flags: [],
    async run(context, [id = '']) {
      const response = await context.api.send('POST', `/admin/v1/webhooks/deliveries/${encodeURIComponent(id)}/retry`);
      printResponse(context, response, (body) => {
        const delivery = asRecord(body);
        return `delivery ${text(delivery, 'id')} (${text(delivery, 'event_type')}, webhook-id ${text(delivery, 'event_id')}) is due now`;
      });
    },
  },
];
