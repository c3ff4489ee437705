import type { TObject } from '@sinclair/typebox';
import { ENVIRONMENT, SIGNER_ENVIRONMENT, variableSchema, type Variable } from './schema.js';

/** The README's generated tables: each between its two marker lines. */
const TABLES: readonly { schema: TObject; begin: string; end: string }[] = [
  { schema: ENVIRONMENT, begin: '<!-- configuration table: generated from src/config/schema.ts by `npm run docs:config` -->', end: '<!-- end of the configuration table -->' },
  { schema: SIGNER_ENVIRONMENT, begin: "<!-- the signer's configuration table: generated from src/config/schema.ts by `npm run docs:config` -->", end: "<!-- end of the signer's configuration table -->" },
];

/** A number as the README writes it: 3000, 60000 (no separators: it is what one types). */
const shownNumber = (value: number): string => String(value);

function shownDefault(name: Variable): string {
  const schema = variableSchema(name);
  if (schema['x-shown'] !== undefined) return schema['x-shown'];
  if (schema.default === undefined) return '(unset)';
  const value = typeof schema.default === 'number' ? shownNumber(schema.default) : typeof schema.default === 'string' ? schema.default : JSON.stringify(schema.default);
  // A value with spaces or punctuation reads as code.
  return /^[A-Za-z0-9.-]+$/.test(value) ? value : `\`${value}\``;
}

function meaning(name: Variable): string {
  const schema = variableSchema(name);
  const text = (schema.description ?? '').replace(/\|/g, '\\|');
  const range = schema.type === 'integer' && schema.minimum !== undefined && schema.maximum !== undefined ? `; ${shownNumber(schema.minimum)}–${shownNumber(schema.maximum)}` : '';
  return `${text}${range}`;
}

/** One table: a row a variable of the schema, in its order. */
function table(schema: TObject): string[] {
  const rows = (Object.keys(schema.properties) as Variable[]).map((name) => `| \`${name}\` | ${shownDefault(name)} | ${meaning(name)} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows];
}

/** `readme` with each generated table (between its marker lines) replaced by its schema's. */
export function withConfigurationTables(readme: string): string {
  let text = readme;
  for (const { schema, begin, end } of TABLES) {
    const from = text.indexOf(begin);
    const to = text.indexOf(end);
    if (from === -1 || to < from) throw new Error(`the README has no table between "${begin}" and "${end}"`);
    text = text.slice(0, from) + [begin, ...table(schema), end].join('\n') + text.slice(to + end.length);
  }
  return text;
}
