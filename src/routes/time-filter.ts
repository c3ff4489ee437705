import { ApiError } from '../errors.js';

/**
 * A date-time query value as a Date the database can compare. The date-time format admits a
 * leap second (23:59:60), which Date cannot hold, and year 0000 (or 0001 with a positive
 * offset), which PostgreSQL refuses: both are 400 here instead of a failed query (500).
 */
export function timeFilter(field: string, value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1) {
    throw new ApiError('bad_request', `querystring/${field} is not a time that can be searched for`);
  }
  return date;
}
