import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isPublicAddress, webhookUrlProblem } from '../../src/infrastructure/webhook-address-policy.js';
import { MAX_RESPONSE_BYTES, WebhookSender } from '../../src/infrastructure/webhook-sender.js';
import { WebhookReceiver } from './webhook-receiver.js';

describe('webhook sender: SSRF rules and bounded answers (docs/contract.md §8)', () => {
  const receiver = new WebhookReceiver();
  const local = new WebhookSender({ allowPrivate: true, timeoutMs: 2000 });
  before(() => receiver.start());
  after(async () => {
    local.close();
    await receiver.close();
  });

  it('reads a 5 MB answer to 4 KiB and no further', async () => {
    receiver.behave('/big', (response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      for (let i = 0; i < 80; i++) response.write(chunk);
      response.end();
    });
    const outcome = await local.send(receiver.url('/big'), {}, '{}');
    assert.equal(outcome.delivered, true);
    assert.equal(outcome.statusCode, 200);
    assert.ok(outcome.bytesRead <= MAX_RESPONSE_BYTES, `read ${outcome.bytesRead} bytes`);
  });

  it('keeps the start of a failed answer as its error', async () => {
    receiver.behave('/teapot', (response) => response.writeHead(418).end('short and stout'));
    const outcome = await local.send(receiver.url('/teapot'), {}, '{}');
    assert.deepEqual([outcome.delivered, outcome.statusCode, outcome.error], [false, 418, 'HTTP 418: short and stout']);
  });

  it('in production refuses a name that resolves to a private address, on the lookup the connection uses', async () => {
    const resolved: string[] = [];
    const production = new WebhookSender({
      allowPrivate: false,
      timeoutMs: 2000,
      resolve: async (hostname) => {
        resolved.push(hostname);
        return [{ address: '10.0.0.1', family: 4 }];
      },
    });
    const outcome = await production.send('https://partner.example/hook', {}, '{}');
    production.close();
    assert.deepEqual(resolved, ['partner.example']);
    assert.deepEqual([outcome.delivered, outcome.statusCode, outcome.error], [false, null, 'refused: 10.0.0.1 is not a public address']);
  });

  it('tells public addresses from the rest', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '224.0.0.1']) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(address), true, address);
  });

  it('refuses every IPv6 form that carries a private IPv4 (issue 26.11)', () => {
    const privateV4 = ['127.0.0.1', '10.0.0.1', '169.254.169.254', '192.168.1.1', '172.16.5.4', '100.64.0.1', '0.0.0.0'];
    const hex = (v4: string) => {
      const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
      return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    };
    for (const v4 of privateV4) {
      const forms = [
        `::ffff:${v4}`, `::ffff:${hex(v4)}`, // IPv4-mapped, ::ffff:0:0/96
        `::ffff:0:${v4}`, `::ffff:0:${hex(v4)}`, `0:0:0:0:ffff:0:${hex(v4)}`, // IPv4-translated, ::ffff:0:0:0/96
        `::${v4}`, `::${hex(v4)}`, // IPv4-compatible, ::/96
        `64:ff9b::${v4}`, `64:ff9b::${hex(v4)}`, // NAT64, 64:ff9b::/96
        `2002:${hex(v4)}::1`, // 6to4, 2002::/16
        `0:0:0:0:0:FFFF:${v4}`, `::FFFF:0:${v4.toUpperCase()}`,
      ];
      for (const form of forms) {
        assert.equal(isPublicAddress(form), false, form);
        assert.match(webhookUrlProblem(`https://[${form}]/hook`, false) ?? '', /not a public address/, form);
      }
    }
    // As a URL writes it (the case): [::ffff:0:127.0.0.1] is normalised to [::ffff:0:7f00:1].
    assert.match(webhookUrlProblem('https://[::ffff:0:127.0.0.1]/hook', false) ?? '', /not a public address/);
    // Public IPv4 inside a mapped form stays public; a plain public IPv6 too.
    for (const address of ['::ffff:8.8.8.8', '::ffff:0808:0808', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e']) assert.equal(isPublicAddress(address), true, address);
  });

  it('checks URLs as written: https and no private literal in production, no credentials anywhere', () => {
    assert.equal(webhookUrlProblem('https://hooks.partner.example/x', false), undefined);
    assert.equal(webhookUrlProblem('http://127.0.0.1:8080/x', true), undefined);
    assert.match(webhookUrlProblem('http://hooks.partner.example/x', false) ?? '', /https/);
    assert.match(webhookUrlProblem('https://10.0.0.1/x', false) ?? '', /not a public address/);
    assert.match(webhookUrlProblem('https://[fd00::1]/x', false) ?? '', /not a public address/);
    assert.match(webhookUrlProblem('https://user:pw@hooks.partner.example/x', true) ?? '', /credentials/);
    assert.match(webhookUrlProblem('ftp://hooks.partner.example/x', true) ?? '', /https/);
    assert.match(webhookUrlProblem('not a url', true) ?? '', /absolute URL/);
  });
});
