import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
// @ts-expect-error: a plain .mjs script with no declarations (it must run on any Node.js, untyped).
import { satisfies } from '../../scripts/check-node.mjs';

const check = satisfies as (version: string, range: string) => boolean;
const ENGINES = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

/** Issue 37: `npm start` on a Node.js that `engines` does not allow says so in one line (scripts/check-node.mjs). */
describe('the Node.js version check before npm start', () => {
  it('reads engines as written: ^20.12 || ^22 || >=24', () => {
    assert.equal(ENGINES, '^20.12 || ^22 || >=24');
    const cases: Array<[string, boolean]> = [
      ['18.20.8', false],
      ['20.11.1', false],
      ['20.12.0', true],
      ['20.20.2', true],
      ['21.7.3', false],
      ['22.0.0', true],
      ['23.11.0', false],
      ['24.21.0', true],
      ['v25.1.0', true],
    ];
    for (const [version, allowed] of cases) assert.equal(check(version, ENGINES), allowed, version);
  });

  it('refuses a range it cannot read rather than guess', () => {
    assert.throws(() => check('24.0.0', '~24.1'), /cannot read "~24.1"/);
  });

  it('passes on this Node.js (the first step of npm start)', () => {
    execFileSync(process.execPath, ['scripts/check-node.mjs'], { cwd: new URL('../../', import.meta.url), stdio: 'pipe' });
  });
});
