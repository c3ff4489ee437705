import type { AddressFormat } from '../address-format.js';
import { invalid, valid, type AddressCheck } from './address-check.js';

const MAX_DESTINATION_TAG = 4294967295; // uint32
const DECIMAL_WITHOUT_LEADING_ZEROS = /^(0|[1-9][0-9]*)$/;
const STELLAR_TEXT_MEMO_BYTES = 28; // XDR string<28>
const TON_COMMENT_BYTES = 120;
// Unpaired UTF-16 surrogates have no UTF-8 form; encoding would silently swap in U+FFFD.
const LONE_SURROGATE = /\p{Cs}/u;
// Control characters and line/paragraph separators do not display in TON wallets' comment field.
const NON_PRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/**
 * Destination tag / memo / comment for networks that route deposits to a shared account by it.
 * Callers pass a memo only when the partner sent one: the empty string is rejected, not "none".
 */
export function validateMemo(format: AddressFormat, memo: string): AddressCheck {
  if (typeof memo !== 'string') return invalid('memo must be a string');
  switch (format) {
    case 'xrp':
      return checkDestinationTag(memo);
    case 'stellar':
      // A MEMO_ID (uint64) is decimal text well under 28 bytes, so the text rule covers it.
      return checkText(memo, STELLAR_TEXT_MEMO_BYTES);
    case 'ton': {
      const text = checkText(memo, TON_COMMENT_BYTES);
      if (!text.ok) return text;
      return NON_PRINTABLE.test(memo) ? invalid('memo contains non-printable characters') : text;
    }
    default:
      return invalid('network does not use a memo');
  }
}

// Canonical decimal only: "+5", "05" or "5.0" would be read differently by different senders.
function checkDestinationTag(tag: string): AddressCheck {
  if (tag.length === 0) return invalid('destination tag is empty');
  if (!DECIMAL_WITHOUT_LEADING_ZEROS.test(tag)) {
    return invalid('destination tag must be a decimal integer without sign or leading zeros');
  }
  if (tag.length > 10 || Number(tag) > MAX_DESTINATION_TAG) return invalid('destination tag exceeds 4294967295');
  return valid();
}

function checkText(memo: string, maxBytes: number): AddressCheck {
  if (memo.length === 0) return invalid('memo is empty');
  if (LONE_SURROGATE.test(memo)) return invalid('memo is not valid Unicode text');
  if (Buffer.byteLength(memo, 'utf8') > maxBytes) return invalid(`memo exceeds ${maxBytes} bytes`);
  return valid();
}
