import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replaceCharAt } from '../domain/addresses/corrupt.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertError, freshAddress } from '../rates/rates-helpers.js';

/**
 * GET /partner/addresses/validate (docs/contract.md §7.3): the recipient validators of order creation, for
 * every network of the catalog, with valid and invalid vectors per network (checksums, another
 * network's address, memo rules); and each answer agrees with what POST /partner/orders does.
 */

const SAMPLES = {
  bitcoin: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  litecoin: 'ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz',
  dogecoin: 'DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg',
  evm: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  tron: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  solana: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  xrp: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
  stellar: 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ',
  ton: 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N',
} as const;
type Format = keyof typeof SAMPLES;

interface Vectors {
  /** [address, tag?] accepted. */
  valid: Array<[string, string?]>;
  /** [address, tag, detail] refused. */
  invalid: Array<[string, string | undefined, RegExp]>;
}

const EVM: Vectors = {
  valid: [[SAMPLES.evm], ['0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359']],
  invalid: [
    [replaceCharAt(SAMPLES.evm, 3, 'A'), undefined, /checksum/], // one letter's case flipped
    [`${SAMPLES.evm.slice(0, -1)}`, undefined, /not a valid/],
  ],
};
const TRON: Vectors = {
  valid: [[SAMPLES.tron]],
  invalid: [[replaceCharAt(SAMPLES.tron, 10, 'X'), undefined, /checksum/]],
};

/** Per address format: its own vectors (another network's address and memo misuse are added for all). */
const VECTORS: Record<Format, Vectors> = {
  bitcoin: {
    valid: [[SAMPLES.bitcoin], ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'], ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy']],
    invalid: [
      [replaceCharAt('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 10, 'X'), undefined, /bad checksum/],
      [replaceCharAt(SAMPLES.bitcoin, -1, '5'), undefined, /not a valid BTC address/],
      ['LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW', undefined, /wrong network prefix/],
    ],
  },
  litecoin: {
    valid: [[SAMPLES.litecoin], ['LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW'], ['MGEW4aba3tnrVtVhGcmoqqHaLt5ymPSLPi']],
    invalid: [
      [replaceCharAt('LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW', 5, 'Q'), undefined, /bad checksum/],
      ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', undefined, /wrong network prefix/],
    ],
  },
  dogecoin: {
    valid: [[SAMPLES.dogecoin], ['DEa7damK8MsbdCJztidBasZKVsDLJifWfE']],
    invalid: [
      [replaceCharAt(SAMPLES.dogecoin, 8, 'g'), undefined, /bad checksum/],
      ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', undefined, /wrong network prefix/],
    ],
  },
  evm: EVM,
  tron: TRON,
  solana: {
    valid: [[SAMPLES.solana], ['11111111111111111111111111111111']],
    invalid: [['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', undefined, /wrong length/]],
  },
  xrp: {
    valid: [[SAMPLES.xrp, '0'], [SAMPLES.xrp, '4294967295']],
    invalid: [
      [replaceCharAt(SAMPLES.xrp, 6, 'z'), '1', /bad checksum/],
      [SAMPLES.xrp, undefined, /needs a memo or destination tag/],
      [SAMPLES.xrp, '4294967296', /exceeds 4294967295/],
      [SAMPLES.xrp, '007', /leading zeros/],
      [SAMPLES.xrp, 'hello', /decimal integer/],
    ],
  },
  stellar: {
    valid: [[SAMPLES.stellar, '12345'], [SAMPLES.stellar, 'invoice 7']],
    invalid: [
      [replaceCharAt(SAMPLES.stellar, 10, 'B'), '1', /bad checksum/],
      [SAMPLES.stellar, undefined, /needs a memo/],
      [SAMPLES.stellar, 'x'.repeat(29), /exceeds 28 bytes/],
    ],
  },
  ton: {
    valid: [[SAMPLES.ton, 'order 42']],
    invalid: [
      [replaceCharAt(SAMPLES.ton, 10, 'Q'), 'c', /bad checksum/],
      [SAMPLES.ton, undefined, /needs a memo/],
      [SAMPLES.ton, 'two\nlines', /non-printable/],
    ],
  },
};

interface Currency {
  coin: string;
  network: string;
  is_memo: boolean;
}

/** The catalog's address format per network, as migration 0002 seeds it. */
const FORMAT_OF: Record<string, Format> = {
  'BTC/BTC': 'bitcoin', 'LTC/LTC': 'litecoin', 'DOGE/DOGE': 'dogecoin', 'ETH/ETH': 'evm', 'USDT/ERC20': 'evm',
  'USDC/ERC20': 'evm', 'USDT/BEP20': 'evm', 'BNB/BEP20': 'evm', 'USDT/TRC20': 'tron', 'TRX/TRX': 'tron',
  'SOL/SOL': 'solana', 'XRP/XRP': 'xrp', 'XLM/XLM': 'stellar', 'TON/TON': 'ton',
};

describe('GET /partner/addresses/validate', () => {
  let t: TestApp;
  let apiKey: string;
  let currencies: Currency[];
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    ({ apiKey } = await t.createPartner({ rate_limit_per_minute: 100_000 }));
    currencies = (await t.app.inject({ method: 'GET', url: '/api/v1/currencies' })).json<Currency[]>();
  });
  after(() => t.close());

  const validate = (params: Record<string, string | undefined>, headers: Record<string, string> = {}) => {
    const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return t.app.inject({ method: 'GET', url: `/api/v1/partner/addresses/validate?${query.toString()}`, headers, remoteAddress: freshAddress() });
  };
  const answer = async (params: Record<string, string | undefined>) => {
    const res = await validate(params);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ valid: boolean; detail: string | null; is_memo_required: boolean }>();
  };

  /** POST /partner/orders to this recipient: 201, or 400 naming the recipient. */
  const orderAccepts = async (currency: Currency, address: string, tag: string | undefined): Promise<boolean> => {
    const source = currency.coin === 'BTC' ? { coin_from: 'ETH', network_from: 'ETH', amount_from: 1 } : { coin_from: 'BTC', network_from: 'BTC', amount_from: 0.05 };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        ...source, coin_to: currency.coin, network_to: currency.network, rate_type: 'float',
        recipient_address: address, ...(tag === undefined ? {} : { recipient_address_tag: tag }),
      }),
    });
    if (res.statusCode === 201) return true;
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json<{ detail: string }>().detail, /recipient_address/);
    return false;
  };

  it('every network of the catalog: its valid vectors pass, checksums, other networks\' addresses and memo misuse fail; order creation agrees', async () => {
    const networks = currencies.map((c) => `${c.coin}/${c.network}`).sort();
    assert.deepEqual(networks, Object.keys(FORMAT_OF).sort(), 'a network of the catalog has no vectors here');
    for (const currency of currencies) {
      const label = `${currency.coin}/${currency.network}`;
      const format = FORMAT_OF[label];
      assert.ok(format !== undefined, label);
      const vectors = VECTORS[format];
      const memoTag = currency.is_memo ? '1' : undefined;
      const cases: Array<[string, string | undefined, RegExp | undefined]> = [
        ...vectors.valid.map(([address, tag]): [string, string | undefined, undefined] => [address, tag, undefined]),
        ...vectors.invalid,
        // Another network's address, each of them (none is valid on two formats' rules).
        ...(Object.keys(SAMPLES) as Format[])
          .filter((other) => other !== format && !(format === 'evm' && other === 'evm'))
          .map((other): [string, string | undefined, RegExp] => [SAMPLES[other], memoTag, /not a valid/]),
        // A tag where the network has no memos.
        ...(currency.is_memo ? [] : [[SAMPLES[format], '123', /does not use a memo/] as [string, string, RegExp]]),
      ];
      for (const [address, tag, detail] of cases) {
        const what = `${label} ${address} ${tag ?? ''}`;
        const result = await answer({ coin: currency.coin.toLowerCase(), network: currency.network, address, tag });
        assert.equal(result.is_memo_required, currency.is_memo, what);
        if (detail === undefined) {
          assert.deepEqual(result, { valid: true, detail: null, is_memo_required: currency.is_memo }, what);
        } else {
          assert.equal(result.valid, false, what);
          assert.match(result.detail ?? '', detail, what);
        }
        assert.equal(await orderAccepts(currency, address, tag), detail === undefined, `order creation disagrees: ${what}`);
      }
    }
  });

  it('a coin on one network needs no network; public, and a key that is sent must be valid', async () => {
    assert.equal((await answer({ coin: 'BTC', address: SAMPLES.bitcoin })).valid, true);
    const keyed = await validate({ coin: 'BTC', address: SAMPLES.bitcoin }, { 'x-api-key': apiKey });
    assert.equal(keyed.statusCode, 200, keyed.body);
    assertError(await validate({ coin: 'BTC', address: SAMPLES.bitcoin }, { 'x-api-key': 'pk_0000.nope' }), 401, 'unauthorized');
  });

  it('400: unknown coin, unknown network, a coin on several networks without network, missing or extra parameters', async () => {
    assert.match(assertError(await validate({ coin: 'NOPE', address: SAMPLES.bitcoin }), 400, 'bad_request').detail, /not a known coin/);
    assert.match(assertError(await validate({ coin: 'BTC', network: 'ERC20', address: SAMPLES.bitcoin }), 400, 'bad_request').detail, /not a network of BTC/);
    assert.match(assertError(await validate({ coin: 'USDT', address: SAMPLES.evm }), 400, 'bad_request').detail, /several networks \(BEP20, ERC20, TRC20\)/);
    assertError(await validate({ coin: 'BTC' }), 400, 'bad_request');
    assertError(await validate({ address: SAMPLES.bitcoin }), 400, 'bad_request');
    assertError(await validate({ coin: 'BTC', address: SAMPLES.bitcoin, memo: '1' }), 400, 'bad_request');
    assertError(await validate({ coin: 'BTC', address: '' }), 400, 'bad_request');
  });
});
