/**
 * `npm run build` (and the first step of `npm start`): src/ compiled to plain JavaScript in
 * dist/, so the server, the worker and the admin CLI run without tsx at run time. tsx costs the
 * server about 56 MB resident (on Node 20 its module hooks run in a thread with a V8 heap of
 * their own, plus the transformed sources: bench/README.md, "Issue 18 leftovers").
 *
 * Each file is compiled on its own (esbuild, as tsx itself does on the fly): dist/ mirrors src/
 * file for file, so every path a module finds relative to `import.meta.url` stays true
 * (`../../assets/icons/`, `./assets/cabinet.css`, `pglite-initdb.js` beside database.js), names
 * stay as written, and node_modules stay where they are (the output sits directly in the
 * repository root, beside src/, for those paths and for package resolution). Files of src/ that
 * are not TypeScript (the cabinet's CSS and browser script) are copied beside their module.
 *
 * The entry points a process runs (ENTRIES: the server, the worker, the signer, the CLIs) are
 * then written as bundles over their mirrored file: one file with src/ and most packages in it.
 * Node then loads one module instead of 900 to 1,600, which was half of a process's start-up CPU
 * (the signer's imports: 590 ms of CPU file by file, 130 ms bundled; the app's 1,020 ms and 370
 * ms). In a bundle each src/ module's `import.meta.url` is rewritten to its mirrored file's URL,
 * so the paths it reads beside itself stay those of the mirror. Packages that read files beside
 * their own code, load native or WebAssembly code, or are loaded only when tracing is on stay
 * outside (EXTERNAL), imported from node_modules as before.
 *
 * dist/ is updated in place: a file is written (to a temporary name, then renamed) only when its
 * content changed, and a file no build produces any more is removed. So a process starting from
 * dist/ while another `npm start` or `npm run worker` builds never sees a missing or half-written
 * file: two builds of the same sources write the same bytes.
 *
 * Usage: node scripts/build.mjs [--outdir <dir>]: dist (the default) or dist-<name>, directly in
 * the repository root (both gitignored); the tests build copies of their own there.
 *
 * Each build ends by writing `<outdir>/.build-stamp`: what scripts/built.mjs compares src/ with
 * to tell a current dist/ from a stale one without compiling.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { sourceStamp, STAMP_FILE } from './source-stamp.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } });
const outdir = path.resolve(ROOT, values.outdir);
// Directly in the root (paths relative to a module, package resolution), and a name of its own:
// the build removes whatever else it finds in there.
if (path.dirname(outdir) !== ROOT || !/^dist(-[\w.-]+)?$/.test(path.basename(outdir))) {
  console.error(`build: --outdir must be dist or dist-<name> directly in the repository root, not ${values.outdir}`);
  process.exit(2);
}

const started = performance.now();
// Taken before reading the sources: an edit made while this build runs leaves the stamp stale.
const stamp = sourceStamp(SRC);
const sources = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => statSync(path.join(SRC, file)).isFile())
  .sort();
const typescript = sources.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
// Read at run time beside their module (src/routes/cabinet/assets/); notes (.md) are not.
const copied = sources.filter((file) => !file.endsWith('.ts') && !file.endsWith('.md'));

/** What the mirror and the bundles are both built with. */
const COMMON = {
  absWorkingDir: ROOT,
  outdir,
  outbase: SRC,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Linked maps, without the sources: `NODE_OPTIONS=--enable-source-maps` gives TypeScript
  // lines in stack traces; without that flag Node never reads them.
  sourcemap: 'linked',
  sourcesContent: false,
  write: false,
  logLevel: 'warning',
};

const result = await build({ ...COMMON, entryPoints: typescript.map((file) => path.join(SRC, file)), bundle: false });

/** Output path (absolute) → bytes. */
const outputs = new Map(result.outputFiles.map((file) => [file.path, file.contents]));

/** The modules a process starts from (package.json's scripts; cluster workers re-run server.js). */
const ENTRIES = ['server.ts', 'worker/main.ts', 'signer/main.ts', 'cli/admin.ts', 'cli/migrate.ts'];
/**
 * Left out of the bundles: WebAssembly or native code (PGlite, argon2), files read beside the
 * package's own code (Swagger UI's assets, @fastify/swagger's and ioredis's package.json,
 * geoip-country's data, pino's transport thread), pg (its optional native binding, and
 * OpenTelemetry instruments it as a package), and tracing, imported only when it is on.
 */
const EXTERNAL = [
  '@electric-sql/pglite',
  '@node-rs/*',
  'pg',
  'pg-native',
  'swagger-ui-dist',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'ioredis',
  'geoip-country',
  'pino',
  'thread-stream',
  '@opentelemetry/*',
  '@fastify/otel',
];

/**
 * esbuild plugin: a src/ module's `import.meta.url` in a bundle is its mirrored file's URL. The
 * bundles built together sit at one depth below outdir (`depth`), so one text serves them all.
 */
function mirroredModuleUrl(depth) {
  return {
    name: 'mirrored-module-url',
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(SRC + path.sep)) return undefined;
        let contents = readFileSync(args.path, 'utf8');
        if (contents.includes('import.meta.url')) {
          const mirrored = path.relative(SRC, args.path).replace(/\.ts$/, '.js').split(path.sep).join('/');
          const relative = `${depth === 0 ? './' : '../'.repeat(depth)}${mirrored}`;
          contents = contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`);
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** The entries by how deep below outdir their bundle sits: one esbuild run for each depth. */
const entriesByDepth = new Map();
for (const entry of ENTRIES) {
  const depth = entry.split('/').length - 1;
  entriesByDepth.set(depth, [...(entriesByDepth.get(depth) ?? []), entry]);
}
for (const [depth, entries] of entriesByDepth) {
  const bundled = await build({
    ...COMMON,
    entryPoints: entries.map((entry) => path.join(SRC, entry)),
    bundle: true,
    external: EXTERNAL,
    // Bundled CommonJS packages call require(): one made for the bundle's own location.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
    plugins: [mirroredModuleUrl(depth)],
  });
  for (const file of bundled.outputFiles) outputs.set(file.path, file.contents);
}

for (const file of copied) outputs.set(path.join(outdir, file), readFileSync(path.join(SRC, file)));

let written = 0;
for (const [file, contents] of outputs) {
  let current;
  try {
    current = readFileSync(file);
  } catch {
    current = undefined;
  }
  if (current !== undefined && Buffer.compare(current, contents) === 0) continue;
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
  written++;
}

// What an earlier build left that this one does not produce (a source since removed or renamed).
let removed = 0;
function prune(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(full);
      try {
        rmdirSync(full);
      } catch {
        // not empty: still in use
      }
    } else if (!outputs.has(full) && !entry.name.endsWith('.tmp') && full !== path.join(outdir, STAMP_FILE)) {
      rmSync(full, { force: true });
      removed++;
    }
  }
}
prune(outdir);
writeFileSync(path.join(outdir, STAMP_FILE), stamp);

const ms = Math.round(performance.now() - started);
console.error(
  `build: ${typescript.length} modules and ${copied.length} assets into ${path.relative(ROOT, outdir) || '.'} ` +
    `(${written} written, ${removed} removed) in ${ms} ms`,
);
