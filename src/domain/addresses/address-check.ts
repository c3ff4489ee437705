/**
 * Outcome of checking one recipient/refund address or memo. `reason` is short, human-readable
 * text that the API can hand back to a partner as-is, so it never echoes the (untrusted) input.
 */
export type AddressCheck = { ok: true } | { ok: false; reason: string };

export function valid(): AddressCheck {
  return { ok: true };
}

export function invalid(reason: string): AddressCheck {
  return { ok: false, reason };
}

// Every address we accept is printable ASCII without spaces; checking that first keeps unicode
// look-alikes, pasted whitespace and multi-kilobyte junk away from the decoders.
const WHITESPACE = /\s/u;
const OUTSIDE_PRINTABLE_ASCII = /[^\x21-\x7e]/;

/**
 * Gate shared by every network. `maxLength` is the longest string the network could possibly
 * use; it bounds the work the (super-linear) base58 decoders can be made to do.
 * Nothing is trimmed: a stray space is a sign the value was mangled in transit.
 */
export function screenInput(address: unknown, maxLength: number): AddressCheck {
  if (typeof address !== 'string') return invalid('address must be a string');
  if (address.length === 0) return invalid('address is empty');
  if (WHITESPACE.test(address)) return invalid('address contains whitespace');
  if (OUTSIDE_PRINTABLE_ASCII.test(address)) return invalid('address contains characters outside printable ASCII');
  if (address.length > maxLength) return invalid('wrong length');
  return valid();
}
