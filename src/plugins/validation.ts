import { Ajv, type Options, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { findUnstorableText, UNSTORABLE_TEXT_MESSAGE } from '../domain/storable-text.js';

/**
 * Two validators: query strings and path parameters are text, so their numbers and booleans
 * are coerced; JSON bodies are taken as sent (a "1" is not the number 1). Unknown fields are
 * rejected, never silently dropped, so a typo in a request is a 400 and not a surprise.
 * After its schema, every body and query string is checked for text no column can hold
 * (domain/storable-text.ts: NUL, other control characters, unpaired surrogates), so such a
 * value is a 400 naming its field wherever it was headed, never a failed query (500).
 * allErrors: a 400 lists every failed keyword in `errors` (docs/contract.md §10.4), not only the first;
 * the first is still the one `detail` names, as before (Ajv checks in the same order either way).
 */
const shared: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

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

/** `validate`, then the storable-text check; Fastify reads `errors` of a false answer, as Ajv's. */
function withStorableText(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    if (!validate(data, context)) {
      checked.errors = validate.errors;
      return false;
    }
    const at = findUnstorableText(data);
    if (at === undefined) {
      checked.errors = null;
      return true;
    }
    checked.errors = [{ instancePath: at, schemaPath: '#', keyword: 'storableText', params: {}, message: UNSTORABLE_TEXT_MESSAGE }];
    return false;
  }) as ValidateFunction;
  // Fastify passes the parent (so Ajv may coerce or default a root value) only to a function with a schemaEnv.
  Object.assign(checked, { schemaEnv: validate.schemaEnv, schema: validate.schema });
  return checked;
}

export function installValidators(app: FastifyInstance): void {
  validators ??= { forText: build('array'), forBody: build(false) };
  const { forText, forBody } = validators;
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const forPart = httpPart === 'body' ? forBody : forText;
    const key = `${httpPart ?? ''}\n${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = forPart.compile(schema);
      // Headers pass Node's HTTP parser, which refuses control characters already; a path
      // parameter is an id, and an id that holds one is an unknown id (404, as routes answer).
      if (httpPart === 'body' || httpPart === 'querystring') validate = withStorableText(validate);
      compiled.set(key, validate);
    }
    return validate;
  });
}
