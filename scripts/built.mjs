/**
 * Runs a module of the compiled dist/ after making sure dist/ is the build of the current src/.
 *
 *   node scripts/built.mjs                     build if src/ changed since the last build
 *   node scripts/built.mjs cli/admin.js ...    that, then run dist/cli/admin.js with the arguments
 *
 * Commands run dist/, not the sources through tsx: tsx costs a process about 2 s of CPU to start
 * (the admin CLI took 2–3 s a command), and the compiled admin CLI starts in about 0.2 s. The
 * check is a stat per source file against the stamp the last build wrote (scripts/source-stamp.mjs),
 * so an unchanged tree costs a few milliseconds and an edited one a build (about half a second).
 *
 * A production install (`npm ci && npm run build && npm prune --omit=dev`) carries no compiler:
 * there dist/ is used as it is, with a warning when the sources are newer than it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceStamp, STAMP_FILE } from './source-stamp.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');

function builtStamp() {
  try {
    return readFileSync(path.join(DIST, STAMP_FILE), 'utf8');
  } catch {
    return undefined;
  }
}

function compilerInstalled() {
  try {
    createRequire(import.meta.url).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

/** Builds dist/ when src/ differs from what it was built from; exits the process if it cannot. */
function ensureBuilt() {
  const current = builtStamp();
  if (current !== undefined && current === sourceStamp(path.join(ROOT, 'src'))) return;
  if (!compilerInstalled()) {
    if (current !== undefined) {
      console.error('built: src/ is newer than dist/ and no compiler is installed (a production install): running dist/ as built');
      return;
    }
    console.error('built: dist/ is missing and no compiler is installed: run `npm run build` where dev dependencies are installed');
    // As `prepare` of an install without dev dependencies: the install itself is not the place to fail.
    if (process.argv.length <= 2) return;
    process.exit(1);
  }
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

ensureBuilt();
const [entry, ...args] = process.argv.slice(2);
if (entry !== undefined) {
  const file = path.join(DIST, entry);
  if (!existsSync(file)) {
    console.error(`built: no ${path.relative(ROOT, file)} in the build`);
    process.exit(2);
  }
  // The module reads its arguments from process.argv as if it had been started directly.
  process.argv = [process.argv[0], file, ...args];
  await import(pathToFileURL(file).href);
}
