import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { runCabinetSecuritySuite, type CabinetSuiteRoute } from '../helpers/security-suite.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'granite meadow falcon ribbon';
const NEW_PASSWORD = 'lichen harbor quartz tangle';

/**
 * Every cabinet route against the shared security suite (test/helpers/security-suite.ts): no
 * session, another partner's person (404 for the owner's ids, none of the owner's data on its
 * own pages; a form answers 303 to a page saying so), no CSRF token; nothing changes on a refusal.
 */
describe('cabinet routes: sessions, partners apart, CSRF', () => {
  const clock = new ManualClock(new Date('2026-03-04T12:00:00.000Z'));
  let t: TestApp;
  let owner: CabinetClient;
  let other: CabinetClient;
  let ownerId: string;
  let orderId: string;
  let shortId: string;
  let keyId: string;
  let endpointId: string;
  let deliveryId: string;
  /** A second browser of the owner's person: the session the account page offers to sign out. */
  let ownerSecondSessionId: string;
  /** A second person of the owner's partner: the team forms act on them. */
  let teammateId: string;
  const endpointUrl = 'http://127.0.0.1:9/owner-hook';

  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
    const first = await cabinetPerson(t, { email: 'owner@suite.example', password: PASSWORD, address: '198.51.100.80' });
    owner = first.client;
    ownerId = first.partnerId;
    other = (await cabinetPerson(t, { email: 'other@suite.example', password: PASSWORD, address: '198.51.100.81' })).client;
    await cabinetPerson(t, { email: 'teammate@suite.example', password: PASSWORD, address: '198.51.100.84', partnerId: ownerId });
    teammateId = (await t.db.handle.db.selectFrom('cabinet_users').select('id').where('email', '=', 'teammate@suite.example').executeTakeFirstOrThrow()).id;
    const key = await t.admin('POST', `/admin/v1/partners/${ownerId}/keys`, { sandbox: true });
    const { api_key, key_id } = key.json<{ api_key: string; key_id: string }>();
    keyId = key_id;
    const order = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${api_key}` },
      payload: {
        coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float',
        recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      },
    });
    assert.equal(order.statusCode, 201, order.body);
    ({ id: orderId, short_id: shortId } = order.json<{ id: string; short_id: string }>());
    const created = await t.runtime.webhooks.create({ partnerId: ownerId, mode: 'live' }, { url: endpointUrl });
    endpointId = created.endpoint.id;
    deliveryId = (await t.runtime.webhooks.ping(endpointId, ownerId)).id;
    await new CabinetClient(t, '198.51.100.83').signIn('owner@suite.example', PASSWORD);
    const account = await owner.get('/cabinet/account');
    ownerSecondSessionId = /action="\/cabinet\/account\/sessions\/([0-9a-f-]{36})\/revoke"/.exec(account.body)?.[1] ?? '';
    assert.notEqual(ownerSecondSessionId, '');
  });
  after(() => t.close());

  const target = {
    owner: () => owner,
    other: () => other,
    anonymous: () => new CabinetClient(t, '198.51.100.82'),
    ownerMarkers: () => [orderId, shortId, keyId, endpointUrl, deliveryId, ownerSecondSessionId, 'owner@suite.example', 'teammate@suite.example', teammateId],
    state: async () => ({
      sessions: (
        await t.db.handle.db
          .selectFrom('cabinet_sessions as s')
          .innerJoin('cabinet_users as u', 'u.id', 's.user_id')
          .select('s.id')
          .where('u.email', '=', 'owner@suite.example')
          .orderBy('s.id')
          .execute()
      ).map((row) => row.id),
      keys: (await t.admin('GET', `/admin/v1/partners/${ownerId}/keys`)).body,
      partner: (await t.admin('GET', `/admin/v1/partners/${ownerId}`)).json<{ markup_bps: number }>().markup_bps,
      endpoints: (await t.runtime.webhooks.list(ownerId)).map((e) => [e.id, e.url, e.enabled, e.previous_secret_expires_at?.toISOString() ?? null]),
      order: (({ status, refund_address }) => [status, refund_address])((await t.admin('GET', `/admin/v1/orders/${orderId}`)).json<{ status: string; refund_address: string | null }>()),
      team: await t.db.handle.db.selectFrom('cabinet_users').select(['id', 'role']).where('partner_id', '=', ownerId).orderBy('id').execute(),
      invitations: (await t.db.handle.db.selectFrom('cabinet_invitations').where('partner_id', '=', ownerId).select((eb) => eb.fn.countAll<string | number>().as('count')).executeTakeFirstOrThrow()).count,
      person: await t.db.handle.db
        .selectFrom('cabinet_users')
        .select(['password_hash', 'totp_secret_sealed', 'totp_enabled_at'])
        .where('email', '=', 'owner@suite.example')
        .executeTakeFirstOrThrow(),
      deliveries: (await t.runtime.webhooks.deliveries(endpointId, ownerId, { limit: 100 }).catch(() => [])).map((d) => [d.id, d.status, d.attempt, d.next_attempt_at?.toISOString() ?? null]),
    }),
  };

  const ROUTES = (): CabinetSuiteRoute[] => [
    { method: 'GET', path: '/cabinet', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: '/cabinet/orders?sandbox=1', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: `/cabinet/orders?sandbox=1&search=${orderId}`, ownerStatus: 200, namesResource: false },
    { method: 'GET', path: `/cabinet/orders/${orderId}`, ownerStatus: 200, namesResource: true },
    { method: 'GET', path: `/cabinet/orders/${shortId}`, ownerStatus: 200, namesResource: true },
    { method: 'GET', path: '/cabinet/keys', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: '/cabinet/settings', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: '/cabinet/account', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: '/cabinet/webhooks', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: `/cabinet/webhooks/${endpointId}`, ownerStatus: 200, namesResource: true },
    { method: 'POST', path: `/cabinet/webhooks/${endpointId}/test`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/webhooks/${endpointId}/rotate`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/webhooks/${endpointId}/disable`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/webhooks/${endpointId}/enable`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/webhooks/deliveries/${deliveryId}/resend`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/webhooks/${endpointId}/edit`, fields: { url: endpointUrl, description: 'edited' }, ownerStatus: 303, namesResource: true },
    { method: 'GET', path: '/cabinet/orders.csv?mode=test', ownerStatus: 200, namesResource: false },
    { method: 'POST', path: '/cabinet/mode', fields: { mode: 'live', back: '/cabinet' }, ownerStatus: 303, namesResource: false },
    { method: 'POST', path: '/cabinet/settings', fields: { markup_bps: '40' }, ownerStatus: 303, namesResource: false },
    { method: 'GET', path: '/cabinet/payouts', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: '/cabinet/payouts/statements.csv', ownerStatus: 200, namesResource: false },
    // Refused (no two-factor, a wrong code): a 303 to the page with the problem, nothing changed.
    { method: 'POST', path: '/cabinet/payouts', fields: { currency_id: 'none', address: 'x', password: PASSWORD, code: '000000' }, ownerStatus: 303, namesResource: false },
    { method: 'POST', path: '/cabinet/payouts/cancel', fields: { currency_id: 'none' }, ownerStatus: 303, namesResource: false },
    { method: 'POST', path: '/cabinet/keys', fields: { label: 'suite', kind: 'sandbox' }, ownerStatus: 303, namesResource: false },
    { method: 'POST', path: '/cabinet/webhooks', fields: { url: 'http://127.0.0.1:9/suite-hook' }, ownerStatus: 303, namesResource: false },
    { method: 'POST', path: '/cabinet/account/totp', ownerStatus: 303, namesResource: false },
    { method: 'GET', path: '/cabinet/account/totp', ownerStatus: 200, namesResource: false },
    // A wrong code (the enrolment the route above began stays pending).
    { method: 'POST', path: '/cabinet/account/totp/confirm', fields: { code: 'x' }, ownerStatus: 303, namesResource: false },
    // Two-factor is not on (the enrolment above is pending): the password with any code is refused (issue 26.9).
    { method: 'POST', path: '/cabinet/account/totp/disable', fields: { password: PASSWORD, code: '000000' }, ownerStatus: 303, namesResource: false },
    {
      method: 'POST',
      path: `/cabinet/orders/${orderId}/actions/set_refund_address`,
      fields: { refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' },
      ownerStatus: 303,
      namesResource: true,
    },
    { method: 'POST', path: `/cabinet/orders/${orderId}/actions/cancel`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/keys/${keyId}/revoke`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/webhooks/${endpointId}/delete`, ownerStatus: 303, namesResource: true },
    { method: 'GET', path: '/cabinet/team', ownerStatus: 200, namesResource: false },
    { method: 'GET', path: '/cabinet/requests?status=2xx', ownerStatus: 200, namesResource: false },
    { method: 'POST', path: '/cabinet/team/invitations', fields: { email: 'new@suite.example', role: 'viewer' }, ownerStatus: 303, namesResource: false },
    { method: 'POST', path: `/cabinet/team/${teammateId}/role`, fields: { role: 'viewer' }, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/team/${teammateId}/remove`, ownerStatus: 303, namesResource: true },
    { method: 'POST', path: `/cabinet/account/sessions/${ownerSecondSessionId}/revoke`, ownerStatus: 303, namesResource: true },
    // Last: the owner's success ends the owner's other sessions.
    { method: 'POST', path: '/cabinet/account/sessions/revoke-others', ownerStatus: 303, namesResource: false },
    { method: 'POST', path: '/cabinet/account/password', fields: { current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD }, ownerStatus: 303, namesResource: false },
  ];
  // The suite is laid out before the routes can be listed (they name what `before` makes), so the
  // count is written here, and checked: a route added to the list is never left out unseen.
  const COUNT = 41;
  it('the suite runs every route of the list', () => assert.equal(ROUTES().length, COUNT));
  runCabinetSecuritySuite('every route', target, ROUTES, COUNT);
});
