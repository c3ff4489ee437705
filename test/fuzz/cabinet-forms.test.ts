/**
 * The cabinet's form and filter fields under the generators of issue 26.8 (the API's fuzzers
 * leave /cabinet out: its pages need a session and a CSRF token): every string field gets
 * plausible text, that text with NUL, other control characters or unpaired surrogates in it,
 * or junk; every date field impossible dates too. No answer may be a 5xx, and every answer is
 * a page (HTML), a redirect, or the 413 of a form past the body limit. FUZZ_RUNS cases per form (a few on `npm test`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { cabinetPerson, CabinetClient } from '../helpers/cabinet-client.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { encodeQueryText, impossibleDate, junkText, withHostileChars } from './arbitraries.js';
import { fuzzRuns, fuzzSeed } from './fuzz-harness.js';

const RUNS = fuzzRuns(25);
const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const PASSWORD = 'a long and unusual passphrase 7';

/** A field: plausible values, the same with hostile characters, or junk (left out now and then). */
function field(...plausible: string[]): fc.Arbitrary<string | undefined> {
  const base = fc.constantFrom(...plausible);
  return fc.oneof(
    { weight: 3, arbitrary: base },
    { weight: 4, arbitrary: base.chain(withHostileChars) },
    { weight: 2, arbitrary: junkText },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}
const dateField = fc.oneof(field('2024-05-31', '2026-01-01', ''), impossibleDate);

function form(fields: Record<string, fc.Arbitrary<string | undefined>>): fc.Arbitrary<Record<string, string>> {
  return fc.record(fields).map((values) => Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined)));
}

function assertPage(status: number, type: unknown, what: string): void {
  assert.ok(status < 500, `5xx: ${what}`);
  // 413: a form past the 8 KiB body limit is refused before the cabinet sees it (the JSON envelope).
  if (status !== 303 && status !== 302 && status !== 413) assert.match(String(type), /^text\/html/, `not a page: ${what}`);
}

describe(`fuzz: cabinet forms and filters (${RUNS} cases per form)`, () => {
  let t: TestApp;
  let client: CabinetClient;
  let orderId: string;
  let webhookId: string;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', MAX_API_KEYS_PER_PARTNER: '10000' } });
    const partner = await t.createPartner({ name: 'Cabinet fuzz', rate_limit_per_minute: 1_000_000 });
    ({ client } = await cabinetPerson(t, { email: 'fuzz@cabinet.example', password: PASSWORD, partnerId: partner.id }));
    const order = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${partner.apiKey}` },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.01, rate_type: 'float', recipient_address: ETH_ADDRESS },
    });
    orderId = order.json<{ id: string }>().id;
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/webhooks',
      headers: { authorization: `Bearer ${partner.apiKey}` },
      payload: { url: 'http://127.0.0.1:9/fuzz' },
    });
    webhookId = hook.json<{ id: string }>().id;
  });
  after(() => t.close());

  const run = <T>(arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arbitrary, check), { numRuns: RUNS, ...(fuzzSeed() === undefined ? {} : { seed: fuzzSeed() }), endOnFailure: true });

  it('GET /cabinet/orders: search, status, coins, dates, cursor', async () => {
    const query = form({
      search: field(ETH_ADDRESS, orderId, 'EX-AAAAAA', ''),
      status: field('waiting_deposit', 'completed', ''),
      coin_from: field('BTC', 'eth', ''),
      coin_to: field('ETH', ''),
      from: dateField,
      to: dateField,
      sandbox: field('1', ''),
      cursor: field('abc.def', ''),
    });
    await run(query, async (values) => {
      const url = `/cabinet/orders?${Object.entries(values).map(([name, value]) => `${name}=${encodeQueryText(value)}`).join('&')}`;
      const res = await client.get(url);
      assertPage(res.statusCode, res.headers['content-type'], `${url.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
    });
  });

  const posts: Array<{ name: string; url: () => string; fields: () => fc.Arbitrary<Record<string, string>> }> = [
    { name: 'POST /cabinet/keys', url: () => '/cabinet/keys', fields: () => form({ label: field('production', 'é'), kind: field('live', 'sandbox') }) },
    {
      name: 'POST /cabinet/webhooks',
      url: () => '/cabinet/webhooks',
      fields: () => form({ url: field('https://hooks.partner.example/x', 'http://127.0.0.1:9/x'), description: field('orders', ''), events: field('order.created', 'ping') }),
    },
    { name: 'POST /cabinet/settings', url: () => '/cabinet/settings', fields: () => form({ markup_bps: field('0', '50', '300') }) },
    {
      name: 'POST /cabinet/payouts',
      url: () => '/cabinet/payouts',
      fields: () => form({ currency_id: field('00000000-0000-4000-8000-000000000000', ''), address: field('0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 'bc1q'), tag: field('', '12'), password: field('x'), code: field('123456', '') }),
    },
    { name: 'POST /cabinet/payouts/cancel', url: () => '/cabinet/payouts/cancel', fields: () => form({ currency_id: field('00000000-0000-4000-8000-000000000000', 'x') }) },
    {
      name: 'POST /cabinet/orders/:id/actions/set_refund_address',
      url: () => `/cabinet/orders/${orderId}/actions/set_refund_address`,
      fields: () => form({ refund_address: field('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', ''), refund_address_tag: field('12345', '') }),
    },
    { name: 'POST /cabinet/webhooks/:id/test', url: () => `/cabinet/webhooks/${webhookId}/test`, fields: () => form({ note: field('x') }) },
  ];
  for (const target of posts) {
    it(target.name, async () => {
      await client.get('/cabinet/keys');
      await run(target.fields(), async (values) => {
        const res = await client.post(target.url(), values);
        assertPage(res.statusCode, res.headers['content-type'], `${target.name} ${JSON.stringify(values).slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
      });
    });
  }

  it('POST /cabinet/login: email and password', async () => {
    let n = 0;
    await run(form({ email: field('fuzz@cabinet.example', 'nobody@example.com'), password: field(PASSWORD, 'wrong') }), async (values) => {
      // A client (address) per case: the sign-in throttle would answer most of them 429 otherwise.
      const visitor = new CabinetClient(t, `203.0.113.${n++ % 250}`);
      await visitor.get('/cabinet/login');
      const res = await visitor.post('/cabinet/login', values);
      assertPage(res.statusCode, res.headers['content-type'], `login ${JSON.stringify(values).slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
    });
  });
});
