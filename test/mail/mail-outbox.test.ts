import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { claimDueMail, mailTo } from '../../src/db/repositories/mail-outbox-repository.js';
import { createMetrics } from '../../src/metrics.js';
import { SmtpMailTransport } from '../../src/services/mailer.js';
import { MailWorker, mailRetryDelayMs } from '../../src/worker/mail-worker.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/**
 * The mail outbox (docs/decisions.md, "Mail outbox"): mail queued in a transaction is delivered
 * by the worker through a real SMTP server started here (smtp-server), retried with backoff
 * while the server refuses it, given up after its attempts; without SMTP_URL it is an .eml file
 * under DATA_DIR/mail.
 */

describe('the mail outbox', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let smtp: SmtpInbox;

  before(async () => {
    smtp = await startSmtpInbox();
    t = await buildTestApp({ clock, env: { WORKER: 'off', SMTP_URL: smtp.url, MAIL_FROM: 'Exchange <ops@exchange.test>' } });
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('a mail queued in a transaction that rolls back is never sent; one that commits is delivered through SMTP_URL once', async () => {
    const db = t.db.handle.db;
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await t.runtime.mailer.enqueue({ to: 'gone@partner.test', subject: 'never', text: 'rolled back' }, tx);
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    await db.transaction().execute((tx) => t.runtime.mailer.enqueue([{ to: 'ann@partner.test', subject: 'Payout address change', text: 'Hello Ann,\nyour address changes.' }], tx));
    assert.equal(await t.runtime.mailWorker.tick(), 1);
    assert.equal(await t.runtime.mailWorker.tick(), 0, 'nothing left to send');
    assert.equal(smtp.received.length, 1);
    const [mail] = smtp.received;
    assert.deepEqual(mail?.to, ['ann@partner.test']);
    assert.equal(mail?.from, 'ops@exchange.test');
    assert.match(mail?.raw ?? '', /^Subject: Payout address change$/m);
    assert.match(mail?.raw ?? '', /your address changes\./);
    assert.deepEqual(await mailTo(db, 'gone@partner.test'), []);
    const [row] = await mailTo(db, 'ann@partner.test');
    assert.equal(row?.status, 'sent');
    assert.equal(row?.attempts, 1);
    assert.match(mail?.raw ?? '', new RegExp(`^Message-ID: <${row?.id ?? 'none'}@mail-outbox>$`, 'mi'));
  });

  it('a server that refuses is tried again after a backoff that doubles; after the last attempt the mail is failed', async () => {
    const db = t.db.handle.db;
    const logs: string[] = [];
    const worker = new MailWorker(db, new SmtpMailTransport(smtp.url, 'ops@exchange.test'), clock, createMetrics(), recordingLogger(logs), {
      pollMs: 1000,
      batchSize: 10,
      maxAttempts: 3,
      baseBackoffMs: 60_000,
      leaseMs: 30_000,
    });
    await t.runtime.mailer.enqueue({ to: 'bob@partner.test', subject: 'Retried', text: 'twice refused' });
    smtp.refuse.count = 2;
    const before = smtp.received.length;
    assert.equal(await worker.tick(), 0);
    let [row] = await mailTo(db, 'bob@partner.test');
    assert.equal(row?.status, 'pending');
    assert.equal(row?.attempts, 1);
    assert.match(row?.last_error ?? '', /451/);
    assert.equal(row?.next_attempt_at.getTime(), clock.now().getTime() + 60_000);
    // Not due before its time.
    clock.advance(59_999);
    assert.equal(await worker.tick(), 0);
    assert.equal((await mailTo(db, 'bob@partner.test'))[0]?.attempts, 1);
    clock.advance(1);
    assert.equal(await worker.tick(), 0);
    [row] = await mailTo(db, 'bob@partner.test');
    assert.equal(row?.attempts, 2);
    assert.equal(row?.next_attempt_at.getTime(), clock.now().getTime() + 120_000, 'the delay doubled');
    clock.advance(120_000);
    assert.equal(await worker.tick(), 1);
    [row] = await mailTo(db, 'bob@partner.test');
    assert.equal(row?.status, 'sent');
    assert.equal(row?.attempts, 3);
    assert.equal(smtp.received.length, before + 1);

    await t.runtime.mailer.enqueue({ to: 'carol@partner.test', subject: 'Given up', text: 'always refused' });
    smtp.refuse.count = 3;
    for (let i = 0; i < 3; i++) {
      await worker.tick();
      clock.advance(mailRetryDelayMs(60_000, i + 1));
    }
    [row] = await mailTo(db, 'carol@partner.test');
    assert.equal(row?.status, 'failed');
    assert.equal(row?.attempts, 3);
    assert.ok(logs.some((line) => line.startsWith('error mail given up')), logs.join('\n'));
    assert.ok(!logs.some((line) => line.includes('carol@partner.test')), 'the address is not logged');
    smtp.refuse.count = 0;
  });

  it('refuses what cannot be a mail: two addresses in one, a subject with a line break', async () => {
    await assert.rejects(t.runtime.mailer.enqueue({ to: 'a@b.test, c@d.test', subject: 'x', text: '' }), /not one mail address/);
    await assert.rejects(t.runtime.mailer.enqueue({ to: 'a@b.test', subject: 'x\r\nBcc: c@d.test', text: '' }), /one line/);
  });

  it('a mail claimed by a worker that died is sent by another once its lease passed', async () => {
    const db = t.db.handle.db;
    await t.runtime.mailer.enqueue({ to: 'dan@partner.test', subject: 'Leased', text: 'once' });
    const claimed = await claimDueMail(db, clock.now(), new Date(clock.now().getTime() + 120_000), 10);
    assert.equal(claimed.length, 1, 'the dead worker took it');
    assert.equal(await t.runtime.mailWorker.tick(), 0, 'leased: not sent twice meanwhile');
    clock.advance(120_000);
    assert.equal(await t.runtime.mailWorker.tick(), 1);
  });
});

describe('the mail outbox without SMTP_URL', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
  });
  after(() => t?.close());

  it('writes each mail as an .eml file under DATA_DIR/mail and logs it', async () => {
    await t.runtime.mailer.enqueue({ to: 'eve@partner.test', subject: 'Written down', text: 'kept on disk' });
    assert.equal(await t.runtime.mailWorker.tick(), 1);
    const directory = path.join(t.config.dataDir, 'mail');
    const files = readdirSync(directory).filter((name) => name.endsWith('.eml'));
    assert.equal(files.length, 1);
    const eml = readFileSync(path.join(directory, files[0] ?? ''), 'utf8');
    assert.match(eml, /^To: eve@partner\.test$/m);
    assert.match(eml, /^From: Exchange <no-reply@localhost>$/m);
    assert.match(eml, /^Subject: Written down$/m);
    assert.match(eml, /kept on disk/);
    assert.ok(t.logs.some((line) => line.includes('mail written (no SMTP_URL)')));
    assert.equal((await mailTo(t.db.handle.db, 'eve@partner.test'))[0]?.status, 'sent');
  });
});
