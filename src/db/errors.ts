/** Whether `error` is PostgreSQL's (or PGlite's) unique violation of `constraint` (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  return e.code === '23505' && (e.constraint === constraint || (e.message ?? '').includes(constraint));
}
