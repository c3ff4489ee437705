import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { effectivePayoutAddress } from '../../src/db/repositories/commission-payouts-repository.js';
import { mailTo } from '../../src/db/repositories/mail-outbox-repository.js';
import { Decimal } from '../../src/domain/money.js';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'marble kettle orchard signal';
const ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * Commission payout addresses in the cabinet (docs/contract.md §11.6): a change needs the password and a
 * current two-factor code, is in force 24 hours later (pending and cancellable meanwhile), and
 * every person of the partner gets a mail in the outbox.
 */
describe('cabinet: commission payout addresses', () => {
  const clock = new ManualClock(new Date('2026-11-03T09:00:00.000Z'));
  let t: TestApp;
  let client: CabinetClient;
  let partnerId: string;
  let secret: string;
  let ethId: string;

  const code = () => totpCode(secret, totpStep(clock.now()));
  const alertOf = (body: string) => /role="alert">([^<]*)</.exec(body)?.[1] ?? 'none';
  /** Signs in again (a day later the session has ended), with the second factor. */
  const signInAgain = async () => {
    client = new CabinetClient(t);
    await client.get('/cabinet/login');
    const first = await client.post('/cabinet/login', { email: 'ann@wallet.test', password: PASSWORD });
    assert.equal(first.headers.location, '/cabinet/login/code');
    await client.get('/cabinet/login/code');
    clock.advance(30_000);
    assert.equal((await client.post('/cabinet/login/code', { code: code() })).statusCode, 303);
  };
  const inForce = async () => (await effectivePayoutAddress(t.db.handle.db, partnerId, ethId, clock.now()))?.address;

  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
    ({ partnerId, client } = await cabinetPerson(t, { email: 'ann@wallet.test', password: PASSWORD }));
    // A second person of the same partner, told by mail too.
    await cabinetPerson(t, { email: 'bob@wallet.test', password: PASSWORD, partnerId });
    ethId = (await t.db.handle.db.selectFrom('currencies').select('id').where('coin', '=', 'ETH').where('network', '=', 'ETH').executeTakeFirstOrThrow()).id;
  });
  after(() => t.close());

  it('without two-factor the change is refused: turn it on first', async () => {
    await client.get('/cabinet/payouts');
    const page = await client.submit('/cabinet/payouts', { currency_id: ethId, address: ADDRESS, tag: '', password: PASSWORD, code: '123456' });
    assert.match(alertOf(page.body), /Turn on two-factor/);
    assert.equal(await inForce(), undefined);
  });

  it('a wrong password or a wrong code changes nothing; a bad address is refused by the chain rules', async () => {
    await client.get('/cabinet/account');
    const enrolled = await client.submit('/cabinet/account/totp', {});
    secret = /Key: <span class="mono">([A-Z2-7 ]+)<\/span>/.exec(enrolled.body)?.[1]?.replace(/ /g, '') ?? '';
    const on = await client.post('/cabinet/account/totp/confirm', { code: code(), password: PASSWORD });
    assert.equal(on.statusCode, 200, on.body);
    clock.advance(30_000);

    await client.get('/cabinet/payouts');
    let page = await client.submit('/cabinet/payouts', { currency_id: ethId, address: ADDRESS, tag: '', password: 'not the password', code: code() });
    assert.match(alertOf(page.body), /password is not right/);
    clock.advance(30_000);
    page = await client.submit('/cabinet/payouts', { currency_id: ethId, address: ADDRESS, tag: '', password: PASSWORD, code: '000000' });
    assert.match(alertOf(page.body), /code is not right/);
    page = await client.submit('/cabinet/payouts', { currency_id: ethId, address: '0x1234', tag: '', password: PASSWORD, code: code() });
    assert.match(alertOf(page.body), /not an address of the chosen network/);
    // A tag where ETH uses none.
    page = await client.submit('/cabinet/payouts', { currency_id: ethId, address: ADDRESS, tag: '42', password: PASSWORD, code: code() });
    assert.match(alertOf(page.body), /uses no memo/);
    assert.equal(await inForce(), undefined);
    // Bob's invitation was mailed at set-up: what must not exist is a payout address notice.
    const notices = (await mailTo(t.db.handle.db, 'bob@wallet.test')).filter((mail) => /payout address/i.test(mail.subject));
    assert.deepEqual(notices, [], 'nothing told: nothing changed');
  });

  it('with both, the address is pending for 24 hours, then in force; everyone of the partner is told by mail', async () => {
    clock.advance(30_000);
    await client.get('/cabinet/payouts');
    const page = await client.submit('/cabinet/payouts', { currency_id: ethId, address: ADDRESS, tag: '', password: PASSWORD, code: code() });
    assert.equal(alertOf(page.body), 'none', page.body.slice(0, 500));
    assert.match(page.body, /takes effect in 24 hours/);
    assert.match(page.body, new RegExp(`${ADDRESS}</code>, in force from`));
    assert.deepEqual(htmlProblems(page.body), []);
    // The same code cannot confirm a second change.
    const again = await client.submit('/cabinet/payouts', { currency_id: ethId, address: OTHER, tag: '', password: PASSWORD, code: code() });
    assert.match(alertOf(again.body), /code is not right/);

    for (const email of ['ann@wallet.test', 'bob@wallet.test']) {
      const [mail] = await mailTo(t.db.handle.db, email);
      assert.ok(mail !== undefined, `mail to ${email}`);
      assert.match(mail.subject, /Commission payout address for ETH \(ETH\) changes on 2026-11-04T09:0/);
      assert.ok(mail.body.includes(ADDRESS));
      assert.match(mail.body, /ann@wallet\.test asked/);
    }

    assert.equal(await inForce(), undefined, 'not before 24 hours');
    clock.advance(24 * 60 * 60 * 1000 - 60_000);
    assert.equal(await inForce(), undefined, 'still a minute to go');
    clock.advance(60_000);
    assert.equal(await inForce(), ADDRESS);
    await signInAgain();
    const now = await client.get('/cabinet/payouts');
    assert.match(now.body, new RegExp(`<td><code>${ADDRESS}</code></td><td>—</td>`));
  });

  it('a pending change can be cancelled; the address in force stays, and everyone is told', async () => {
    clock.advance(30_000);
    await client.get('/cabinet/payouts');
    await client.submit('/cabinet/payouts', { currency_id: ethId, address: OTHER, tag: '', password: PASSWORD, code: code() });
    const pending = await client.get('/cabinet/payouts');
    assert.match(pending.body, new RegExp(`${OTHER}</code>, in force from`));
    clock.advance(1000);
    const cancelled = await client.submit('/cabinet/payouts/cancel', { currency_id: ethId });
    assert.match(cancelled.body, /pending change was cancelled/);
    clock.advance(25 * 60 * 60 * 1000);
    assert.equal(await inForce(), ADDRESS, 'the cancelled change never takes effect');
    await signInAgain();
    const [told] = await mailTo(t.db.handle.db, 'bob@wallet.test');
    assert.match(told?.subject ?? '', /change for ETH \(ETH\) cancelled/);
    // Nothing left to cancel.
    await client.get('/cabinet/payouts');
    const none = await client.submit('/cabinet/payouts/cancel', { currency_id: ethId });
    assert.match(alertOf(none.body), /No change was pending/);
  });
});

describe('cabinet: commission statements', () => {
  const clock = new ManualClock(new Date('2026-11-03T09:00:00.000Z'));
  let t: TestApp;
  after(() => t?.close());

  it('per month and currency: orders, commission, what was paid and its txid linked to the explorer; the same as CSV', async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
    const partner = await t.createPartner({ name: 'Statements', markup_bps: 100 });
    const { client } = await cabinetPerson(t, { email: 'cy@wallet.test', password: PASSWORD, partnerId: partner.id });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': partner.apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: '0.1', rate_type: 'float', recipient_address: ADDRESS },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id } = res.json<{ id: string }>();
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/deposit`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${id}/confirmations`, { count: 6 })).statusCode, 200);
    for (let i = 0; i < 6; i++) {
      await t.runtime.worker.tick();
      clock.advance(5000);
    }
    const order = await t.db.handle.db.selectFrom('orders').select(['partner_fee', 'currency_to_id', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.ok(order.partner_fee !== null && Number(order.partner_fee) > 0, JSON.stringify(order));
    const fee = new Decimal(order.partner_fee ?? '0').toFixed();
    let page = await client.get('/cabinet/payouts');
    assert.match(page.body, new RegExp(`<td>2026-11</td><td>ETH \\(ETH\\)</td><td>1</td><td>${fee.replace('.', '\\.')}</td><td>not yet</td>`));
    const txid = `0x${'ab'.repeat(32)}`;
    await t.db.handle.db
      .insertInto('payouts')
      .values({ kind: 'commission', order_id: null, partner_id: partner.id, period: '2026-11', currency_id: order.currency_to_id, chain: 'ETH', address: ADDRESS, tag: null, amount: fee, payer: 'signer', status: 'broadcast', txid, created_at: clock.now() })
      .execute();
    page = await client.get('/cabinet/payouts');
    assert.match(page.body, new RegExp(`<td>${fee.replace('.', '\\.')} \\(broadcast\\)</td><td><a href="[^"]*${txid}"`));
    assert.deepEqual(htmlProblems(page.body), []);
    const csv = await client.get('/cabinet/payouts/statements.csv');
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.equal(csv.body, `period,coin,network,orders,commission,paid,status,txid\r\n2026-11,ETH,ETH,1,${fee},${fee},broadcast,${txid}\r\n`);
  });
});
