import { stringify } from 'lossless-json';
import { integerFlag, type Flags } from './admin-args.js';
import { parseBody } from './admin-client.js';
import { asList, asRecord, printResponse, text, type ApiRecord, type Command, type CommandContext } from './admin-command.js';
import { UsageError } from './admin-errors.js';
import { cell, fields, table } from './admin-table.js';

const PARTNER_FIELDS = ['id', 'name', 'status', 'markup_bps', 'rate_limit_per_minute', 'max_open_orders', 'created_at'];
/** The API's largest page: `partners list` walks every page so nobody is silently left out. */
const PAGE_SIZE = 500;

const partnerPath = (id: string) => `/admin/v1/partners/${encodeURIComponent(id)}`;
const showPartner = (body: unknown) => fields(asRecord(body), PARTNER_FIELDS);

/**
 * The partner's settings from the flags that were given: every field POST and PATCH
 * /admin/v1/partners take besides name and status (a flag for each; a new field gets its own).
 */
function settings(flags: Flags): Record<string, number | null> {
  const body: Record<string, number | null> = {};
  if (flags['markup-bps'] !== undefined) body.markup_bps = integerFlag('markup-bps', flags['markup-bps']);
  if (flags['rate-limit'] !== undefined) body.rate_limit_per_minute = integerFlag('rate-limit', flags['rate-limit']);
  if (flags['max-open-orders'] !== undefined) body.max_open_orders = maxOpenOrders(flags['max-open-orders']);
  return body;
}

/** `--max-open-orders N`, or `default` for null: the server's MAX_OPEN_ORDERS_PER_PARTNER. */
function maxOpenOrders(raw: string): number | null {
  if (raw === 'default') return null;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--max-open-orders must be a whole number or "default" (the server's MAX_OPEN_ORDERS_PER_PARTNER), got "${raw}"`);
  return integerFlag('max-open-orders', raw);
}

function setStatus(status: 'active' | 'suspended', effect: string): Command['run'] {
  return async (context, [id = ''], _flags) => {
    const response = await context.api.send('PATCH', partnerPath(id), { status });
    printResponse(context, response, (body) => {
      const partner = asRecord(body);
      return `partner ${text(partner, 'id')} (${text(partner, 'name')}) is now ${status}: ${effect}`;
    });
  };
}

async function listPartners(context: CommandContext): Promise<void> {
  const partners: ApiRecord[] = [];
  const pages: string[] = [];
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const response = await context.api.send('GET', `/admin/v1/partners?limit=${PAGE_SIZE}&offset=${offset}`);
    const page = asList(parseBody(response));
    pages.push(response.text);
    partners.push(...page);
    if (page.length < PAGE_SIZE) break;
  }
  if (context.json) {
    // One page is the API's body as is; several are joined into one array (numbers kept exact).
    context.print(pages.length === 1 ? (pages[0] ?? '[]') : (stringify(partners) ?? '[]'));
    return;
  }
  if (partners.length === 0) {
    context.print('no partners yet: create one with partners create --name <name>');
    return;
  }
  context.print(
    table(
      ['ID', 'NAME', 'STATUS', 'MARKUP_BPS', 'RATE_LIMIT/MIN', 'MAX_OPEN_ORDERS', 'CREATED_AT'],
      partners.map((p) => [p.id, p.name, p.status, p.markup_bps, p.rate_limit_per_minute, p.max_open_orders ?? 'default', p.created_at].map(cell)),
    ),
  );
}

export const partnerCommands: readonly Command[] = [
  {
    words: ['partners', 'create'],
    args: [],
    flags: ['name', 'markup-bps', 'rate-limit', 'max-open-orders'],
    async run(context, _args, flags) {
      if (flags.name === undefined) throw new UsageError('partners create needs --name <name>');
      const response = await context.api.send('POST', '/admin/v1/partners', { name: flags.name, ...settings(flags) });
      printResponse(context, response, (body) => {
        const id = text(asRecord(body), 'id');
        return `created partner\n${showPartner(body)}\n\nnext: issue its API key with  keys create ${id}`;
      });
    },
  },
  {
    words: ['partners', 'list'],
    args: [],
    flags: [],
    run: listPartners,
  },
  {
    words: ['partners', 'show'],
    args: ['<partner-id>'],
    flags: [],
    async run(context, [id = '']) {
      printResponse(context, await context.api.send('GET', partnerPath(id)), showPartner);
    },
  },
  {
    words: ['partners', 'suspend'],
    args: ['<partner-id>'],
    flags: [],
    run: setStatus('suspended', 'its keys get 403 until it is activated again'),
  },
  {
    words: ['partners', 'activate'],
    args: ['<partner-id>'],
    flags: [],
    run: setStatus('active', 'its keys work again'),
  },
  {
    words: ['partners', 'update'],
    args: ['<partner-id>'],
    flags: ['markup-bps', 'rate-limit', 'max-open-orders'],
    async run(context, [id = ''], flags) {
      const changes = settings(flags);
      if (Object.keys(changes).length === 0) {
        throw new UsageError('partners update needs at least one of --markup-bps, --rate-limit, --max-open-orders');
      }
      printResponse(context, await context.api.send('PATCH', partnerPath(id), changes), showPartner);
    },
  },
  {
    words: ['partners', 'invite'],
    args: ['<partner-id>'],
    flags: ['email'],
    async run(context, [id = ''], flags) {
      if (flags.email === undefined) throw new UsageError('partners invite needs --email <address>');
      const response = await context.api.send('POST', `${partnerPath(id)}/invitations`, { email: flags.email });
      printResponse(context, response, (body) => {
        const invitation = asRecord(body);
        return `invitation for ${flags.email ?? ''} (one use, until ${text(invitation, 'expires_at')}):\n${text(invitation, 'url')}\n\nsend this link to the person: it sets their cabinet password`;
      });
    },
  },
  ...(['reset-password', 'password-reset'] as const).map(
    (action): Command => ({
      words: ['partners', action],
      args: ['<partner-id>'],
      flags: ['email', 'clear-2fa'],
      async run(context, [id = ''], flags) {
        if (flags.email === undefined) throw new UsageError(`partners ${action} needs --email <address>`);
        const clear = flags['clear-2fa'] === true;
        const response = await context.api.send('POST', `${partnerPath(id)}/password-resets`, { email: flags.email, ...(clear ? { clear_2fa: true } : {}) });
        printResponse(context, response, (body) => {
          const reset = asRecord(body);
          const effect = clear ? 'sets a new cabinet password, clears their two-factor and signs out all their sessions' : 'sets a new cabinet password and signs out all their sessions';
          return `password reset for ${flags.email ?? ''} (one use, until ${text(reset, 'expires_at')}; earlier links no longer work):\n${text(reset, 'url')}\n\nsend this link to the person: it ${effect}`;
        });
      },
    }),
  ),
];
