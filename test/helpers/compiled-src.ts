/**
 * How a process a test starts runs a module of src/. Under `npm test` the runner compiles src/
 * once for the run (scripts/build.mjs, as `npm start` does; TEST_COMPILED_DIR names the output)
 * and those processes run that JavaScript with no loader: tsx costs each of them about 2 s of
 * CPU at start (a server's start: 4.1–5.0 s through tsx, 2.3 s compiled), and the suite starts
 * dozens. A test file run on its own (`node --import tsx --test <file>`) has no build: its
 * processes run the sources through tsx, as before.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The run's compiled src/ (a directory directly in the repository root), or undefined. */
export const COMPILED_DIR: string | undefined = process.env.TEST_COMPILED_DIR;

/** A module of src/ as a child process runs it: its file, and the loader flags it needs. */
export interface SrcModule {
  /** Absolute path of the file to run or import. */
  file: string;
  /** `['--import', 'tsx']` for a TypeScript source; none for compiled JavaScript. */
  loader: string[];
}

/** `src/<relative>` (a `.ts` path, e.g. `server.ts` or `db/database.ts`) as this run runs it. */
export function srcModule(relative: string): SrcModule {
  if (COMPILED_DIR === undefined) return { file: path.join(REPO_ROOT, 'src', relative), loader: ['--import', 'tsx'] };
  return { file: path.join(COMPILED_DIR, relative.replace(/\.ts$/, '.js')), loader: [] };
}
