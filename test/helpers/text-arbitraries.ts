/**
 * Unicode text for property tests, made from code points by hand. fast-check's own units
 * `'binary'` and `'grapheme'` cost seconds of CPU in every process that builds one: to pick the
 * strings it biases towards, `fc.string` unmaps them through its unit, which first builds a
 * reverse map of all 1.1 million code points. These make the same kinds of text without it.
 */
import fc from 'fast-check';

const fromCodePoint = (code: number): string => String.fromCodePoint(code);

/** Any code point, lone surrogates included: what fast-check's unit `'binary'` makes. */
export const anyCodePoint: fc.Arbitrary<string> = fc.integer({ min: 0, max: 0x10ffff }).map(fromCodePoint);

/** Clusters of several code points: combining marks, emoji sequences, flags, Hangul jamo. */
const COMPOSITE_GRAPHEMES = ['e\u0301', 'a\u0308\u0304', '👨‍👩‍👧‍👦', '👍🏽', '🇫🇷', '🏳️‍🌈', '\u1100\u1161\u11a8', 'क्षि', '\r\n'];

/**
 * A printable grapheme, as fast-check's unit `'grapheme'` makes: printable ASCII, any other code
 * point outside the controls and surrogates, or a cluster of several code points.
 */
export const grapheme: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map(fromCodePoint) },
  { weight: 3, arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }).map(fromCodePoint) },
  { weight: 3, arbitrary: fc.integer({ min: 0xe000, max: 0x10ffff }).map(fromCodePoint) },
  { weight: 1, arbitrary: fc.constantFrom(...COMPOSITE_GRAPHEMES) },
);
