import { asList, asRecord, printResponse, text, type Command } from './admin-command.js';
import { cell, table } from './admin-table.js';

const keysPath = (partnerId: string) => `/admin/v1/partners/${encodeURIComponent(partnerId)}/keys`;

export const keyCommands: readonly Command[] = [
  {
    words: ['keys', 'create'],
    args: ['<partner-id>'],
    flags: ['sandbox', 'client'],
    async run(context, [partnerId = ''], flags) {
      // Without flags no body is sent: a live full key, as the API gives by default.
      const asked = { ...(flags.sandbox === true ? { sandbox: true } : {}), ...(flags.client === true ? { scope: 'client' } : {}) };
      const response = await context.api.send('POST', keysPath(partnerId), Object.keys(asked).length === 0 ? undefined : asked);
      printResponse(context, response, (body) => {
        const key = asRecord(body);
        const sandbox = key.sandbox === true;
        const client = key.scope === 'client';
        return [
          `${[sandbox ? 'Sandbox' : '', client ? 'client key' : 'API key'].filter(Boolean).join(' ').replace(/^client/, 'Client')} for partner ${partnerId}:`,
          '',
          `  ${text(key, 'api_key')}`,
          '',
          `key_id      ${text(key, 'key_id')}`,
          `created_at  ${cell(key.created_at)}`,
          '',
          'This is the only time the full key is shown: store it now.',
          'Only its key_id can be listed later; a lost key is revoked and replaced.',
          ...(sandbox
            ? ['', 'Orders made with it are test orders: they run on the simulator only; deposit to them with', 'POST /api/v1/partner/sandbox/orders/{order_id}/deposit.']
            : []),
          ...(client
            ? ['', 'A client key may ship inside an app: it reads currencies and rates, validates addresses, creates', 'orders and reads the orders it created; anything else is 403 scope.']
            : []),
        ].join('\n');
      });
    },
  },
  {
    words: ['keys', 'list'],
    args: ['<partner-id>'],
    flags: [],
    async run(context, [partnerId = '']) {
      printResponse(context, await context.api.send('GET', keysPath(partnerId)), (body) => {
        const keys = asList(body);
        if (keys.length === 0) return `partner ${partnerId} has no API keys: issue one with keys create ${partnerId}`;
        return table(
          ['KEY_ID', 'STATUS', 'MODE', 'SCOPE', 'CREATED_AT', 'REVOKED_AT'],
          keys.map((key) => [
            cell(key.key_id),
            key.revoked_at === null ? 'active' : 'revoked',
            key.sandbox === true ? 'sandbox' : 'live',
            cell(key.scope),
            cell(key.created_at),
            cell(key.revoked_at),
          ]),
        );
      });
    },
  },
  {
    words: ['keys', 'revoke'],
    args: ['<key-id>'],
    flags: [],
    async run(context, [keyId = '']) {
      await context.api.send('DELETE', `/admin/v1/keys/${encodeURIComponent(keyId)}`);
      // The API answers 204 with no body; scripts still get one JSON document to parse.
      context.print(
        context.json
          ? JSON.stringify({ key_id: keyId, revoked: true })
          : `revoked key ${keyId}: requests with it get 401 from now on`,
      );
    },
  },
];
