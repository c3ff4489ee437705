import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { runSecuritySuite, type SuitePartner } from '../helpers/security-suite.js';

/**
 * The shared authentication suite (test/helpers/security-suite.ts) against every API-key route:
 * POST /partner/orders, GET /partner/orders/{id}, GET /partner/orders (v1.1), GET /partner/orders/{id}/qr.svg (v1.1),
 * POST /partner/sandbox/orders/{id}/deposit (v1.1), GET /partner/account, POST /partner/orders/status and
 * GET /partner/orders/stream (v1.2).
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

/** Sent as text, so the X-Signature checks sign exactly these bytes. */
const ORDER_BODY = JSON.stringify({
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
});

describe('protected routes', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
  });
  after(() => t.close());

  const count = async (table: 'orders' | 'order_events' | 'deposit_addresses' | 'idempotency_keys'): Promise<number> =>
    Number((await t.db.handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  runSecuritySuite('POST /api/v1/partner/orders', {
    app: () => t,
    request: async () => ({ method: 'POST', url: '/api/v1/partner/orders', payload: ORDER_BODY }),
    successStatus: 201,
    // docs/contract.md §10.9: a client key creates orders.
    clientKeyStatus: 201,
    state: async () => ({
      orders: await count('orders'),
      events: await count('order_events'),
      addresses: await count('deposit_addresses'),
      keys: await count('idempotency_keys'),
    }),
    invalidRequest: async () => ({
      method: 'POST',
      url: '/api/v1/partner/orders',
      // v1.2 takes a decimal string ("0.1"), but not one with an exponent.
      payload: ORDER_BODY.replace('"amount_from":0.1', '"amount_from":"1e-1"'),
    }),
  });

  /** One order per owner, made on first use with the owner's own key. */
  const orders = new Map<string, string>();
  const orderOf = async (owner: SuitePartner): Promise<string> => {
    const known = orders.get(owner.id);
    if (known !== undefined) return known;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
      payload: ORDER_BODY,
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    orders.set(owner.id, id);
    return id;
  };

  // docs/contract.md §10.11: the batch status read. Another partner's ids are simply left out (200), as
  // are, for a client key, the orders another key made.
  runSecuritySuite('POST /api/v1/partner/orders/status', {
    app: () => t,
    request: async (owner) => ({ method: 'POST', url: '/api/v1/partner/orders/status', payload: JSON.stringify({ ids: [await orderOf(owner)] }) }),
    successStatus: 200,
    clientKeyStatus: 200,
    invalidRequest: async () => ({ method: 'POST', url: '/api/v1/partner/orders/status', payload: '{"ids":"not a list"}' }),
  });

  /** One cancelled (final) order per owner: its stream sends the one state and ends, so inject sees the answer. */
  const finalOrders = new Map<string, string>();
  const finalOrderOf = async (owner: SuitePartner): Promise<string> => {
    const known = finalOrders.get(owner.id);
    if (known !== undefined) return known;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
      payload: ORDER_BODY,
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    const cancel = await t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${id}/cancel`, headers: { authorization: `Bearer ${owner.apiKey}` } });
    assert.equal(cancel.statusCode, 200, cancel.body);
    finalOrders.set(owner.id, id);
    return id;
  };

  runSecuritySuite('GET /api/v1/partner/orders/stream', {
    app: () => t,
    request: async (owner) => ({ method: 'GET', url: `/api/v1/partner/orders/stream?ids=${await finalOrderOf(owner)}` }),
    successStatus: 200,
    otherPartnerStatus: 404,
    // A client key streams the orders it created only: this one the owner's full key made.
    clientKeyStatus: 404,
  });

  runSecuritySuite('GET /api/v1/partner/orders/{id} by UUID', {
    app: () => t,
    request: async (owner) => ({ method: 'GET', url: `/api/v1/partner/orders/${await orderOf(owner)}` }),
    successStatus: 200,
    otherPartnerStatus: 404,
    // A client key reads the orders it created only: this one the owner's full key made.
    clientKeyStatus: 404,
  });

  runSecuritySuite('GET /api/v1/partner/orders/{id} by short id', {
    app: () => t,
    request: async (owner) => {
      const id = await orderOf(owner);
      const row = await t.db.handle.db.selectFrom('orders').select('short_id').where('id', '=', id).executeTakeFirstOrThrow();
      return { method: 'GET', url: `/api/v1/partner/orders/${row.short_id.toLowerCase()}` };
    },
    successStatus: 200,
    otherPartnerStatus: 404,
  });

  runSecuritySuite('GET /api/v1/partner/orders/{id}/qr.svg (v1.1)', {
    app: () => t,
    request: async (owner) => ({ method: 'GET', url: `/api/v1/partner/orders/${await orderOf(owner)}/qr.svg` }),
    successStatus: 200,
    otherPartnerStatus: 404,
    clientKeyStatus: 404,
  });

  runSecuritySuite('GET /api/v1/partner/orders (list)', {
    app: () => t,
    request: async () => ({ method: 'GET', url: '/api/v1/partner/orders?limit=5' }),
    successStatus: 200,
    invalidRequest: async () => ({ method: 'GET', url: '/api/v1/partner/orders?limit=0' }),
  });

  /** A new sandbox order of the owner per call (each takes one deposit), made with its sandbox key. */
  const sandboxKeys = new Map<string, string>();
  const sandboxOrderOf = async (owner: SuitePartner): Promise<string> => {
    let key = sandboxKeys.get(owner.id);
    if (key === undefined) {
      const issued = await t.admin('POST', `/admin/v1/partners/${owner.id}/keys`, { sandbox: true });
      assert.equal(issued.statusCode, 201, issued.body);
      key = issued.json<{ api_key: string }>().api_key;
      sandboxKeys.set(owner.id, key);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: ORDER_BODY,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string }>().id;
  };

  runSecuritySuite('POST /api/v1/partner/sandbox/orders/{id}/deposit (v1.1)', {
    app: () => t,
    request: async (owner) => ({ method: 'POST', url: `/api/v1/partner/sandbox/orders/${await sandboxOrderOf(owner)}/deposit`, payload: '{"amount":"0.1"}' }),
    successStatus: 200,
    otherPartnerStatus: 404,
    state: async () => Number((await t.db.handle.db.selectFrom('simulated_deposits').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
    invalidRequest: async (owner) => ({ method: 'POST', url: `/api/v1/partner/sandbox/orders/${await sandboxOrderOf(owner)}/deposit`, payload: '{"amount":"abc"}' }),
    sandbox: true,
  });

  runSecuritySuite('GET /api/v1/partner/account', {
    app: () => t,
    request: async () => ({ method: 'GET', url: '/api/v1/partner/account' }),
    successStatus: 200,
  });
});
