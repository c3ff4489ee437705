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
    // Replaces Fastify's own `req` serializer (a pino instance's serializers win over it).
    serializers: { req: requestForLog },
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

/**
 * Paths whose rest is a one-time token (a credential until used): the cabinet's invitation and
 * password reset links, the console's invitation link. Matched case-blind on the percent-decoded path, so a 404 on a near
 * spelling (`/CABINET/INVITATION/…`, `/cabinet/%69nvitation/…`) is redacted as well.
 */
const TOKEN_PATH = /^\/(cabinet\/(?:invitation|password-reset)|console\/invitation)\//i;
/** Any path or query piece shaped like the 256-bit tokens this service makes (43 base64url characters, or longer). */
const TOKEN_SHAPED = /[A-Za-z0-9_-]{43,}/g;

/**
 * A request URL as logged: what follows a token path's prefix is dropped (its
 * query too), and anything else shaped like a token is replaced, wherever it sits.
 */
export function redactUrl(url: string): string {
  let path = url;
  try {
    path = decodeURIComponent(url);
  } catch {
    // not valid percent-encoding: matched as sent
  }
  const prefix = TOKEN_PATH.exec(path);
  if (prefix !== null) return `/${(prefix[1] ?? '').toLowerCase()}/[redacted]`;
  return url.replace(TOKEN_SHAPED, '[redacted]');
}

/** The request as every log line shows it (Fastify's fields), its URL redacted. */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}

function requestForLog(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : request.url,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export type LogDestination = DestinationStream;
