// test-engines: one (scripts/run-tests.ts): the server is only something to call; the package and bundle are what is tested.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { startServerForChildProcess, type ChildProcessServer } from './sdk-server.js';

/**
 * The package as a partner gets it: built by its own build (tsconfig.build.json, as prepack
 * runs it), `npm pack`ed, installed into an empty project, and the README's example run there
 * by plain `node` against a real server (this process's, on port 0). Its declarations are
 * type-checked from the installed copy, as a consumer's compiler sees them.
 *
 * What it costs, and why it is cut so (CPU is shared by the whole suite):
 * - One compile: the build runs in this process with the TypeScript this test loads anyway for
 *   the consumer check, then `npm pack --ignore-scripts` packs that dist/ (prepack would compile
 *   it a second time in a child `tsc`). The test checks that prepack is that very build.
 * - The build and the consumer check share TypeScript's parsed lib files (lib.dom.d.ts is most
 *   of a compile's parsing), and the check skips checking those default libs
 *   (skipDefaultLibCheck): the package's own declarations are still checked in full.
 * - The install is offline, without scripts, audit or fund: the tarball, and its runtime
 *   dependencies from this workspace's node_modules (each one named in its package.json, so a
 *   new dependency nobody declared fails the offline install). Neither needs an install script.
 * - The app comes from sdk-server.ts (test-app.ts: a copy of the run's template database when
 *   there is one, not a new PGlite migrated from scratch); its worker runs only while the
 *   example does. This file names no database helper itself, so it runs in the PGlite pass only:
 *   it is about the package, not the engine (two passes would also build dist/ twice at once).
 */
/** A child process to its end: its output, or the error with it. */
const run = (file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeout?: number }): Promise<{ stdout: string }> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { ...options, timeout: options.timeout ?? 300_000 }, (error, stdout, stderr) => {
      if (error === null) resolve({ stdout });
      else reject(new Error(`${file} ${args.join(' ')}: ${error.message}\n${stderr}`));
    });
  });
const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// npm's own warnings and prompts stay out of the way; nothing may reach a registry.
const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_offline: 'true' };
const NPM_QUIET = ['--offline', '--ignore-scripts', '--no-audit', '--no-fund'];

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}
const readPackageJson = (dir: string): PackageJson => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;

/** The first ```js block after "## Example" in the package README. */
function readmeExample(): string {
  const readme = readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  const match = /## Example[\s\S]*?```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(match?.[1] !== undefined, 'the README has an Example section with a js block');
  return match[1];
}

/** A package's folder as Node resolves it from `from`: the nearest node_modules holding it. */
function installedPackage(name: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    assert.notEqual(path.dirname(dir), dir, `${name} is installed in the workspace`);
  }
}

/** TypeScript's own lib files (lib.dom.d.ts, lib.es2022.*.d.ts), parsed once for both programs. */
const LIB_FILE = /[\\/]typescript[\\/]lib[\\/]lib\.[^\\/]+\.d\.ts$/;
const parsedLibs = new Map<string, ts.SourceFile | undefined>();
function sharingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (!LIB_FILE.test(fileName)) return getSourceFile(fileName, languageVersion, ...rest);
    const key = `${fileName}|${typeof languageVersion === 'object' ? `${languageVersion.languageVersion}|${languageVersion.impliedNodeFormat}` : languageVersion}`;
    if (!parsedLibs.has(key)) parsedLibs.set(key, getSourceFile(fileName, languageVersion, ...rest));
    return parsedLibs.get(key);
  };
  return host;
}
const messages = (diagnostics: readonly ts.Diagnostic[]): string[] =>
  diagnostics.map((d) => `${d.file === undefined ? '' : `${path.basename(d.file.fileName)}: `}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);

/** dist/ as `tsc -p tsconfig.build.json` writes it (the package's build and prepack scripts). */
function buildPackage(): void {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(SDK_DIR, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
  });
  assert.ok(config !== undefined);
  assert.deepEqual(messages(config.errors), []);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host: sharingHost(config.options) });
  const emitted = program.emit();
  assert.deepEqual(messages([...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]), [], 'the package builds');
}

describe('npm pack: the package installs into an empty project and its README example runs', () => {
  let server: ChildProcessServer;
  let work: string;
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'epa-sdk-pack-'));
    server = await startServerForChildProcess();
  });
  after(async () => {
    await server?.t.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('builds, packs, installs offline, type-checks and runs the example', async () => {
    const sdkPackage = readPackageJson(SDK_DIR);
    assert.equal(sdkPackage.scripts?.prepack, 'tsc -p tsconfig.build.json', 'prepack is the build this test runs');
    assert.equal(sdkPackage.scripts?.build, sdkPackage.scripts?.prepack);
    buildPackage();

    const packed = await run(NPM, ['pack', '--json', '--pack-destination', work, ...NPM_QUIET], { cwd: SDK_DIR, env: NPM_ENV });
    const [manifest] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(manifest !== undefined);
    const files = manifest.files.map((file) => file.path).sort();
    for (const file of ['README.md', 'dist/index.d.ts', 'dist/index.js', 'dist/generated/openapi.d.ts', 'package.json']) assert.ok(files.includes(file), `${file} is packed`);
    assert.deepEqual(files.filter((file) => !file.startsWith('dist/') && file !== 'README.md' && file !== 'package.json'), [], 'nothing but dist, the README and package.json');

    const project = path.join(work, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
    const dependencies = Object.keys(sdkPackage.dependencies ?? {});
    assert.deepEqual(dependencies, ['lossless-json'], 'one runtime dependency: exact JSON numbers');
    const local = dependencies.map((name) => installedPackage(name, SDK_DIR));
    await run(NPM, ['install', '--no-package-lock', ...NPM_QUIET, path.join(work, manifest.filename), ...local], { cwd: project, env: NPM_ENV });
    const installed = readPackageJson(path.join(project, 'node_modules/@exchange-partner-api/sdk'));
    assert.deepEqual(installed.dependencies, sdkPackage.dependencies);
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(installed.scripts?.[script], undefined, `no ${script} script: --ignore-scripts skips nothing`);

    // A consumer's compiler, browser typings only (no Node types): the declarations stand alone.
    writeFileSync(
      path.join(project, 'check.ts'),
      [
        "import { PartnerClient, AmountOutOfRangeError, type Order, type RateQuote } from '@exchange-partner-api/sdk';",
        "const client = new PartnerClient({ baseUrl: 'https://exchange.example/api/v1', apiKey: 'pk_test_x.y', signing: 'body' });",
        "const quote: Promise<RateQuote> = client.rates({ coin_from: 'BTC', coin_to: 'ETH', amount: '0.1' });",
        'const amount: Promise<string> = quote.then((q) => q.amount_to);',
        "const order: Promise<Order> = client.getOrder('EX-AAAAAA');",
        'const limit = (error: AmountOutOfRangeError): string | undefined => error.min_amount_to;',
        "const stats = client.stats({ from: '2026-01-01T00:00:00Z' }).then((s) => [s.commission.usd.length, s.orders_by_status.completed + 1]);",
        "// @ts-expect-error amounts are decimal strings, never numbers",
        "void client.rates({ coin_from: 'BTC', coin_to: 'ETH', amount: 0.1 });",
        'export { amount, order, limit, stats };',
      ].join('\n'),
    );
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
      skipDefaultLibCheck: true,
    };
    const program = ts.createProgram({ rootNames: [path.join(project, 'check.ts')], options, host: sharingHost(options) });
    assert.ok(
      program.getSourceFiles().some((file) => file.fileName.endsWith('node_modules/@exchange-partner-api/sdk/dist/index.d.ts')),
      'the declarations checked are the installed ones',
    );
    assert.deepEqual(messages(ts.getPreEmitDiagnostics(program)), []);

    writeFileSync(path.join(project, 'example.mjs'), readmeExample());
    const example = await server.workWhile(
      run(process.execPath, ['example.mjs'], {
        cwd: project,
        env: { PATH: process.env.PATH, PARTNER_API_URL: server.baseUrl, PARTNER_API_KEY: server.sandboxKey },
        timeout: 60_000,
      }),
    );
    const lines = example.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^send \d+(\.\d+)? BTC, receive 2(\.\d+)? ETH$/);
    assert.match(lines[1] ?? '', /^between \d+(\.\d+)? and \d+(\.\d+)? BTC$/);
    assert.match(lines[2] ?? '', /^EX-[A-Z0-9]{6}: send \d+(\.\d+)? BTC to \S+$/);
    assert.match(lines[3] ?? '', /^EX-[A-Z0-9]{6} completed, payout \S+$/);
    assert.match(lines[4] ?? '', /^EX-[A-Z0-9]{6} completed \d+(\.\d+)?$/);
  });
});
