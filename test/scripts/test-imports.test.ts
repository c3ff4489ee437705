import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importGraph } from '../../scripts/test-imports.js';

/** A made-up tree of sources, read through the graph's `read` (nothing on disk but the names). */
const ROOT = path.resolve('test');
const at = (file: string): string => path.join(ROOT, file);

describe('which test files reach the database helpers (scripts/test-imports.ts)', () => {
  const sources: Record<string, string> = {
    [at('helpers/test-app.ts')]: "export const buildTestApp = 1;\n",
    [at('direct.test.ts')]: "import { buildTestApp } from './helpers/test-app.js';\n",
    [at('lifecycle/helpers.ts')]: "export { buildTestApp } from '../helpers/test-app.js';\n",
    [at('lifecycle/through-helper.test.ts')]: "import { buildTestApp } from './helpers.js';\n",
    [at('dynamic.test.ts')]: "const app = await import('./helpers/test-app.js');\n",
    [at('comment-only.test.ts')]: "// Built on helpers/test-app.js, or so this comment says.\nimport assert from 'node:assert';\n",
    [at('commented-import.test.ts')]: "// import { buildTestApp } from './helpers/test-app.js';\nexport {};\n",
    [at('cycle-a.ts')]: "import './cycle-b.js';\nimport './helpers/test-app.js';\n",
    [at('cycle-b.ts')]: "import './cycle-a.js';\n",
    [at('cycle.test.ts')]: "import './cycle-b.js';\n",
    [at('pure.test.ts')]: "import { x } from './pure-helper.js';\n",
    [at('pure-helper.ts')]: "export const x = 1;\n",
  };
  const read = (file: string): string => {
    const source = sources[file];
    if (source === undefined) throw new Error(`read a file outside the tree: ${file}`);
    return source;
  };
  // Relative imports resolve only to files that exist: this tree's names are checked against the
  // made-up tree instead of the disk.
  const reaches = importGraph([at('helpers/test-app.ts')], read, (file) => file in sources);

  it('counts a direct import, an export-from through a helper, and a dynamic import', () => {
    assert.equal(reaches(at('direct.test.ts')), true);
    assert.equal(reaches(at('lifecycle/through-helper.test.ts')), true);
    assert.equal(reaches(at('dynamic.test.ts')), true);
  });

  it('never counts a comment that names the helper, nor a commented-out import', () => {
    assert.equal(reaches(at('comment-only.test.ts')), false);
    assert.equal(reaches(at('commented-import.test.ts')), false);
    assert.equal(reaches(at('pure.test.ts')), false);
  });

  it('follows an import cycle to the helper whichever member it enters by', () => {
    assert.equal(reaches(at('cycle.test.ts')), true);
    assert.equal(reaches(at('cycle-b.ts')), true);
    assert.equal(reaches(at('cycle-a.ts')), true);
  });
});
