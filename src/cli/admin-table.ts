import { isLosslessNumber, stringify } from 'lossless-json';

/** One value as a person reads it: exact numbers as typed, yes/no, "-" for nothing. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (isLosslessNumber(value) || typeof value === 'number' || typeof value === 'bigint') return String(value);
  // Nested JSON (an event's data) with its numbers as the API wrote them.
  return stringify(value) ?? '-';
}

/** Columns padded to their widest cell, two spaces apart, no trailing blanks. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((text, i) => text.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** A record as "label  value" lines with the values aligned. */
export function fields(record: Readonly<Record<string, unknown>>, names: readonly string[]): string {
  const width = Math.max(...names.map((name) => name.length));
  return names.map((name) => `${name.padEnd(width)}  ${cell(record[name])}`).join('\n');
}
