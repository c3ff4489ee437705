import { Ajv, type Options, type ValidateFunction } from 'ajv';
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

/**
 * The two validators and what they compiled, for the process: an app built again (the test
 * suite builds hundreds) reuses its routes' compiled checks instead of generating them again.
 * Keyed by the schema's text, so an equal schema rebuilt as a new object hits and a changed one
 * never does.
 */
let validators: { forText: Ajv; forBody: Ajv } | undefined;
const compiled = new Map<string, ValidateFunction>();

export function installValidators(app: FastifyInstance): void {
  validators ??= { forText: build('array'), forBody: build(false) };
  const { forText, forBody } = validators;
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const forPart = httpPart === 'body' ? forBody : forText;
    const key = `${httpPart === 'body' ? 'body' : 'text'}\n${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = forPart.compile(schema);
      compiled.set(key, validate);
    }
    return validate;
  });
}
