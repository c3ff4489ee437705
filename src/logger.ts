import type { DestinationStream, LoggerOptions } from 'pino';
import type { LogLevel } from './config.js';

/**
 * pino options: request ids on every line (Fastify's reqId), and credentials redacted wherever
 * they could appear: request headers, and any logged object's key/secret/token fields.
 */
export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-signature"]',
        'headers.authorization',
        'headers["x-api-key"]',
        'headers["x-signature"]',
        '*.api_key',
        '*.secret',
        '*.adminToken',
        '*.admin_token',
        'api_key',
        'secret',
        'adminToken',
      ],
      censor: '[redacted]',
    },
  };
}

export type LogDestination = DestinationStream;
