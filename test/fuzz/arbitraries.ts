/**
 * Generators of hostile HTTP requests: junk text (unicode, control characters, huge), numbers
 * written every way JSON allows (exponents, huge, tiny, negative zero), JSON bodies built from
 * a route's fields with fields missing, extra, duplicated or of the wrong type, non-JSON bodies,
 * junk and duplicated headers, wrong methods and content types, junk path segments and queries.
 */
import fc from 'fast-check';
import { anyCodePoint, grapheme } from '../helpers/text-arbitraries.js';

/** Every method light-my-request (and so Node's HTTP parser) accepts. */
export const HTTP_METHODS = [
  'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'SEARCH', 'PROPFIND', 'LOCK', 'PURGE',
  'COPY', 'MOVE', 'QUERY', 'M-SEARCH',
] as const;

/** Strings that have broken parsers, validators or databases before. */
const NASTY_STRINGS = [
  '', ' ', '  ', '\t', '\n', '\r\n', '\u0000', 'null', 'undefined', 'true', 'NaN', 'Infinity', '-Infinity',
  '0', '-0', '1e400', '-1e400', '1e-400', '0x10', '0b1', '0o7', '1_000', '1,5', '１２３', '١٢٣', '²', '½',
  '💩', '👨‍👩‍👧‍👦', '\u202e', '\ufeff', '\ud800', '\udfff', '\u2028', '\u00a0', 'ǅ', 'ß', 'İ', 'ﬀ',
  '../../etc/passwd', '..', '.', '%00', '%', '%%', '%2e%2e', "' OR 1=1 --", '"; drop table orders; --', '\\',
  '<script>alert(1)</script>', '{{7*7}}', '$(id)', '__proto__', 'constructor', 'prototype', 'toString',
  'hasOwnProperty', 'BTC', 'btc', 'ETH', 'ERC20', 'fixed', 'float', 'active', 'suspended',
  '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'EX-AAAAAA', 'pk_', 'pk_.',
];

const controlChar = fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code));

/** Any text: ASCII, any Unicode (lone surrogates included), control characters, known-nasty, long. */
export const junkText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: grapheme, maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: anyCodePoint, maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.oneof(controlChar, fc.constantFrom('a', '1', ' ')), maxLength: 20 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '9', 'é', '€', '\u0000', '💩'), fc.integer({ min: 100, max: 5_000 })).map(([c, n]) => c.repeat(n)) },
);

/**
 * Characters no database column holds faithfully or no field means anything by (issue 26.8):
 * NUL, the other C0 controls, DEL, C1 controls, and unpaired surrogates of both halves.
 */
export const hostileChar: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('\u0000') },
  { weight: 3, arbitrary: controlChar },
  { weight: 1, arbitrary: fc.constantFrom('\u007f', '\u0085', '\u009b') },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);

/** `text` with one to three hostile characters put in at random places (start, middle, end). */
export function withHostileChars(text: string): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(hostileChar, fc.nat()), { minLength: 1, maxLength: 3 })
    .map((inserts) => insertChars(text, inserts));
}

/**
 * Text as a query string carries it: percent-encoded UTF-8, and an unpaired surrogate as the
 * three bytes WTF-8 gives it (%ED%A0%80), which no encoder makes but any client can send.
 */
export function encodeQueryText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/**
 * Date and date-time text that looks right and is not a time: month 13, day 45, February 30,
 * April 31, hour 24, minute 61, a leap second, year 0, offsets past ±14:00, and real dates
 * with a hostile character (issue 26.8).
 */
export const impossibleDate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2024-13-45', '2024-13-45T00:00:00Z', '2024-02-30', '2024-02-30T12:00:00Z', '2023-02-29T00:00:00Z', '2024-04-31T00:00:00Z',
    '2024-00-10T00:00:00Z', '2024-01-00T00:00:00Z', '2024-12-31T24:00:00Z', '2024-12-31T23:61:00Z', '2024-12-31T23:59:61Z',
    '2016-12-31T23:59:60Z', '0000-00-00T00:00:00Z', '0000-01-01', '+275760-09-13T00:00:00Z', '-000001-01-01T00:00:00Z',
    '2024-06-01T00:00:00+25:00', '2024-06-01T00:00:00-99:99', '2024-6-1', '2024/06/01', '01/06/2024', '2024-06-01T', 'T00:00:00Z',
    '99999-01-01T00:00:00Z', '2024-06-01T00:00:00.9999999999Z', '2024-W23-1', '2024-153',
  ),
  fc.constantFrom('2024-06-01', '2024-06-01T00:00:00Z').chain(withHostileChars),
);

/** Numbers as JSON source text: every form a client may send, including ones no float holds. */
export const numberLiteral: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: -999, max: 999 }), fc.constantFrom('e', 'E', 'e+', 'E-')).map(
    ([mantissa, exponent, e]) => `${mantissa}${e}${Math.abs(exponent)}`,
  ),
  fc.tuple(fc.nat(99999), fc.nat(99_999_999_999)).map(([whole, fraction]) => `${whole}.${String(fraction).padStart(11, '0')}`),
  fc.constantFrom(
    '0', '-0', '0.0', '-0.0', '1e400', '-1e400', '1e-400', '1E+2', '0e0', '5e-324', '1.7976931348623157e308',
    '9007199254740993', '123456789012345678901234567890.123456789012345678901234567890', '0.1', '1.5', '2147483648',
    '-2147483649', '9223372036854775808', '1e21', '1e-7', '0.000000000000000000000000001', '100000000',
    // Exponents past decimal.js's range (±9e15: Infinity or 0 there) and past a float's.
    '1e99999999999999999999', '1E+99999999999999999999999', '-1e99999999999999999999', '1e-99999999999999999999',
    '5e9000000000000001', '4.9e-324', '2.2250738585072014e-308', '-0e0', '0.0e-99999999999999999999',
  ),
  // Long digit strings: integers no float holds, fractions finer than any column.
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 20, max: 5_000 })).map(([digit, n]) => String(digit).repeat(n)),
  fc.tuple(fc.integer({ min: 20, max: 5_000 }), fc.integer({ min: 1, max: 9 })).map(([n, digit]) => `0.${'0'.repeat(n)}${digit}`),
);

/** Numbers that are not JSON (a body holding them is not valid JSON). */
const invalidNumberLiteral = fc.constantFrom('NaN', 'Infinity', '-Infinity', '+1', '01', '.5', '5.', '0x10', '1e', '--1', '1_0');

/** Object keys; prototype-poisoning ones are refused at parsing (400), so they are kept rare. */
const jsonKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', '', 'a'.repeat(300)) },
);

/** Any JSON value, as text (numbers in any literal form, strings with any content). */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; scalar: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('scalar'), tie('array'), tie('object')),
  scalar: fc.oneof(numberLiteral, junkText.map((s) => JSON.stringify(s)), fc.constantFrom('true', 'false', 'null')),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(jsonKey, tie('value')), { maxLength: 4 })
    .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
})).value;

/** A JSON literal of a plain value. */
export const literal = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<string> => arbitrary.map((value) => JSON.stringify(value));

/** Bodies that are not JSON at all, or almost JSON. */
export const nonJsonBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  junkText,
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  invalidNumberLiteral,
  fc.constantFrom(
    '{', '}', '[', '{"a":}', '{"a":1,}', "{'a':1}", '{a:1}', '{"a":1}{"b":2}', '{"a":1} x', '\ufeff{}', '{"a":"\\x41"}',
    '{"a":"\\ud800"}', '{"a":"\u0000"}', 'a=1&b=2', '<xml/>', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
    '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '"just a string"', '42', 'null', '[]',
  ),
  // Nested deeper than anything sensible.
  fc.integer({ min: 100, max: 5000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
);

/** Content types: mostly the right one (so bodies get parsed), often wrong, sometimes junk. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined, '', 'text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
      'application/jsonx', 'application/json-patch+json', 'application/vnd.api+json', 'application/xml', '*/*',
      'application/json; charset=utf-16', 'application/json; charset=latin1', 'application', 'json', ';', 'application/json, text/plain',
      'application/octet-stream',
    ),
  },
  { weight: 1, arbitrary: junkText },
);

/** Header names a client may send (tokens), including ones the API gives meaning to. */
const headerName: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  fc.constantFrom(
    'x-forwarded-for', 'x-real-ip', 'forwarded', 'host', 'accept', 'accept-encoding', 'accept-version', 'content-encoding',
    'x-http-method-override', 'x-request-id', 'idempotency-key', 'cookie', 'origin', 'referer', 'user-agent', 'range',
    'if-none-match', 'expect', 'transfer-encoding', 'te', 'connection', 'upgrade', 'x-signature',
  ),
);

/**
 * Header values: what passes Node's HTTP parser (visible ASCII, Latin-1, tabs), plus values
 * only `inject` can deliver (control characters, any Unicode), which the app must survive too.
 */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }) },
  { weight: 1, arbitrary: junkText },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', 'undefined', 'null', '0', '-1', '1e400', 'gzip', 'chunked', '100-continue', 'h2c', 'websocket') },
);

/** A huge header value (a proxy in front would refuse it; the app must not fall over). */
export const hugeHeaderValue: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('a', 'Z', '9', ' ', ','), fc.integer({ min: 4_000, max: 40_000 }))
  .map(([c, n]) => c.repeat(n));

/** Extra headers: junk names and values, sometimes duplicated (as an array, as Node joins them). */
export const extraHeaders: fc.Arbitrary<Record<string, string | string[]>> = fc
  .array(
    fc.tuple(headerName, fc.oneof({ weight: 5, arbitrary: headerValue }, { weight: 1, arbitrary: fc.array(headerValue, { minLength: 2, maxLength: 3 }) }, { weight: 1, arbitrary: hugeHeaderValue })),
    { maxLength: 4 },
  )
  .map((entries) => Object.fromEntries(entries));

/** A credential-shaped junk value (long and varied enough that the no-secrets check tracks it). */
const junkCredential: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^pk_[a-z0-9]{20}\.[A-Za-z0-9_-]{43}$/),
  fc.stringMatching(/^pk_[a-z0-9]{0,30}\.[A-Za-z0-9_-]{0,60}$/),
  fc.stringMatching(/^[A-Za-z0-9_-]{20,80}$/),
  fc.string({ minLength: 1, maxLength: 80 }),
  fc.string({ unit: anyCodePoint, minLength: 1, maxLength: 40 }),
  hugeHeaderValue,
);

export interface Credentials {
  /** Valid: the key of an active partner with a huge budget. */
  apiKey: string;
  /** Refused: a revoked key, a suspended partner's key. */
  revokedKey: string;
  suspendedKey: string;
  /** A client key (pk_client_…, docs/contract.md §10.9): served on some routes, 403 scope on the others. */
  clientKey: string;
  adminToken: string;
}

export type AuthHeaders = Record<string, string | string[]>;

/** Credentials for a partner route: mostly the valid key, sent every accepted way, else anything. */
export function partnerAuth(creds: Credentials): fc.Arbitrary<AuthHeaders> {
  const { apiKey } = creds;
  return fc.oneof(
    {
      weight: 14,
      arbitrary: fc.constantFrom<AuthHeaders>(
        { authorization: `Bearer ${apiKey}` },
        { authorization: `bearer   ${apiKey}  ` },
        { 'x-api-key': apiKey },
        { authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey },
      ),
    },
    {
      weight: 6,
      arbitrary: fc.oneof(
        fc.constant<AuthHeaders>({}),
        fc.constantFrom<AuthHeaders>(
          { 'x-api-key': creds.revokedKey },
          { 'x-api-key': creds.suspendedKey },
          { 'x-api-key': creds.clientKey },
          { authorization: `Bearer ${creds.adminToken}` },
          { authorization: `Basic ${apiKey}` },
          { authorization: apiKey },
          { authorization: `Bearer ${apiKey}`, 'x-api-key': creds.revokedKey },
          { 'x-api-key': [apiKey, apiKey] },
          { 'x-api-key': `${apiKey}, ${apiKey}` },
          { authorization: `Bearer ${apiKey} ${apiKey}` },
          { authorization: `Bearer ${apiKey.replace('.', '')}` },
          { 'x-api-key': apiKey.toUpperCase() },
          { 'x-api-key': ` ${apiKey}` },
        ),
        junkCredential.map<AuthHeaders>((value) => ({ 'x-api-key': value })),
        junkCredential.map<AuthHeaders>((value) => ({ authorization: `Bearer ${value}` })),
        headerValue.map<AuthHeaders>((value) => ({ authorization: value })),
        fc.array(junkCredential, { minLength: 2, maxLength: 3 }).map<AuthHeaders>((values) => ({ 'x-api-key': values })),
      ),
    },
  );
}

/** Credentials for an operator route: mostly the admin token, else anything. */
export function adminAuth(creds: Credentials): fc.Arbitrary<AuthHeaders> {
  const { adminToken } = creds;
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom<AuthHeaders>({ authorization: `Bearer ${adminToken}` }, { authorization: `BEARER  ${adminToken} ` }) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom<AuthHeaders>(
          {},
          { authorization: `Bearer ${creds.apiKey}` },
          { 'x-api-key': adminToken },
          { authorization: adminToken },
          { authorization: `Bearer ${adminToken}x` },
          { authorization: `Bearer ${adminToken.slice(1)}` },
          { authorization: [`Bearer ${adminToken}`, `Bearer ${adminToken}`] },
          { authorization: `Bearer ${adminToken}, Bearer ${adminToken}` },
        ),
        junkCredential.map<AuthHeaders>((value) => ({ authorization: `Bearer ${value}` })),
        headerValue.map<AuthHeaders>((value) => ({ authorization: value })),
      ),
    },
  );
}

/** Credentials on a route that needs none: mostly none, sometimes any of the above. */
export function anyAuth(creds: Credentials): fc.Arbitrary<AuthHeaders> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, partnerAuth(creds), adminAuth(creds));
}

/** An X-Signature value to add: none, a valid one over the body (decided later), or junk. */
export type SignatureChoice = { kind: 'none' } | { kind: 'valid' } | { kind: 'junk'; value: string };
export const signatureChoice: fc.Arbitrary<SignatureChoice> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<SignatureChoice>({ kind: 'none' }) },
  { weight: 2, arbitrary: fc.constant<SignatureChoice>({ kind: 'valid' }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.stringMatching(/^[0-9A-F]{64}$/), headerValue)
      .map<SignatureChoice>((value) => ({ kind: 'junk', value })),
  },
);

/** How one field of a JSON body is sent. */
type FieldForm = 'plausible' | 'junk' | 'absent' | 'duplicate' | 'escaped-key' | 'hostile';

const fieldForm: fc.Arbitrary<FieldForm> = fc.oneof(
  { weight: 45, arbitrary: fc.constant<FieldForm>('plausible') },
  // The plausible value with hostile characters in it (a string), or a hostile string instead.
  { weight: 4, arbitrary: fc.constant<FieldForm>('hostile') },
  { weight: 2, arbitrary: fc.constant<FieldForm>('junk') },
  { weight: 2, arbitrary: fc.constant<FieldForm>('absent') },
  { weight: 1, arbitrary: fc.constant<FieldForm>('duplicate') },
  { weight: 1, arbitrary: fc.constant<FieldForm>('escaped-key') },
);

const whitespace = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ');

/** `"coin_from"` with one character written as a \u escape: the same key after parsing. */
function escapedKey(key: string, at: number): string {
  if (key.length === 0) return '""';
  const i = at % key.length;
  const escape = `\\u${key.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return `"${key.slice(0, i)}${escape}${key.slice(i + 1)}"`;
}

/**
 * A JSON object body built from a route's fields (`plausible` gives a consistent set of values,
 * as JSON source text): each field sent as is, as junk, left out, twice or under an escaped
 * key; sometimes with unknown extra fields. Returned as exact text.
 */
export function objectBody(plausible: fc.Arbitrary<Readonly<Record<string, string>>>, names: readonly string[]): fc.Arbitrary<string> {
  const perField = names.map((name) =>
    fc.record({ form: fieldForm, other: jsonText, at: fc.nat(50), ws: whitespace, hostile: fc.array(fc.tuple(hostileChar, fc.nat()), { minLength: 1, maxLength: 3 }) }).map((choice) => (values: Readonly<Record<string, string>>) => {
      const key = JSON.stringify(name);
      // A plausible request may leave a field out (amount_from or amount_to: exactly one is sent).
      const given = values[name];
      const value = given ?? 'null';
      switch (choice.form) {
        case 'plausible':
          return given === undefined ? [] : [`${key}:${choice.ws}${value}`];
        case 'junk':
          return [`${key}:${choice.other}`];
        case 'absent':
          return [];
        case 'duplicate':
          return [`${key}:${value}`, `${key}:${choice.other}`];
        case 'escaped-key':
          return [`${escapedKey(name, choice.at)}:${value}`];
        case 'hostile':
          return [`${key}:${JSON.stringify(insertChars(plainString(value), choice.hostile))}`];
      }
    }),
  );
  return fc
    .tuple(plausible, fc.tuple(...perField), fc.array(fc.tuple(jsonKey, jsonText), { maxLength: 2 }), fc.boolean(), whitespace)
    .map(([values, fields, extra, shuffleExtra, ws]) => {
      const parts = fields.flatMap((field) => field(values));
      const extras = extra.map(([key, value]) => `${JSON.stringify(key)}:${value}`);
      const all = shuffleExtra ? [...extras, ...parts] : [...parts, ...extras];
      return `{${ws}${all.join(`,${ws}`)}${ws}}`;
    });
}

/** The string a JSON literal holds, or the literal's text itself when it holds another value. */
function plainString(literal: string): string {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : literal;
  } catch {
    return literal;
  }
}

/** Puts each character in at its place (modulo the length so far). */
export function insertChars(text: string, inserts: ReadonlyArray<readonly [string, number]>): string {
  return inserts.reduce((acc, [char, at]) => {
    const i = at % (acc.length + 1);
    return acc.slice(0, i) + char + acc.slice(i);
  }, text);
}

/** A path segment that is not a plausible id: encoded junk, raw junk, broken escapes, huge. */
export const junkSegment: fc.Arbitrary<string> = fc.oneof(
  junkText.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, 'x'))),
  // Raw, except what would end the segment; a backslash is sent encoded, because WHATWG URL
  // parsing (light-my-request's, a browser's) reads "/\\" as "//" and then wants a host.
  fc
    .string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 30 })
    .map((s) => s.replace(/[/?#]/g, '').replace(/\\/g, '%5C')),
  fc.constantFrom('%', '%Z', '%ZZ', '%E0%A4%A', '%C0%AF', '%00', '%2F', '%2e%2e', '..', '.', '%FF%FE', '%u0041', '%25', '%0A', '%20'),
  fc.tuple(fc.constantFrom('a', '9', '%41', '-'), fc.integer({ min: 150, max: 3000 })).map(([c, n]) => c.repeat(n)),
);

/** A query string value or key as sent on the wire: encoded, or raw with characters that need it. */
export const queryPart: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: junkText.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, 'x'))) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%E0%A4%A', '+', '%2B', '&', '=', '==', '[]', '[0]', 'a[b]', '%00', ' ', '#') },
);

/** A whole junk query string (for routes that take none, or on top of their fields). */
export const junkQuery: fc.Arbitrary<string> = fc
  .array(fc.tuple(queryPart, fc.option(queryPart, { nil: undefined })), { maxLength: 4 })
  .map((pairs) => pairs.map(([key, value]) => (value === undefined ? key : `${key}=${value}`)).join('&'));

/** Client addresses spread wide, so the per-address limit of anonymous requests rarely bites. */
export const remoteAddress: fc.Arbitrary<string> = fc.oneof(
  { weight: 9, arbitrary: fc.ipV4() },
  { weight: 1, arbitrary: fc.ipV6() },
);

/** Plausible decimals as JSON numbers or query text: small, large, many digits, exponents. */
export const decimalText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0.001', '0.01', '0.1', '0.5', '1', '2', '10', '100', '1000', '25000', '0.00000001', '1e-8', '1e3', '1.5e2', '0.123456789'),
  fc.double({ min: 0, max: 1e6, noNaN: true }).map(String),
  fc.tuple(fc.nat(100_000), fc.nat(99_999_999)).map(([whole, fraction]) => `${whole}.${fraction}`),
);
