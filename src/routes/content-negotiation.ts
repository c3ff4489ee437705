/**
 * Whether an Accept header ranks text/csv above application/json (by q, then by the order
 * given); JSON when it names neither, or nothing.
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let best: { csv: boolean; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const csv = range === 'text/csv';
    if (!csv && range !== 'application/json') continue;
    const qParam = params.find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    if (best === undefined || q > best.q) best = { csv, q };
  }
  return best?.csv ?? false;
}
