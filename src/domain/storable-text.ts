/**
 * Text a request may carry into the database. PostgreSQL's text and jsonb refuse a
 * NUL byte ("invalid byte sequence", a 500 where it reached a query), and an unpaired UTF-16
 * surrogate has no UTF-8 form (the driver writes U+FFFD: the row would not hold what was sent).
 * The other C0 control characters and DEL are stored, but no field of this API means anything
 * by them and they corrupt what people read (logs, the cabinet, CSV): refused as well. Tab, line
 * feed and carriage return are ordinary text (a description may have lines).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSTORABLE = /[\p{Cs}\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/u;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'gu');

/** Whether `text` holds a character refused above. */
export function hasUnstorableText(text: string): boolean {
  return UNSTORABLE.test(text);
}

/**
 * Where in a parsed request part (an object, array or string from JSON, a query or a form) the
 * first refused character is, as a JSON pointer (`/metadata/key`, `` for the root); undefined
 * when there is none. Object keys count: jsonb refuses a NUL in a key as in a value.
 */
export function findUnstorableText(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return hasUnstorableText(value) ? pointer : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], `${pointer}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    // The key is named in the refusal: its refused characters are not echoed back.
    const at = `${pointer}/${key.replace(UNSTORABLE_ALL, '?').replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (hasUnstorableText(key)) return at;
    const found = findUnstorableText(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The words of the refusal, after the field's location. */
export const UNSTORABLE_TEXT_MESSAGE = 'holds a control character (such as NUL) or an unpaired surrogate, which cannot be stored';
