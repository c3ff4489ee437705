import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { buildApp } from '../../../src/app.js';
import type { App } from '../../../src/app-types.js';
import { loadConfig } from '../../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';

/**
 * The package as a partner gets it: `npm pack` (its prepack builds dist/), installed into an
 * empty project, and the README's example run there by plain `node` against a real server
 * (this process's, on port 0, its worker on a short interval so the sandbox order completes in
 * about a second). Offline: the package has no runtime dependency, so `npm install --offline`
 * of the tarball needs nothing from a registry or a cache. Its declarations are type-checked
 * from the installed copy, as a consumer's compiler sees them.
 *
 * The app is built here on an in-memory PGlite rather than through test-app.ts: this is about
 * the package, not the database engine, so it runs in the PGlite pass only (two passes would
 * also build dist/ twice at once).
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

/** The first ```js block after "## Example" in the package README. */
function readmeExample(): string {
  const readme = readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  const match = /## Example[\s\S]*?```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(match?.[1] !== undefined, 'the README has an Example section with a js block');
  return match[1];
}

describe('npm pack: the package installs into an empty project and its README example runs', () => {
  let app: App;
  let database: DatabaseHandle;
  let work: string;
  let baseUrl: string;
  let sandboxKey: string;
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'epa-sdk-pack-'));
    database = await openDatabase({ engine: 'pglite', dataDir: undefined });
    await migrateToLatest(database.db);
    const adminToken = randomBytes(32).toString('base64url');
    const config = loadConfig({
      DATA_DIR: work,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: adminToken,
      WORKER_INTERVAL_MS: '100',
      LOG_LEVEL: 'warn',
    });
    app = await buildApp({ config, database, logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    const admin = async (url: string, payload: object) => {
      const res = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${adminToken}` }, payload });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<Record<string, string>>();
    };
    const partner = await admin('/admin/v1/partners', { name: 'Pack test' });
    sandboxKey = (await admin(`/admin/v1/partners/${partner.id}/keys`, { sandbox: true })).api_key ?? '';
  });
  after(async () => {
    await app?.close();
    await database?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('packs, installs offline, type-checks and runs the example', async () => {
    const packed = await run(NPM, ['pack', '--json', '--pack-destination', work], { cwd: SDK_DIR, env: NPM_ENV });
    const [manifest] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(manifest !== undefined);
    const files = manifest.files.map((file) => file.path).sort();
    for (const file of ['README.md', 'dist/index.d.ts', 'dist/index.js', 'dist/generated/openapi.d.ts', 'package.json']) assert.ok(files.includes(file), `${file} is packed`);
    assert.deepEqual(files.filter((file) => !file.startsWith('dist/') && file !== 'README.md' && file !== 'package.json'), [], 'nothing but dist, the README and package.json');

    const project = path.join(work, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
    await run(NPM, ['install', '--no-package-lock', path.join(work, manifest.filename)], { cwd: project, env: NPM_ENV });
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/@exchange-partner-api/sdk/package.json'), 'utf8')) as { dependencies?: object };
    assert.equal(installed.dependencies, undefined, 'no runtime dependency');

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
        "// @ts-expect-error amounts are decimal strings, never numbers",
        "void client.rates({ coin_from: 'BTC', coin_to: 'ETH', amount: 0.1 });",
        'export { amount, order, limit };',
      ].join('\n'),
    );
    const program = ts.createProgram([path.join(project, 'check.ts')], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    assert.deepEqual(diagnostics, []);

    writeFileSync(path.join(project, 'example.mjs'), readmeExample());
    const example = await run(process.execPath, ['example.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH, PARTNER_API_URL: baseUrl, PARTNER_API_KEY: sandboxKey },
      timeout: 60_000,
    });
    const lines = example.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^send \d+(\.\d+)? BTC, receive 2(\.\d+)? ETH$/);
    assert.match(lines[1] ?? '', /^between \d+(\.\d+)? and \d+(\.\d+)? BTC$/);
    assert.match(lines[2] ?? '', /^EX-[A-Z0-9]{6}: send \d+(\.\d+)? BTC to \S+$/);
    assert.match(lines[3] ?? '', /^EX-[A-Z0-9]{6} completed, payout \S+$/);
    assert.match(lines[4] ?? '', /^EX-[A-Z0-9]{6} completed \d+(\.\d+)?$/);
  });
});
