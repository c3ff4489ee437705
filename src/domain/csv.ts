/**
 * CSV as RFC 4180 writes it (CRLF line ends, a field quoted when it holds a comma, a quote or a
 * line break, quotes doubled), for exports an accountant opens in a spreadsheet. A text field
 * someone typed (`text`) that begins like a formula (=, +, -, @) is prefixed with an apostrophe,
 * so a spreadsheet shows it instead of running it; numbers are written as they are (a negative
 * amount stays a number).
 */
export function csvField(value: string | null, kind: 'value' | 'text' = 'value'): string {
  if (value === null) return '';
  const safe = kind === 'text' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record, CRLF-terminated. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.join(',')}\r\n`;
}
