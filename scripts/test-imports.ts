/**
 * Which test files use a database, decided by what they import, not by what their text
 * mentions: a file that reaches `test/helpers/test-app.ts` or `test/helpers/test-database.ts`
 * through any chain of relative imports (a shared helper such as `lifecycle-helpers.ts` or
 * `fuzz-harness.ts` counts) runs on both engines. A text search for the import missed the files
 * that reach the app through a helper (they ran on PGlite only) and counted a comment that named
 * it. TypeScript's own pre-processor lists the imports (static, dynamic and `export … from`), so
 * a commented-out import is not one.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Relative imports of one source file, resolved to `.ts` files that exist. */
function localImports(file: string, source: string, exists: (file: string) => boolean): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier.replace(/\.(m?js)$/, (ext) => (ext === '.mjs' ? '.mts' : '.ts'))))
    .filter(exists);
}

/**
 * Answers, for a file, whether it reaches one of `targets` (absolute paths) through its relative
 * imports. Each file is read and parsed once per graph, however many test files share it.
 */
export function importGraph(
  targets: readonly string[],
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
  exists: (file: string) => boolean = existsSync,
): (file: string) => boolean {
  const wanted = new Set(targets.map((target) => path.resolve(target)));
  const edges = new Map<string, string[]>();
  const importsOf = (file: string): string[] => {
    let known = edges.get(file);
    if (known === undefined) {
      known = localImports(file, read(file), exists);
      edges.set(file, known);
    }
    return known;
  };
  return (file) => {
    const seen = new Set<string>();
    const queue = [path.resolve(file)];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (wanted.has(next)) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...importsOf(next));
    }
    return false;
  };
}
