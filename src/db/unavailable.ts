/** Socket errors and PostgreSQL "connection" / "operator intervention" SQLSTATE classes. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
]);

const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error',
  'connect ECONNREFUSED',
  'timeout expired',
  // pg's query_timeout: the connection is open but the server stopped answering (a hung
  // server, a partition without resets). The request is over, the database is not reachable.
  'Query read timeout',
];

/**
 * True when an error means "the database cannot be reached right now" (not "this query is
 * wrong"): the API answers 503 for these, quickly, and recovers when the database returns.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (UNAVAILABLE_MESSAGES.some((message) => current instanceof Error && current.message.includes(message))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  // AggregateError from a dual-stack connect attempt carries the real errors inside.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return false;
}
