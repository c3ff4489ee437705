import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CabinetClient } from '../helpers/cabinet-client.js';
import { Decimal } from '../../src/domain/money.js';
import { htmlProblems } from '../helpers/html-check.js';
import { startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { consolePerson } from './console-helpers.js';

/** A contract address no seed row uses (an EIP-55 test vector). */
const TOKEN = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

/**
 * The console's partner, catalog, prices, pools, health and treasury pages over the real HTTP
 * stack: each action goes through the service its /admin/v1 route uses, answers 303 to a page,
 * is refused below its role, and is in the audit log under the person.
 */
describe('operator console: partners, catalog and operations', () => {
  let h: Harness;
  let admin: CabinetClient;
  let viewer: CabinetClient;
  before(async () => {
    h = await startHarness();
    admin = (await consolePerson(h.t, h.clock, { email: 'boss@ops.example', role: 'admin' })).client;
    viewer = (await consolePerson(h.t, h.clock, { email: 'look@ops.example', role: 'viewer', address: '198.51.100.78' })).client;
  });
  after(() => h.t.close());

  const page = async (client: CabinetClient, path: string) => {
    const res = await client.get(path);
    assert.equal(res.statusCode, 200, `${path}: ${res.body.slice(0, 300)}`);
    assert.deepEqual(htmlProblems(res.body), [], path);
    return res.body;
  };

  it('an admin onboards a partner: create, settings, suspend and resume, a key issued and revoked, a person invited and removed', async () => {
    await page(admin, '/console/partners');
    const created = await admin.post('/console/partners', { name: 'Acme Swap', markup_bps: '40' });
    assert.equal(created.statusCode, 303, created.body);
    const path = String(created.headers.location).split('?')[0]!;
    assert.match(path, /^\/console\/partners\/[0-9a-f-]{36}$/);
    const id = path.split('/').pop()!;
    const detail = await page(admin, String(created.headers.location));
    assert.match(detail, /The partner is created/);
    assert.match(detail, /40 bps/);
    const saved = await admin.submit(`${path}/settings`, { markup_bps: '55', rate_limit_per_minute: '120', max_open_orders: '' });
    assert.match(saved.body, /The settings are saved/);
    assert.equal((await h.t.admin('GET', `/admin/v1/partners/${id}`)).json<{ markup_bps: number; rate_limit_per_minute: number }>().markup_bps, 55);
    const refused = await admin.submit(`${path}/settings`, { markup_bps: '5000' });
    assert.match(refused.body, /role="alert">Markup must be a whole number from 0 to 1000/);
    assert.match((await admin.submit(`${path}/suspend`, {})).body, /The partner is suspended/);
    assert.equal((await h.t.admin('GET', `/admin/v1/partners/${id}`)).json<{ status: string }>().status, 'suspended');
    assert.match((await admin.submit(`${path}/resume`, { back: path })).body, /active again/);

    const issued = await admin.post(`${path}/keys`, { kind: 'live', scope: 'full' });
    assert.equal(issued.statusCode, 200);
    assert.equal(issued.headers['cache-control'], 'no-store');
    const key = /id="key-value" class="mono" readonly value="([^"]+)"/.exec(issued.body)?.[1] ?? '';
    assert.match(key, /^pk_/);
    h.t.secrets.add(key, 'partner key from the console');
    const keyId = key.split('.')[0]!;
    assert.equal((await h.t.app.inject({ method: 'GET', url: '/api/v1/currencies', headers: { authorization: `Bearer ${key}` } })).statusCode, 200);
    assert.match((await admin.submit(`/console/keys/${keyId}/revoke`, { back: path })).body, /The key is revoked/);
    const keys = (await h.t.admin('GET', `/admin/v1/partners/${id}/keys`)).json<{ key_id: string; revoked_at: string | null }[]>();
    assert.notEqual(keys.find((row) => row.key_id === keyId)?.revoked_at, null);

    const invited = await admin.post(`${path}/people`, { email: 'dev@acme.example' });
    assert.equal(invited.statusCode, 200, invited.body);
    const link = /id="invitation-link" class="mono" readonly value="([^"]+)"/.exec(invited.body)?.[1] ?? '';
    assert.match(link, /\/cabinet\//);
    h.t.secrets.add(new URL(link).pathname.split('/').pop() ?? '', 'cabinet invitation');
    const newcomer = new CabinetClient(h.t, '198.51.100.79');
    await newcomer.get(new URL(link).pathname);
    assert.equal((await newcomer.post(new URL(link).pathname, { password: 'amber harbour quiet lantern', confirm: 'amber harbour quiet lantern' })).statusCode, 303);
    const people = (await h.t.admin('GET', `/admin/v1/partners/${id}/people`)).json<{ id: string; email: string }[]>();
    const person = people.find((row) => row.email === 'dev@acme.example');
    assert.ok(person !== undefined, JSON.stringify(people));
    assert.match((await admin.submit(`${path}/people/${person.id}/end-sessions`, {})).body, /signed out/);
    assert.match((await admin.submit(`${path}/people/${person.id}/clear-2fa`, {})).body, /two-factor is cleared/);
    assert.match((await admin.submit(`${path}/people/${person.id}/remove`, {})).body, /removed from the cabinet/);
    assert.match((await admin.submit(`${path}/people/${person.id}/remove`, {})).body, /role="alert">This partner has no such person/);

    // A viewer reads the partner but changes nothing.
    const seen = await page(viewer, path);
    assert.doesNotMatch(seen, /Save settings|Issue a key/);
    const denied = await viewer.post(`${path}/suspend`, {});
    assert.equal(denied.statusCode, 403);
    assert.match(denied.body, /needs the admin role/);

    const audit = (await h.t.admin('GET', `/admin/v1/audit?actor=${encodeURIComponent('person:boss@ops.example')}&limit=100`)).json<{ entries: { action: string; target: string | null; before: unknown; after: unknown; status: number }[] }>().entries;
    // A change records the partner before and after it, with what the form asked.
    const change = audit.find((entry) => entry.action === 'POST /console/partners/:id/settings' && entry.status === 303 && !JSON.stringify(entry.after).includes('refused'));
    assert.equal((change?.before as { markup_bps?: number } | null)?.markup_bps, 40, JSON.stringify(change));
    assert.equal((change?.after as { now?: { markup_bps?: number } } | null)?.now?.markup_bps, 55, JSON.stringify(change));
    assert.equal((change?.after as { asked?: { markup_bps?: string } } | null)?.asked?.markup_bps, '55');
    for (const action of ['POST /console/partners', 'POST /console/partners/:id/settings', 'POST /console/partners/:id/suspend', 'POST /console/partners/:id/keys', 'POST /console/keys/:key_id/revoke', 'POST /console/partners/:id/people/:person_id/remove']) {
      assert.ok(audit.some((entry) => entry.action === action), `${action} in ${audit.map((entry) => entry.action).join()}`);
    }
  });

  it('an admin adds a token and edits it through the catalog service; a viewer cannot', async () => {
    await page(admin, '/console/catalog');
    const added = await admin.post('/console/catalog', {
      coin: 'tst',
      network: 'erc20',
      chain: 'ETH',
      name: 'Test Token',
      decimals: '8',
      token_contract: TOKEN,
      min_amount: '1',
      max_amount: '1000',
      payout_fee: '0.5',
      is_active: 'on',
      is_deposit_enabled: 'on',
      is_withdraw_enabled: 'on',
    });
    assert.equal(added.statusCode, 303, added.body);
    const path = String(added.headers.location).split('?')[0]!;
    const body = await page(admin, String(added.headers.location));
    assert.match(body, /TST on ERC20/);
    const listed = (await h.t.app.inject({ method: 'GET', url: '/api/v1/currencies' })).json<{ coin: string; network: string; contract_address: string | null }[]>();
    assert.equal(listed.find((row) => row.coin === 'TST')?.contract_address, TOKEN);
    const again = await admin.submit('/console/catalog', { coin: 'TST', network: 'ERC20', chain: 'ETH', name: 'Again', decimals: '8', token_contract: TOKEN, min_amount: '1', max_amount: '2' });
    assert.match(again.body, /role="alert">[^<]*already in the catalog/);
    const edited = await admin.submit(path, { name: 'Test Token', token_contract: TOKEN, price_symbol: 'TST', min_amount: '2', max_amount: '500', payout_fee: '0.5', min_confirmations: '3', explorer_tx_url: 'https://explorer.example/tx/{txid}', is_active: 'on', is_deposit_enabled: 'on' });
    assert.match(edited.body, /The changes are saved/);
    const row = h.t.runtime.catalog.all().find((currency) => currency.coin === 'TST');
    assert.ok(new Decimal(row?.min_amount ?? 0).eq(2), row?.min_amount);
    assert.equal(row?.min_confirmations, 3);
    assert.equal(row?.is_withdraw_enabled, false, 'the unticked switch turns withdrawals off');
    assert.equal(row?.explorer_tx_url, 'https://explorer.example/tx/{txid}');
    assert.match((await admin.submit(path, { min_amount: '600', max_amount: '500' })).body, /role="alert">min_amount must not exceed max_amount/);
    assert.equal((await viewer.post(path, { min_amount: '3' })).statusCode, 403);
  });

  it('prices, pools, health and treasury: read by a viewer, a static price set by an admin', async () => {
    for (const path of ['/console/prices', '/console/pools', '/console/health', '/console/treasury']) await page(viewer, path);
    const prices = await page(admin, '/console/prices');
    assert.match(prices, /Static price of BTC/);
    const set = await admin.submit('/console/prices/BTC', { price_usd: '65000.5' });
    assert.match(set.body, /The static price is set/);
    assert.match(set.body, /65000\.5/);
    assert.match((await admin.submit('/console/prices/BTC', { price_usd: '-1' })).body, /role="alert">The price is a positive decimal/);
    assert.equal((await viewer.post('/console/prices/BTC', { price_usd: '1' })).statusCode, 403);
    const health = await page(admin, '/console/health');
    assert.match(health, /<dt>Database<\/dt><dd>ok/);
    const pools = await page(admin, '/console/pools');
    assert.match(pools, /Address pools/);
    assert.match(pools, /No pool is under its threshold/);
  });

  it('an admin sets a pool\'s low-pool threshold: the page lists it as low, the gauge says it, the audit log has it before and after', async () => {
    const { available } = (await h.t.admin('GET', '/admin/v1/address-pools/SOL')).json<{ available: number }>();
    const raised = await admin.submit('/console/pools/SOL/alert', { low_at: String(available + 10) });
    assert.match(raised.body, /The low-pool threshold is saved/);
    assert.match(raised.body, new RegExp(`Under their threshold <span class="count">\\(1\\)</span>`));
    assert.match(raised.body, new RegExp(`low below ${available + 10}: <strong>low</strong>`));
    const metrics = (await h.t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, new RegExp(`^deposit_address_pool_low_at\\{chain="SOL"\\} ${available + 10}$`, 'm'));
    assert.match((await admin.submit('/console/pools/SOL/alert', { low_at: 'many' })).body, /role="alert">The threshold is a whole number/);
    assert.equal((await viewer.post('/console/pools/SOL/alert', { low_at: '1' })).statusCode, 403);
    const reset = await admin.submit('/console/pools/SOL/alert', { low_at: '' });
    assert.match(reset.body, /low below 100 \(the default\)/);
    const entries = (await h.t.admin('GET', `/admin/v1/audit?action=${encodeURIComponent('POST /console/pools/:chain/alert')}&limit=10`)).json<{ entries: { before: unknown; after: unknown; status: number }[] }>().entries;
    const change = entries.find((entry) => (entry.after as { asked?: { low_at?: string } } | null)?.asked?.low_at === String(available + 10));
    assert.equal((change?.after as { now?: { low_at?: number } } | null)?.now?.low_at, available + 10, JSON.stringify(change));
    assert.equal((change?.before as { low_at?: number | null } | null)?.low_at, null, JSON.stringify(entries));
    // Through the operator API too.
    const put = await h.t.admin('PUT', '/admin/v1/address-pools/sol/alert', { low_at: 0 });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json<{ low_at: number; low: boolean; low_at_default: boolean }>(), { ...put.json<object>(), low_at: 0, low: false, low_at_default: false });
    assert.equal((await h.t.admin('PUT', '/admin/v1/address-pools/BTC/alert', { low_at: 1 })).statusCode, 404);
  });
});
