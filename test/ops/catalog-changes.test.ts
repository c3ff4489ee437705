// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CATALOG_CHANGES_CHANNEL, CatalogChanges } from '../../src/services/catalog-changes.js';
import { CurrencyCatalog } from '../../src/services/currency-catalog.js';
import { waitFor } from '../helpers/process/waits.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';

const skip = testEngine() !== 'postgres' ? 'LISTEN/NOTIFY between processes is the PostgreSQL store: runs on the PostgreSQL pass' : false;
const quiet = { warn: () => undefined, error: () => undefined };
/** An hour: no refresh tick during the test, so only a notice can bring a change. */
const NO_TICK_MS = '3600000';

/**
 * docs/contract.md §12: a currency added or edited at run time reaches every process's catalog at once
 * (NOTIFY), not on its next CACHE_REFRESH_MS tick. The other process is stood in for by a second
 * catalog with its own listener on the same database.
 */
describe('catalog changes reach every process by NOTIFY', { skip }, () => {
  let t: TestApp;
  let other: CurrencyCatalog;
  let feed: CatalogChanges;
  let reloads = 0;

  before(async () => {
    t = await buildTestApp({ production: true, env: { WORKER: 'off', CACHE_REFRESH_MS: NO_TICK_MS } });
    other = new CurrencyCatalog(t.db.handle.db, Number(NO_TICK_MS), () => undefined);
    await other.start();
    feed = new CatalogChanges(t.db.handle.db, t.db.directUrl, async () => {
      reloads++;
      await other.reload();
    }, quiet);
    await feed.listening(5000);
  });
  after(async () => {
    other?.stop();
    await feed?.close();
    await t?.close();
  });

  it('a token added through the operator API is in the other process\'s catalog within moments', async () => {
    const res = await t.admin('POST', '/admin/v1/currencies', {
      coin: 'NTF', network: 'ERC20', chain: 'ETH', name: 'Notified Token', decimals: 6,
      token_contract: '0x00000000000000000000000000000000000000f1', min_amount: '1', max_amount: '1000', payout_fee: '1',
    });
    assert.equal(res.statusCode, 201, res.body);
    await waitFor('the other catalog to have NTF', () => other.all().some((row) => row.coin === 'NTF'), { timeoutMs: 3000, intervalMs: 10 });
    const id = res.json<{ id: string }>().id;
    assert.equal((await t.admin('PATCH', `/admin/v1/currencies/${id}`, { name: 'Renamed Token' })).statusCode, 200);
    await waitFor('the rename there too', () => other.byId(id)?.name === 'Renamed Token', { timeoutMs: 3000, intervalMs: 10 });
  });

  it('reloads after its listening connection is cut and comes back (a change may have been missed)', async () => {
    const before = reloads;
    const admin = new pg.Client({ connectionString: t.db.directUrl });
    await admin.connect();
    try {
      await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = $1", [`LISTEN ${CATALOG_CHANGES_CHANNEL}`]);
    } finally {
      await admin.end();
    }
    await waitFor('a reload on reconnection', () => reloads > before, { timeoutMs: 5000, intervalMs: 10 });
  });
});
