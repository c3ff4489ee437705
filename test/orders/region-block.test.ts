import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import geoip from 'geoip-country';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertError } from '../rates/rates-helpers.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { parseEndUserIp } from '../../src/domain/end-user-ip.js';
import { EndUserBlocklist } from '../../src/services/end-user-blocklist.js';

/**
 * The operator's blocklist of end users (docs/contract.md §10.8, issue 27.5): an order whose X-End-User-IP
 * is in IP_BLOCKLIST (CIDRs) or whose country (the geoip-country package's data) is in
 * REGION_BLOCKLIST is 403 `region_restricted`, and nothing is stored.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};

/**
 * Well-known public resolvers' addresses. Their countries are asked of the package (its data
 * moves with each update), never written here: the test holds whatever it answers.
 */
const GOOGLE_DNS_V4 = '8.8.8.8';
const GOOGLE_DNS_V6 = '2001:4860:4860::8888';
const RIPE_NCC = '193.0.6.139';
const countryOf = (ip: string): string => {
  const country = geoip.lookup(ip)?.country;
  assert.ok(country !== undefined && /^[A-Z]{2}$/.test(country), `the package knows no country for ${ip}`);
  return country;
};

describe('X-End-User-IP against the operator\'s blocklist', () => {
  let t: TestApp;
  let partner: { id: string; apiKey: string };
  let blockedCountry: string;
  before(async () => {
    blockedCountry = countryOf(GOOGLE_DNS_V4);
    assert.notEqual(countryOf(RIPE_NCC), blockedCountry, 'the test needs two addresses of different countries');
    t = await buildTestApp({
      env: {
        WORKER: 'off',
        PRICE_POLL_SECONDS: '3600',
        IP_BLOCKLIST: '203.0.113.0/24, 2001:db8:bad::/48,198.51.100.77',
        // Lower case and spaces are taken; the country is the package's answer for 8.8.8.8.
        REGION_BLOCKLIST: ` ${blockedCountry.toLowerCase()} ,KP`,
      },
    });
    partner = await t.createPartner({ rate_limit_per_minute: 100_000 });
  });
  after(() => t.close());

  const create = (ip: string | undefined, fields: Record<string, unknown> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json', ...(ip === undefined ? {} : { 'x-end-user-ip': ip }) },
      payload: JSON.stringify({ ...BTC_ETH, ...fields }),
    });
  const orderCount = async (): Promise<number> =>
    Number((await t.db.handle.db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('an address in IP_BLOCKLIST (IPv4, IPv6, IPv4-mapped, a bare address) is 403 region_restricted; nothing stored', async () => {
    const before = await orderCount();
    for (const ip of ['203.0.113.1', '203.0.113.254', '2001:db8:bad::1', '2001:DB8:BAD:ffff::9', '::ffff:203.0.113.5', '198.51.100.77']) {
      const res = await create(ip, { external_id: `blocked-${ip}` });
      const body = assertError(res, 403, 'region_restricted');
      assert.match(body.detail, /X-End-User-IP/, body.detail);
    }
    assert.equal(await orderCount(), before);
    for (const ip of ['203.0.114.1', '2001:db8:bae::1', '198.51.100.78', '10.0.0.1', '::1']) {
      const res = await create(ip);
      assert.equal(res.statusCode, 201, `${ip}: ${res.body}`);
    }
  });

  it('an address whose country (the package\'s answer) is in REGION_BLOCKLIST is 403 naming the country; others pass', async () => {
    for (const ip of [GOOGLE_DNS_V4, GOOGLE_DNS_V6]) {
      assert.equal(countryOf(ip), blockedCountry);
      const res = await create(ip);
      const body = assertError(res, 403, 'region_restricted');
      assert.ok(body.detail.includes(`(${blockedCountry},`), body.detail);
    }
    const allowed = await create(RIPE_NCC);
    assert.equal(allowed.statusCode, 201, allowed.body);
    const stored = await t.admin('GET', `/admin/v1/orders/${allowed.json<{ id: string }>().id}`);
    assert.equal(stored.json<{ end_user_ip: string }>().end_user_ip, RIPE_NCC);
  });

  it('without X-End-User-IP nothing is checked (the partner\'s own address is never the end user\'s)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(BTC_ETH),
      remoteAddress: '203.0.113.9',
    });
    assert.equal(res.statusCode, 201, res.body);
  });

  it('an Idempotency-Key replay answers its order even when its address was blocked since; a blocked first try leaves the key free', async () => {
    const key = `blocked-first-${Date.now()}`;
    const headers = (ip: string) => ({ authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key, 'x-end-user-ip': ip });
    const payload = JSON.stringify({ ...BTC_ETH, external_id: key });
    const blocked = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: headers('203.0.113.8'), payload });
    assert.equal(blocked.statusCode, 403, blocked.body);
    const made = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: headers(RIPE_NCC), payload });
    assert.equal(made.statusCode, 201, made.body);
    // The same request again from a blocked address: the key's order, as a replay.
    const replay = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: headers('203.0.113.8'), payload });
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json<{ id: string }>().id, made.json<{ id: string }>().id);
  });
});

describe('EndUserBlocklist: the country data is loaded only when REGION_BLOCKLIST is set, once', () => {
  const ip = (text: string) => {
    const parsed = parseEndUserIp(text);
    assert.ok(parsed !== undefined);
    return parsed;
  };

  it('never loads the lookup without countries; loads it once with them; a failed load is tried again', async () => {
    let loads = 0;
    const none = new EndUserBlocklist({ countries: [], cidrs: [{ address: '192.0.2.0', prefix: 24, family: 'ipv4' }] }, async () => {
      loads++;
      return () => 'ZZ';
    });
    assert.ok((await none.refusal(ip('192.0.2.1'))) !== undefined);
    assert.equal(await none.refusal(ip('8.8.8.8')), undefined);
    assert.equal(loads, 0);

    const some = new EndUserBlocklist({ countries: ['ZZ'], cidrs: [] }, async () => {
      loads++;
      if (loads === 1) throw new Error('data missing');
      return (address) => (address === '192.0.2.1' ? 'ZZ' : undefined);
    });
    await assert.rejects(some.refusal(ip('192.0.2.1')), /data missing/);
    assert.match((await some.refusal(ip('192.0.2.1'))) ?? '', /\(ZZ,/);
    assert.equal(await some.refusal(ip('192.0.2.2')), undefined);
    assert.equal(loads, 2);
  });
});

describe('REGION_BLOCKLIST and IP_BLOCKLIST configuration', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: 'some/dir', ...env });
  const refused = (env: Record<string, string>, variable: string, words: RegExp) =>
    assert.throws(() => load(env), (error: unknown) => error instanceof ConfigError && error.variable === variable && words.test(error.message));

  it('parses both, upper-casing countries; empty by default', () => {
    assert.deepEqual(load({}).endUserBlocklist, { countries: [], cidrs: [] });
    const config = load({ REGION_BLOCKLIST: 'cu, IR,cu', IP_BLOCKLIST: '10.0.0.0/8,2001:db8::/32, 192.0.2.1' });
    assert.deepEqual(config.endUserBlocklist.countries, ['CU', 'IR']);
    assert.deepEqual(config.endUserBlocklist.cidrs, [
      { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '2001:db8::', prefix: 32, family: 'ipv6' },
      { address: '192.0.2.1', prefix: 32, family: 'ipv4' },
    ]);
  });

  it('refuses what is not a country or a CIDR, naming the variable', () => {
    refused({ REGION_BLOCKLIST: 'USA' }, 'REGION_BLOCKLIST', /"USA" is not an ISO 3166-1 alpha-2/);
    refused({ REGION_BLOCKLIST: 'CU,,IR' }, 'REGION_BLOCKLIST', /"" is not/);
    refused({ REGION_BLOCKLIST: 'UK' }, 'REGION_BLOCKLIST', /GB/);
    refused({ IP_BLOCKLIST: '10.0.0.0/33' }, 'IP_BLOCKLIST', /"10\.0\.0\.0\/33" is not an IPv4 or IPv6 CIDR/);
    refused({ IP_BLOCKLIST: '2001:db8::/129' }, 'IP_BLOCKLIST', /CIDR/);
    refused({ IP_BLOCKLIST: 'example.com/24' }, 'IP_BLOCKLIST', /CIDR/);
    refused({ IP_BLOCKLIST: '10.0.0.0/8/8' }, 'IP_BLOCKLIST', /CIDR/);
    refused({ IP_BLOCKLIST: 'fe80::1%eth0' }, 'IP_BLOCKLIST', /CIDR/);
  });
});
