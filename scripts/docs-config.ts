/**
 * `npm run docs:config`: writes the README's configuration table from the configuration schema
 * (src/config/schema.ts). test/config-docs.test.ts fails while the README's table differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withConfigurationTables } from '../src/config/table.js';

const readmePath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const before = readFileSync(readmePath, 'utf8');
const after = withConfigurationTables(before);
if (after === before) console.log('README.md: the configuration tables are the schema\'s already');
else {
  writeFileSync(readmePath, after);
  console.log('README.md: configuration tables written from src/config/schema.ts');
}
