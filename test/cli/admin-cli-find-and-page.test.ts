import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAdminCli } from '../helpers/admin-cli.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const RECIPIENT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

interface ListedOrder {
  id: string;
  short_id: string;
  partner_id: string;
  partner_name: string;
  deposit_address: string;
  payout_txid: string | null;
}

/**
 * What an operator holding a ticket needs from the CLI: any order found by whatever the ticket
 * quotes, every order reachable page by page (not only the newest 500), partners by name, and
 * the service's health in one command.
 */
describe('admin CLI: orders search, paging by cursor, partner names, health', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let address: string;
  let workDir: string;
  let partnerId: string;
  let apiKey: string;
  const placed: Array<{ id: string; short_id: string; deposit_address: string }> = [];

  const admin = (...args: string[]) => runAdminCli(args, { DATA_DIR: workDir, ADMIN_API_URL: address, ADMIN_TOKEN: t.adminToken });
  async function adminJson<T>(...args: string[]): Promise<T> {
    const run = await admin(...args, '--json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as T;
  }
  async function http(method: string, url: string, token: string, body?: unknown): Promise<Response> {
    return fetch(`${address}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', SIMULATOR_AUTO: '0' } });
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    workDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-find-'));
    const partner = (await (await http('POST', '/admin/v1/partners', t.adminToken, { name: 'Findable Wallet' })).json()) as { id: string };
    partnerId = partner.id;
    apiKey = ((await (await http('POST', `/admin/v1/partners/${partnerId}/keys`, t.adminToken)).json()) as { api_key: string }).api_key;
    for (let i = 0; i < 5; i++) {
      const response = await http('POST', '/api/v1/partner/orders', apiKey, {
        coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float', recipient_address: RECIPIENT,
        external_id: `ticket-${i}`,
      });
      assert.equal(response.status, 201, await response.clone().text());
      placed.push((await response.json()) as { id: string; short_id: string; deposit_address: string });
      // Distinct creation times, so the expected order of the list is known.
      clock.advance(1000);
    }
  });
  after(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('pages through every order of a partner by cursor, none twice, none missed', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const run = await admin('orders', 'list', '--partner', partnerId, '--limit', '2', ...(cursor === undefined ? [] : ['--cursor', cursor]));
      assert.equal(run.code, 0, run.stderr);
      const ids = [...run.stdout.matchAll(/^([0-9a-f-]{36})\s/gm)].map((m) => m[1] ?? '');
      seen.push(...ids);
      cursor = /^more: --cursor (\S+)$/m.exec(run.stdout)?.[1];
      pages++;
      assert.ok(pages <= 5, 'the cursor never ends');
    } while (cursor !== undefined);
    assert.equal(pages, 3);
    assert.deepEqual(seen.sort(), placed.map((o) => o.id).sort());

    // The API says where the next page is in a Link header, and a made-up cursor is a 400.
    const first = await http('GET', `/admin/v1/orders?partner_id=${partnerId}&limit=4`, t.adminToken);
    assert.match(first.headers.get('link') ?? '', /^<\/admin\/v1\/orders\?.*cursor=\d+\.[0-9a-f-]{36}.*>; rel="next"$/);
    const last = await http('GET', `/admin/v1/orders?partner_id=${partnerId}&limit=5`, t.adminToken);
    assert.equal(last.headers.get('link'), null, 'a page holding the rest links nowhere');
    const bad = await http('GET', '/admin/v1/orders?cursor=not-a-cursor', t.adminToken);
    assert.equal(bad.status, 400);
    assert.equal(typeof ((await bad.json()) as { detail?: unknown }).detail, 'string');
  });

  it('names each order\'s partner beside its id, in the list and in show', async () => {
    const list = await admin('orders', 'list', '--partner', partnerId);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /\sPARTNER\s/);
    assert.match(list.stdout, new RegExp(`Findable Wallet \\(${partnerId}\\)`));
    const shown = await admin('orders', 'show', placed[0]?.short_id ?? '');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^partner_name\s+Findable Wallet$/m);
  });

  it('finds an order by id, short id in any spelling, deposit address, external id and payout txid', async () => {
    const target = placed[2];
    assert.ok(target !== undefined);
    const suffix = target.short_id.split('-')[1] ?? '';
    for (const term of [target.id, target.id.toUpperCase(), target.short_id, target.short_id.toLowerCase(), suffix.toLowerCase(), target.deposit_address, 'ticket-2']) {
      const found = await adminJson<ListedOrder[]>('orders', 'search', term);
      assert.deepEqual(found.map((o) => o.id), [target.id], `search ${term}`);
      assert.equal(found[0]?.partner_name, 'Findable Wallet');
    }
    // Completed through the simulator, its payout txid finds it too.
    assert.equal((await admin('simulator', 'deposit', target.id)).code, 0);
    assert.equal((await admin('simulator', 'confirm', target.id, '6')).code, 0);
    for (let i = 0; i < 4; i++) await t.runtime.worker.tick();
    const shown = await adminJson<ListedOrder & { status: string }>('orders', 'show', target.id);
    assert.equal(shown.status, 'completed');
    assert.ok(shown.payout_txid !== null);
    assert.deepEqual((await adminJson<ListedOrder[]>('orders', 'search', shown.payout_txid)).map((o) => o.id), [target.id]);

    const none = await admin('orders', 'search', 'no-such-thing');
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /^no orders match$/m);
  });

  it('filters by creation time with --from and --to', async () => {
    const future = await admin('orders', 'list', '--partner', partnerId, '--from', '2999-01-01');
    assert.match(future.stdout, /^no orders match$/m);
    const past = await adminJson<ListedOrder[]>('orders', 'list', '--partner', partnerId, '--from', '2000-01-01', '--to', '2999-01-01T00:00:00Z');
    assert.equal(past.length, placed.length);
    const wrong = await admin('orders', 'list', '--from', 'yesterday');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--from must be a date/);
  });

  it('health shows the database, Redis, workers and chains in one command', async () => {
    const run = await admin('health');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ready: yes$/m);
    assert.match(run.stdout, /^database: ok \(\d+ ms\)$/m);
    assert.match(run.stdout, /^redis: /m);
    assert.match(run.stdout, /^chains: /m);
    const extra = await admin('health', 'now');
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /health takes no arguments/);
  });
});
