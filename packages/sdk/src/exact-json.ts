/**
 * JSON with exact numbers. The API writes amounts as JSON numbers with as many digits as the
 * coin has (18 for ETH); `JSON.parse` would turn them into binary floats and lose digits past
 * the 15th or 16th. This parser hands every number literal, with the property it belongs to, to
 * the caller, which keeps decimal amounts as strings. Written here (a small recursive descent
 * over the text; strings are still decoded by JSON.parse) so the SDK has no runtime dependency.
 */

/** What a number literal becomes: `key` is its property's name (an array's for its elements). */
export type NumberReader = (literal: string, key: string | undefined) => unknown;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

class ExactJsonParser {
  private position = 0;

  constructor(
    private readonly text: string,
    private readonly readNumber: NumberReader,
  ) {}

  parse(): unknown {
    const value = this.value(undefined);
    this.skipWhitespace();
    if (this.position !== this.text.length) this.fail('unexpected text after the JSON value');
    return value;
  }

  private value(key: string | undefined): unknown {
    this.skipWhitespace();
    const char = this.text[this.position];
    if (char === '{') return this.object();
    if (char === '[') return this.array(key);
    if (char === '"') return this.string();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.position)) {
        this.position += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.position;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail('unexpected character');
    this.position += match[0].length;
    return this.readNumber(match[0], key);
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.position += 1;
    if (this.consume('}')) return result;
    do {
      this.skipWhitespace();
      if (this.text[this.position] !== '"') this.fail('expected a property name');
      const key = this.string();
      if (!this.consume(':')) this.fail("expected ':'");
      // defineProperty: a key "__proto__" is an own property, as JSON.parse makes it.
      Object.defineProperty(result, key, { value: this.value(key), enumerable: true, writable: true, configurable: true });
    } while (this.consume(','));
    if (!this.consume('}')) this.fail("expected ',' or '}'");
    return result;
  }

  private array(key: string | undefined): unknown[] {
    const result: unknown[] = [];
    this.position += 1;
    if (this.consume(']')) return result;
    do result.push(this.value(key));
    while (this.consume(','));
    if (!this.consume(']')) this.fail("expected ',' or ']'");
    return result;
  }

  /** A string token, decoded by JSON.parse (escapes, and its refusal of raw control characters). */
  private string(): string {
    const start = this.position;
    let index = start + 1;
    for (;;) {
      const char = this.text[index];
      if (char === undefined) this.fail('unterminated string');
      if (char === '"') break;
      index += char === '\\' ? 2 : 1;
    }
    this.position = index + 1;
    return JSON.parse(this.text.slice(start, this.position)) as string;
  }

  private consume(char: string): boolean {
    this.skipWhitespace();
    if (this.text[this.position] !== char) return false;
    this.position += 1;
    return true;
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.position;
    this.position += WHITESPACE.exec(this.text)?.[0].length ?? 0;
  }

  private fail(message: string): never {
    throw new SyntaxError(`invalid JSON at position ${this.position}: ${message}`);
  }
}

/** Parses JSON text, giving each number literal to `readNumber` instead of making it a float. */
export function parseExactJson(text: string, readNumber: NumberReader): unknown {
  return new ExactJsonParser(text, readNumber).parse();
}

const DECIMAL_INPUT = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * A decimal string as the plain JSON number literal it stands for: `"0.10"`, `".5"`, `"+7"` are
 * `0.10`, `0.5`, `7` (trailing zeros kept: they are what was typed, and the API does not count
 * them as decimals). Exponents are refused, as the API refuses them in query strings.
 */
export function decimalLiteral(value: string, name: string): string {
  const match = DECIMAL_INPUT.exec(value.trim());
  const [, sign = '', whole = '', fraction] = match ?? [];
  if (match === null || (whole === '' && (fraction ?? '') === '')) {
    throw new TypeError(`${name} must be a decimal string such as "0.1", got ${JSON.stringify(value)}`);
  }
  const integer = whole.replace(/^0+(?=\d)/, '') || '0';
  return `${sign === '-' ? '-' : ''}${integer}${fraction === undefined || fraction === '' ? '' : `.${fraction}`}`;
}

/** A number literal from the API as a plain decimal string (an exponent, if one ever comes, spelled out). */
export function plainDecimal(literal: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/.exec(literal);
  if (match === null) return literal;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponentText);
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : point > digits.length ? digits.padEnd(point, '0') : digits;
  const at = Math.max(point, 1);
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const rest = padded.slice(at).replace(/0+$/, '');
  return `${sign}${integer}${rest === '' ? '' : `.${rest}`}`;
}

/**
 * JSON text in which the properties `isDecimal` names are written as number literals from their
 * decimal strings: an amount leaves as the digits it was given, never through a float. A JS
 * number there is refused (it may already have lost digits); use a string.
 */
export function stringifyExact(value: unknown, isDecimal: (key: string) => boolean): string {
  const text = write(value, undefined, isDecimal);
  if (text === undefined) throw new TypeError('the value is not serialisable to JSON');
  return text;
}

function write(value: unknown, key: string | undefined, isDecimal: (key: string) => boolean): string | undefined {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null) return 'null';
  if (key !== undefined && isDecimal(key)) {
    if (typeof value === 'string') return decimalLiteral(value, key);
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'number') throw new TypeError(`${key} must be a decimal string (such as "0.1"), not a JS number: amounts are exact`);
  }
  if (Array.isArray(value)) return `[${value.map((item) => write(item, key, isDecimal) ?? 'null').join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>).flatMap(([name, member]) => {
      const text = write(member, name, isDecimal);
      return text === undefined ? [] : [`${JSON.stringify(name)}:${text}`];
    });
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
