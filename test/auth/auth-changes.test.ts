// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { AUTH_CHANGES_CHANNEL, PostgresAuthChanges, type AuthChange } from '../../src/infrastructure/auth-changes.js';
import { waitFor } from '../helpers/process/waits.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

const skip = testEngine() !== 'postgres' ? 'LISTEN/NOTIFY between processes is the PostgreSQL store: runs on the PostgreSQL pass' : false;
const quiet = { warn: () => undefined, error: () => undefined };

describe('PostgresAuthChanges: LISTEN/NOTIFY feed', { skip }, () => {
  let database: TestDatabase;
  let sender: PostgresAuthChanges;
  let receiver: PostgresAuthChanges;
  const received: AuthChange[] = [];
  before(async () => {
    database = await createTestDatabase('postgres');
    // LISTEN needs the database itself: through pgbouncer (the pgbouncer pass) it is DATABASE_DIRECT_URL.
    const url = database.directUrl ?? '';
    sender = new PostgresAuthChanges(database.handle.db, url, quiet);
    receiver = new PostgresAuthChanges(database.handle.db, url, quiet);
    receiver.subscribe((change) => received.push(change));
    await Promise.all([sender.listening(5000), receiver.listening(5000)]);
  });
  after(async () => {
    await sender.close();
    await receiver.close();
    await database.drop();
  });

  it("delivers another feed's changes, and its own at once", async () => {
    const own: AuthChange[] = [];
    sender.subscribe((change) => own.push(change));
    await sender.publish({ kind: 'key', keyId: 'pk_00000000000000000000' });
    assert.deepEqual(own[0], { kind: 'key', keyId: 'pk_00000000000000000000' });
    await waitFor('the notification', () => received.length >= 1, { timeoutMs: 2000, intervalMs: 10 });
    assert.deepEqual(received, [{ kind: 'key', keyId: 'pk_00000000000000000000' }]);
  });

  it('dials again after its connection is cut, and then drops every copy (changes may have been missed)', async () => {
    received.length = 0;
    const admin = new pg.Client({ connectionString: database.directUrl });
    await admin.connect();
    try {
      const cut = await admin.query<{ n: string }>(
        "select count(pg_terminate_backend(pid))::text as n from pg_stat_activity where datname = current_database() and query = $1",
        [`LISTEN ${AUTH_CHANGES_CHANNEL}`],
      );
      assert.equal(cut.rows[0]?.n, '2');
    } finally {
      await admin.end();
    }
    await waitFor('the reconnection', () => received.some((change) => change.kind === 'everything'), { timeoutMs: 5000, intervalMs: 10 });
    await sender.publish({ kind: 'partner', partnerId: '7d2b1b5e-0000-4000-8000-000000000000' });
    await waitFor('a change after the reconnection', () => received.some((change) => change.kind === 'partner'), { timeoutMs: 2000, intervalMs: 10 });
  });
});
