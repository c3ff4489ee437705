import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CabinetClient } from '../helpers/cabinet-client.js';
import { CHANGE_ROLES } from '../../src/routes/admin/route-roles.js';
import { testEngine } from '../helpers/test-database.js';
import { BTC_REFUND, createOrder, shortFixedOrder, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { orderWithFailedExchange } from './console-helpers.js';

type Method = 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Entry {
  actor: string;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  status: number;
}

/** One call of a route: its path, body, and the status it is set up to get. */
interface Call {
  url: string;
  body?: unknown;
  status: number;
}

/**
 * Every mutating operator route (the route-roles.ts table, all of it) writes one audit entry
 * naming the caller; one that changes an existing object records it before and after, and a
 * create records what it made.
 */
describe('the operator audit log covers every mutating operator route', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '60', WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  after(() => h.t.close());

  it('each route in route-roles.ts: an entry with the actor, and before/after where it changes data', async () => {
    const partner = h.partner.id;
    const stuck = await orderWithFailedExchange(h);
    const partnerApi = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      h.t.app.inject({ method, url: `/api/v1/partner${url}`, headers: { authorization: `Bearer ${h.partner.apiKey}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
    const endpoint = await partnerApi('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook' });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const endpointId = endpoint.json<{ id: string }>().id;
    assert.equal((await partnerApi('POST', `/webhooks/${endpointId}/test`)).statusCode < 300, true);
    const deliveryId = (await partnerApi('GET', `/webhooks/${endpointId}/deliveries`)).json<{ deliveries: { id: string }[] }>().deliveries[0]?.id ?? '';
    const invited = await h.t.admin('POST', `/admin/v1/partners/${partner}/invitations`, { email: 'someone@partner.example' });
    const link = new URL(invited.json<{ url: string }>().url).pathname;
    h.t.secrets.add(link.split('/').pop() ?? '', 'cabinet invitation');
    const newcomer = new CabinetClient(h.t, '198.51.100.80');
    await newcomer.get(link);
    assert.equal((await newcomer.post(link, { password: 'amber harbour quiet lantern', confirm: 'amber harbour quiet lantern' })).statusCode, 303);
    await newcomer.signIn('someone@partner.example', 'amber harbour quiet lantern');
    const person = (await h.t.admin('GET', `/admin/v1/partners/${partner}/people`)).json<{ id: string }[]>()[0]?.id ?? '';
    assert.notEqual(person, '', 'the invited person accepted');
    const cancelled = await createOrder(h);
    const failed = await createOrder(h);
    const simulated = await createOrder(h);
    const [held, refunded, addressed] = [await shortFixedOrder(h), await shortFixedOrder(h), await shortFixedOrder(h)];
    const currency = (await h.t.admin('GET', '/admin/v1/currencies')).json<{ id: string; coin: string }[]>().find((row) => row.coin === 'BTC')?.id ?? '';
    const key = (await h.t.admin('POST', `/admin/v1/partners/${partner}/keys`, {})).json<{ key_id: string; api_key: string }>();
    h.t.secrets.add(key.api_key, 'partner key');

    const calls: Readonly<Record<string, Call>> = {
      'POST /admin/v1/orders/:id/cancel': { url: `/admin/v1/orders/${cancelled.id}/cancel`, status: 200 },
      'POST /admin/v1/orders/:id/continue': { url: `/admin/v1/orders/${held.id}/continue`, status: 200 },
      'POST /admin/v1/orders/:id/refund': { url: `/admin/v1/orders/${refunded.id}/refund`, status: 200 },
      'PUT /admin/v1/orders/:id/refund-address': { url: `/admin/v1/orders/${addressed.id}/refund-address`, body: { refund_address: BTC_REFUND }, status: 200 },
      'POST /admin/v1/orders/:id/fail': { url: `/admin/v1/orders/${failed.id}/fail`, body: { reason: 'audit coverage' }, status: 200 },
      'POST /admin/v1/orders/:id/resume': { url: `/admin/v1/orders/${stuck.id}/resume`, status: 200 },
      'POST /admin/v1/webhooks/:id/disable': { url: `/admin/v1/webhooks/${endpointId}/disable`, status: 200 },
      'POST /admin/v1/webhooks/:id/enable': { url: `/admin/v1/webhooks/${endpointId}/enable`, status: 200 },
      'POST /admin/v1/webhooks/deliveries/:id/retry': { url: `/admin/v1/webhooks/deliveries/${deliveryId}/retry`, status: 202 },
      // A month with no commission: nothing to pay, answered and logged all the same.
      'POST /admin/v1/commissions/payouts': { url: '/admin/v1/commissions/payouts', body: { period: '2020-01' }, status: 200 },
      // No payout awaits approval in this app: the refusal is an action too.
      'POST /admin/v1/payouts/:id/approve': { url: '/admin/v1/payouts/00000000-0000-4000-8000-000000000000/approve', body: { by: 'audit' }, status: 404 },
      'POST /admin/v1/ledger/transfers': { url: '/admin/v1/ledger/transfers', body: { asset: 'BTC', from: 'equity', to: 'hot_wallet', amount: '1', memo: 'capital', by: 'audit' }, status: 201 },
      'POST /admin/v1/signer/pause': { url: '/admin/v1/signer/pause', body: { chain: 'LTC', by: 'audit' }, status: 200 },
      'POST /admin/v1/signer/resume': { url: '/admin/v1/signer/resume', body: { chain: 'LTC', by: 'audit' }, status: 200 },
      'POST /admin/v1/partners': { url: '/admin/v1/partners', body: { name: 'Audited' }, status: 201 },
      'PATCH /admin/v1/partners/:id': { url: `/admin/v1/partners/${partner}`, body: { markup_bps: 25 }, status: 200 },
      'POST /admin/v1/partners/:id/invitations': { url: `/admin/v1/partners/${partner}/invitations`, body: { email: 'second@partner.example' }, status: 201 },
      'POST /admin/v1/partners/:id/password-resets': { url: `/admin/v1/partners/${partner}/password-resets`, body: { email: 'someone@partner.example' }, status: 201 },
      'POST /admin/v1/partners/:id/people/:person_id/clear-2fa': { url: `/admin/v1/partners/${partner}/people/${person}/clear-2fa`, status: 200 },
      'POST /admin/v1/partners/:id/people/:person_id/end-sessions': { url: `/admin/v1/partners/${partner}/people/${person}/end-sessions`, status: 200 },
      'DELETE /admin/v1/partners/:id/people/:person_id': { url: `/admin/v1/partners/${partner}/people/${person}`, status: 204 },
      'POST /admin/v1/partners/:id/keys': { url: `/admin/v1/partners/${partner}/keys`, body: {}, status: 201 },
      'DELETE /admin/v1/keys/:key_id': { url: `/admin/v1/keys/${key.key_id}`, status: 204 },
      'POST /admin/v1/currencies': {
        url: '/admin/v1/currencies',
        body: { coin: 'AUD1', network: 'ERC20', chain: 'ETH', name: 'Audit token', decimals: 6, token_contract: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', min_amount: '1', max_amount: '10' },
        status: 201,
      },
      'PATCH /admin/v1/currencies/:id': { url: `/admin/v1/currencies/${currency}`, body: { min_confirmations: 3 }, status: 200 },
      'PUT /admin/v1/prices/:coin': { url: '/admin/v1/prices/BTC', body: { price_usd: '64000' }, status: 200 },
      'POST /admin/v1/address-pools/:chain': { url: '/admin/v1/address-pools/SOL', body: { addresses: ['4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'] }, status: 200 },
      'PUT /admin/v1/address-pools/:chain/alert': { url: '/admin/v1/address-pools/SOL/alert', body: { low_at: 5 }, status: 200 },
      'POST /admin/v1/addresses/resync': { url: '/admin/v1/addresses/resync', body: {}, status: 200 },
      // The embedded store's backup; on PostgreSQL the refusal that names pg_dump.
      'POST /admin/v1/backup': { url: '/admin/v1/backup', body: {}, status: testEngine() === 'pglite' ? 200 : 409 },
      'POST /admin/v1/operators': { url: '/admin/v1/operators', body: { email: 'audited@ops.example', role: 'viewer' }, status: 201 },
      'POST /admin/v1/simulator/orders/:id/deposit': { url: `/admin/v1/simulator/orders/${simulated.id}/deposit`, body: {}, status: 200 },
      'POST /admin/v1/simulator/orders/:id/confirmations': { url: `/admin/v1/simulator/orders/${simulated.id}/confirmations`, body: { count: 1 }, status: 200 },
      'POST /admin/v1/simulator/orders/:id/drop-deposit': { url: `/admin/v1/simulator/orders/${simulated.id}/drop-deposit`, status: 200 },
      'POST /admin/v1/simulator/faults': { url: '/admin/v1/simulator/faults', body: { step: 'payout', count: 0 }, status: 200 },
    };
    assert.deepEqual(Object.keys(calls).sort(), Object.keys(CHANGE_ROLES).sort(), 'a call for every route of the table, and no other');

    const problems: string[] = [];
    for (const [route, call] of Object.entries(calls)) {
      const method = route.split(' ')[0] as Method;
      const res = await h.t.admin(method, call.url, call.body);
      if (res.statusCode !== call.status) {
        problems.push(`${route}: answered ${res.statusCode}, set up for ${call.status}: ${res.body.slice(0, 200)}`);
        continue;
      }
      const entries = (await h.t.admin('GET', `/admin/v1/audit?action=${encodeURIComponent(route.split(':')[0]!)}&limit=20`)).json<{ entries: Entry[] }>().entries;
      const entry = entries.find((row) => row.action === route);
      if (entry === undefined) {
        problems.push(`${route}: no audit entry`);
        continue;
      }
      if (entry.actor !== 'token:ADMIN_TOKEN') problems.push(`${route}: actor ${entry.actor}`);
      if (entry.status !== call.status) problems.push(`${route}: logged status ${entry.status}`);
      if (call.status >= 300) continue;
      const changesExisting = route.includes('/:');
      if (changesExisting && entry.before === null) problems.push(`${route}: no before`);
      if (method !== 'DELETE' && entry.after === null) problems.push(`${route}: no after`);
      if (method === 'DELETE' && entry.before === null) problems.push(`${route}: no before of what it removed`);
      // Routes that make something beside their object (a link, a key, a delivery attempt, a chain event) or, for clear-2fa, a person who never enrolled, leave the object as it was.
      if (changesExisting && method !== 'DELETE' && JSON.stringify(entry.before) === JSON.stringify(entry.after) && !/invitations|password-resets|keys$|retry|confirmations|drop-deposit|deposit$|clear-2fa/.test(route)) {
        problems.push(`${route}: before and after are the same`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
