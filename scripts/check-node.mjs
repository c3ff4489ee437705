/**
 * The first step of `npm start`: on a Node.js that package.json's `engines` does not allow, one
 * line naming the versions it needs, exit 1, before anything else can fail in a less readable
 * way (an import the old runtime lacks, a syntax error deep in a dependency). Plain JavaScript
 * with nothing but node:fs, so it runs on any Node.js old enough to need it.
 *
 * `engines.node` is read as written here: alternatives joined by `||`, each `^X`, `^X.Y` or `>=X`.
 */
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

/** Whether `version` (`20.12.1`) satisfies `range` (`^20.12 || ^22 || >=24`). */
export function satisfies(version, range) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return range.split('||').some((alternative) => {
    const match = /^\s*(\^|>=)(\d+)(?:\.(\d+))?\s*$/.exec(alternative);
    if (match === null) throw new Error(`engines.node: cannot read "${alternative.trim()}"`);
    const [, operator, wantMajor, wantMinor = '0'] = match;
    if (operator === '>=') return major > Number(wantMajor) || (major === Number(wantMajor) && minor >= Number(wantMinor));
    return major === Number(wantMajor) && minor >= Number(wantMinor);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const needed = engines.node;
  if (!satisfies(process.versions.node, needed)) {
    console.error(`exchange-partner-api needs Node.js ${needed}; this is Node.js ${process.versions.node} (${process.execPath}). Install Node.js 24 LTS or 22.`);
    process.exit(1);
  }
}
