import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

/**
 * verifyWebhook (Web Crypto) against deliveries signed by the `standardwebhooks` library, the
 * reference docs/contract.md §8 names: what it signs, the SDK accepts; anything altered, it refuses.
 */

const secret = `whsec_${Buffer.from('a webhook secret of 32 bytes ...').toString('base64')}`;
const rotated = `whsec_${Buffer.from('the secret that replaced it ....').toString('base64')}`;
// 19 significant digits: the order's amount must arrive as every digit, not a float.
const body = JSON.stringify({ type: 'order.status_changed', timestamp: '2026-01-01T00:00:00.000Z', data: { previous_status: 'confirming' } }).replace(
  '"data":{',
  '"data":{"order":{"id":"4f1c","status":"exchanging","amount_from_expected":1.234567890123456789,"deposit_confirmations":3},',
);
const now = Date.parse('2026-01-01T00:00:10.000Z');
const signed = (signingSecret: string, at = now, payload = body) => ({
  'webhook-id': 'msg_2Kd1',
  'webhook-timestamp': String(Math.floor(at / 1000)),
  'webhook-signature': new Webhook(signingSecret).sign('msg_2Kd1', new Date(at), payload),
});

describe('verifyWebhook', () => {
  it('accepts a delivery standardwebhooks signed, and reads its amounts exactly', async () => {
    const event = await verifyWebhook(secret, signed(secret), body, { now });
    assert.equal(event.type, 'order.status_changed');
    // Narrowed to an order event by the type: its order is there, typed, without `?.`.
    assert.equal(event.data.previous_status, 'confirming');
    assert.equal(event.data.order.amount_from_expected, '1.234567890123456789');
    assert.equal(event.data.order.deposit_confirmations, 3);
    // The same headers, from a Fetch API Headers object (an edge function's request).
    assert.equal((await verifyWebhook(secret, new Headers(signed(secret)), body, { now })).type, 'order.status_changed');
  });

  it('during a rotation: two signatures in the header, either secret verifies', async () => {
    const headers = signed(secret);
    headers['webhook-signature'] = `${signed(rotated)['webhook-signature']} ${headers['webhook-signature']}`;
    assert.equal((await verifyWebhook(rotated, headers, body, { now })).type, 'order.status_changed');
    assert.equal((await verifyWebhook(secret, headers, body, { now })).type, 'order.status_changed');
    assert.equal((await verifyWebhook(['whsec_b3RoZXI=', rotated], signed(rotated), body, { now })).type, 'order.status_changed');
  });

  it('refuses an altered body, another secret, an old or future timestamp, and missing headers', async () => {
    const refused = (promise: Promise<unknown>, message: RegExp) => assert.rejects(promise, (error: unknown) => error instanceof WebhookVerificationError && message.test(error.message));
    await refused(verifyWebhook(secret, signed(secret), body.replace('exchanging', 'completed'), { now }), /no signature matches/);
    await refused(verifyWebhook(rotated, signed(secret), body, { now }), /no signature matches/);
    await refused(verifyWebhook(secret, signed(secret, now - 301_000), body, { now }), /outside the tolerance/);
    await refused(verifyWebhook(secret, signed(secret, now + 301_000), body, { now }), /outside the tolerance/);
    assert.equal((await verifyWebhook(secret, signed(secret, now - 299_000), body, { now })).type, 'order.status_changed');
    const { 'webhook-id': _id, ...noId } = signed(secret);
    await refused(verifyWebhook(secret, noId, body, { now }), /missing webhook-id/);
    // The timestamp is signed too: moving it breaks the signature.
    const moved = { ...signed(secret), 'webhook-timestamp': String(Math.floor(now / 1000) + 1) };
    await refused(verifyWebhook(secret, moved, body, { now }), /no signature matches/);
  });
});
