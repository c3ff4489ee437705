import { Ajv, type Options } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Two validators: query strings and path parameters are text, so their numbers and booleans
 * are coerced; JSON bodies are taken as sent (a "1" is not the number 1). Unknown fields are
 * rejected, never silently dropped, so a typo in a request is a 400 and not a surprise.
 */
const shared: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };

function build(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...shared, coerceTypes });
  // ajv-formats is CommonJS: its default export is the plugin function under `.default` too.
  (formats as unknown as { default: (ajv: Ajv) => void }).default(ajv);
  return ajv;
}

export function installValidators(app: FastifyInstance): void {
  const forText = build('array');
  const forBody = build(false);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? forBody.compile(schema) : forText.compile(schema),
  );
}
