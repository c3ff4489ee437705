/**
 * PostgreSQL type OIDs whose default JavaScript mapping differs between `pg` and PGlite, and
 * the one mapping both engines use here, so rows come back identically typed:
 * - NUMERIC: exact decimal string (money is never a binary float);
 * - INT8: number (counts and sequences stay far below 2^53);
 * - BYTEA: Buffer.
 * Timestamps (Date), booleans, JSON and UUIDs (string) already agree.
 */
const NUMERIC_OID = 1700;
const INT8_OID = 20;
const BYTEA_OID = 17;

export const parseNumeric = (value: string): string => value;
export const parseInt8 = (value: string): number => Number(value);
/** Text format of bytea is `\x` followed by hex. */
export const parseBytea = (value: string): Buffer => Buffer.from(value.slice(2), 'hex');

export const TYPE_PARSERS: Readonly<Record<number, (value: string) => unknown>> = {
  [NUMERIC_OID]: parseNumeric,
  [INT8_OID]: parseInt8,
  [BYTEA_OID]: parseBytea,
};
