import { ENVIRONMENT, variableSchema, type Variable } from './schema.js';

/** Where the generated table stands in the README, between these two lines. */
export const TABLE_BEGIN = '<!-- configuration table: generated from src/config/schema.ts by `npm run docs:config` -->';
export const TABLE_END = '<!-- end of the configuration table -->';

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

/** The README's configuration table: one row a variable of the schema, in its order. */
export function configurationTable(): string {
  const rows = (Object.keys(ENVIRONMENT.properties) as Variable[]).map((name) => `| \`${name}\` | ${shownDefault(name)} | ${meaning(name)} |`);
  return [TABLE_BEGIN, '| variable | default | meaning |', '|---|---|---|', ...rows, TABLE_END].join('\n');
}

/** `readme` with its table (between TABLE_BEGIN and TABLE_END) replaced by the schema's. */
export function withConfigurationTable(readme: string): string {
  const begin = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  if (begin === -1 || end < begin) throw new Error(`the README has no configuration table between "${TABLE_BEGIN}" and "${TABLE_END}"`);
  return readme.slice(0, begin) + configurationTable() + readme.slice(end + TABLE_END.length);
}
