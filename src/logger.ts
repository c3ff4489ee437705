import type { DestinationStream, LoggerOptions } from 'pino';
import type { LogLevel } from './config.js';

/**
 * pino options: request ids on every line (Fastify's reqId), and credentials redacted wherever
 * they could appear: request headers, and any logged object's key/secret/token fields.
 */
export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
}

const CREDENTIAL_HEADERS = ['authorization', '["x-api-key"]', '["x-signature"]'];
const CREDENTIAL_FIELDS = ['api_key', 'secret', 'adminToken', 'admin_token'];
/** Up to three levels of wildcards before the field: `err.config.headers.authorization`. */
const PREFIXES = ['', '*.', '*.*.', '*.*.*.'];

/**
 * Credential headers wherever a logged object carries request headers: `req.headers`, and
 * errors that bring the request they were about (HTTP client errors keep `headers`,
 * `config.headers` or `request.headers`); and key/secret/token fields at any shallow depth.
 */
const REDACTED_PATHS = PREFIXES.flatMap((prefix) => [
  ...CREDENTIAL_HEADERS.map((header) => `${prefix}headers${header.startsWith('[') ? header : `.${header}`}`),
  ...CREDENTIAL_FIELDS.map((field) => `${prefix}${field}`),
]);

export type LogDestination = DestinationStream;
