import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cabinetPerson, type CabinetClient } from '../helpers/cabinet-client.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/**
 * Two promises of the cabinet that no other test could break: what a person types is escaped
 * inside an attribute too (the search box echoes the query into its `value`), and a markup
 * saved in the cabinet prices the partner's very next quote (the key cache is told, not left to
 * expire: CACHE_REFRESH_MS is an hour here and the clock stands still).
 */
describe('cabinet: escaping inside attributes, and a markup change that reaches the keys at once', () => {
  const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
  let t: TestApp;
  let client: CabinetClient;
  let partnerId: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', CACHE_REFRESH_MS: '3600000', PARTNER_MARKUP_MAX_BPS: '300' } });
    ({ client, partnerId } = await cabinetPerson(t, { email: 'escapes@cabinet.example', password: 'marble tundra whistle pepper' }));
  });
  after(() => t.close());

  it('a search query with quotes stays inside the search box value: no attribute is added to the page', async () => {
    const typed = `" autofocus onfocus="alert(1)' x='`;
    const page = await client.get(`/cabinet/orders?search=${encodeURIComponent(typed)}`);
    assert.equal(page.statusCode, 200, page.body);
    const input = /<input type="search" name="search"[^>]*>/.exec(page.body)?.[0];
    assert.ok(input !== undefined, 'the search box is on the page');
    assert.ok(input.includes('value="&quot; autofocus onfocus=&quot;alert(1)&#39; x=&#39;"'), input);
    assert.doesNotMatch(page.body, /onfocus="/);
    assert.doesNotMatch(page.body, / x='/);
  });

  it("a markup saved in the cabinet prices a key's next quote, though that key's row was cached a moment before", async () => {
    const issue = async (): Promise<string> => (await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`)).json<{ api_key: string }>().api_key;
    const quote = async (apiKey: string): Promise<string> => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.5', headers: { 'x-api-key': apiKey } });
      assert.equal(res.statusCode, 200, res.body);
      // The rate as written, to the last digit (a JSON number parsed to a float could hide one).
      return /"rate":([0-9.]+)/.exec(res.body)?.[1] ?? '';
    };
    await client.get('/cabinet/settings');
    assert.equal((await client.post('/cabinet/settings', { markup_bps: '0' })).statusCode, 303);
    const cachedKey = await issue();
    const before = await quote(cachedKey);

    await client.get('/cabinet/settings');
    assert.equal((await client.post('/cabinet/settings', { markup_bps: '300' })).statusCode, 303);
    const after = await quote(cachedKey);
    // A key made after the change reads the partner's row afresh: the price the change means.
    const fresh = await quote(await issue());
    assert.notEqual(before, fresh, 'a 300 bps markup changes the rate');
    assert.equal(after, fresh, 'the cached key quotes at the new markup at once');
  });
});
