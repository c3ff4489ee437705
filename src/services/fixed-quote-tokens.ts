import { createHmac, createSecretKey, randomUUID, timingSafeEqual, type KeyObject } from 'node:crypto';
import { Decimal } from '../domain/money.js';

/**
 * What a fixed quote promises, carried inside its `quote_id`: issuing one writes
 * nothing, and any process holding the signing key can honour it. An order that locks it stores
 * `id` as `orders.quote_id`, whose unique index is the record that the quote was spent.
 */
export interface FixedQuoteClaim {
  /** A fresh UUID per quote: the spent record's key (`orders.quote_id`). */
  id: string;
  /** The partner it was priced for; null for a quote asked without a key (any partner may lock it). */
  partnerId: string | null;
  currencyFromId: string;
  currencyToId: string;
  amountFrom: Decimal;
  amountTo: Decimal;
  /** The amount_to a reverse quote was asked for; undefined for a quote by amount. */
  amountToRequested: Decimal | undefined;
  /** The published rate (coin_to decimals, rounded down). */
  rate: Decimal;
  /** The exact net rate an order locks. */
  exactRate: Decimal;
  /**
   * The partner's markup it was priced with, bps: what an order locking it stores (docs/contract.md §10.1).
   * Undefined only in a token of the previous format (`fq1`), which did not carry it.
   */
  markupBps: number | undefined;
  /** Unix ms after which no order may lock it. */
  expiresAtMs: number;
}

/** The quote-signing keys: `current` signs and verifies; `previous` (a rotated-out key) only verifies. */
export interface QuoteSigningKeys {
  current: Buffer;
  previous?: Buffer | undefined;
}

/**
 * The keys of a resolved configuration: QUOTE_SIGNING_KEY (on the embedded default generated
 * into DATA_DIR, embedded-secrets.ts), else a key derived from SECRETS_KEY, which every process
 * of a deployment shares; QUOTE_SIGNING_KEY_PREVIOUS verifies only.
 */
export function quoteSigningKeys(config: {
  quoteSigningKey: Buffer | undefined;
  quoteSigningKeyPrevious: Buffer | undefined;
  secretsKey: Buffer;
}): QuoteSigningKeys {
  return {
    current: config.quoteSigningKey ?? createHmac('sha256', config.secretsKey).update('fixed quote signing key v1').digest(),
    previous: config.quoteSigningKeyPrevious,
  };
}

/** Why a presented quote_id is not a quote this service can honour. */
export type QuoteTokenProblem = 'malformed' | 'forged';

/**
 * The token formats: `fq2` carries the markup; `fq1`, the previous one, still opens
 * (a quote issued by the previous release during a rolling deploy), without it. Each has its own
 * MAC context, so a payload signed as one never opens as the other.
 */
const FORMATS = {
  fq2: { context: 'fixed quote v2|', fields: 11 },
  fq1: { context: 'fixed quote v1|', fields: 10 },
} as const;
type Format = keyof typeof FORMATS;
const PREFIX: Format = 'fq2';
/** HMAC-SHA256 cut to 128 bits, as the list cursor's: forging one is a 2^-128 guess. */
const MAC_BYTES = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DECIMAL = /^[0-9]{1,40}(\.[0-9]{1,120})?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Signs and opens fixed-quote tokens: `fq2.<payload>.<mac>`, the payload the claim's fields as
 * text (base64url), the MAC HMAC-SHA256 over the prefix and payload under the signing key.
 * The payload is not secret (it is what the quote response shows, plus ids); the MAC makes it
 * unforgeable, so a token opens only as it was issued. A token made under the previous key
 * still opens (key rotation within a quote's lifetime, docs/adr/0005-quotes-and-prices.md).
 */
export class FixedQuoteTokens {
  /**
   * The keys as KeyObjects, imported once: createHmac with a raw Buffer imports the key on every
   * call (about 11 µs a MAC against 3 µs from a KeyObject, Node.js 24), once per quote issued and
   * per key tried when one is opened.
   */
  private readonly signing: KeyObject;
  private readonly verifying: readonly KeyObject[];

  constructor(keys: QuoteSigningKeys) {
    this.signing = createSecretKey(keys.current);
    this.verifying = keys.previous === undefined ? [this.signing] : [this.signing, createSecretKey(keys.previous)];
  }

  /** A new token for `claim` without its id (a fresh UUID); returns both. */
  issue(claim: Omit<FixedQuoteClaim, 'id' | 'markupBps'> & { markupBps: number }): { id: string; token: string } {
    const id = randomUUID();
    const payload = Buffer.from(
      [
        id,
        claim.partnerId ?? '',
        claim.currencyFromId,
        claim.currencyToId,
        claim.amountFrom.toFixed(),
        claim.amountTo.toFixed(),
        claim.amountToRequested?.toFixed() ?? '',
        claim.rate.toFixed(),
        claim.exactRate.toFixed(),
        String(claim.expiresAtMs),
        String(claim.markupBps),
      ].join('|'),
    ).toString('base64url');
    return { id, token: `${PREFIX}.${payload}.${mac(PREFIX, this.signing, payload).toString('base64url')}` };
  }

  /**
   * The claim of a token this service signed (under either key), or why not. Expiry, caller and
   * match are the caller's to check: a token only says what was quoted.
   */
  open(token: string): FixedQuoteClaim | QuoteTokenProblem {
    const parts = token.split('.');
    const [format = '', payload = '', sent = ''] = parts;
    if (parts.length !== 3 || !(format in FORMATS)) return 'malformed';
    if (!BASE64URL.test(payload) || !BASE64URL.test(sent)) return 'malformed';
    const presented = Buffer.from(sent, 'base64url');
    if (presented.length !== MAC_BYTES) return 'malformed';
    if (!this.verifying.some((key) => timingSafeEqual(mac(format as Format, key, payload), presented))) return 'forged';
    // Signed by us, so well formed unless the format changed under the same prefix (a bug).
    const claim = parseClaim(format as Format, Buffer.from(payload, 'base64url').toString('utf8'));
    if (claim === undefined) throw new Error('a signed fixed-quote token does not parse');
    return claim;
  }
}

function mac(format: Format, key: KeyObject, payload: string): Buffer {
  return createHmac('sha256', key).update(FORMATS[format].context).update(payload).digest().subarray(0, MAC_BYTES);
}

function parseClaim(format: Format, text: string): FixedQuoteClaim | undefined {
  const fields = text.split('|');
  if (fields.length !== FORMATS[format].fields) return undefined;
  const [id, partnerId, fromId, toId, amountFrom, amountTo, requested, rate, exactRate, expires, markup] = fields as [
    string, string, string, string, string, string, string, string, string, string, string | undefined,
  ];
  if (markup !== undefined && !/^[0-9]{1,5}$/.test(markup)) return undefined;
  const uuids = [id, fromId, toId, ...(partnerId === '' ? [] : [partnerId])];
  const decimals = [amountFrom, amountTo, rate, exactRate, ...(requested === '' ? [] : [requested])];
  if (!uuids.every((value) => UUID.test(value)) || !decimals.every((value) => DECIMAL.test(value)) || !/^[0-9]{1,15}$/.test(expires)) {
    return undefined;
  }
  return {
    id,
    partnerId: partnerId === '' ? null : partnerId,
    currencyFromId: fromId,
    currencyToId: toId,
    amountFrom: new Decimal(amountFrom),
    amountTo: new Decimal(amountTo),
    amountToRequested: requested === '' ? undefined : new Decimal(requested),
    rate: new Decimal(rate),
    exactRate: new Decimal(exactRate),
    markupBps: markup === undefined ? undefined : Number(markup),
    expiresAtMs: Number(expires),
  };
}
