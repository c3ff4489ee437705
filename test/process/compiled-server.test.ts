import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMPILED_DIR } from '../helpers/compiled-src.js';
import { buildServer, REPO_ROOT, startServer, type ApiServer } from '../helpers/process/app-server.js';
import { http } from '../helpers/process/http-client.js';
import { killAll } from '../helpers/process/managed-process.js';
import { createTestDatabase, databaseEnv, newDataDir, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * `npm start` runs the compiled server (scripts/build.mjs → dist/server.js, no tsx at run time).
 * Under `npm test` this uses the run's own build (TEST_COMPILED_DIR); run alone, it builds into a
 * directory of its own beside dist/ (as the files a module reads relative to itself need). It
 * starts the compiled server on this pass's engine and asks what only a correct build serves:
 * files read at run time relative to a module (the cabinet's assets, the coin icons), and the API.
 */
const engine = testEngine();

describe(`the compiled server (${engine})`, { timeout: 120_000 }, () => {
  const ownBuild = COMPILED_DIR === undefined;
  const outdir = COMPILED_DIR ?? mkdtempSync(path.join(REPO_ROOT, 'dist-test-'));
  const dataDir = newDataDir('epa-compiled-');
  let database: TestDatabase | undefined;
  let server: ApiServer;

  before(async () => {
    if (ownBuild) buildServer(outdir);
    let env: Record<string, string> = { SECRETS_KEY: randomBytes(32).toString('hex'), ADMIN_TOKEN: randomBytes(32).toString('base64url'), WORKER: 'off', LOG_LEVEL: 'warn' };
    if (engine === 'postgres') {
      database = await createTestDatabase('postgres');
      env = { ...env, ...databaseEnv(database) };
    }
    server = await startServer({ name: 'compiled', env, dataDir, compiledDir: outdir });
  });

  after(async () => {
    await killAll();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    if (ownBuild) rmSync(outdir, { recursive: true, force: true });
  });

  it('has the PGlite initdb child beside the database module, as database.ts runs it', () => {
    assert.ok(existsSync(path.join(outdir, 'db', 'database.js')));
    assert.ok(existsSync(path.join(outdir, 'db', 'pglite-initdb.js')));
  });

  it('the entry points are bundles: src/ inside each, no import of a mirrored module', () => {
    for (const entry of ['server.js', 'worker/main.js', 'signer/main.js', 'cli/admin.js', 'cli/migrate.js']) {
      const text = readFileSync(path.join(outdir, entry), 'utf8');
      assert.doesNotMatch(text, /\bfrom\s*["']\.\.?\//, `${entry} imports a file of its own: not a bundle`);
      // Its own location serves the bundle's require(); every other use names a mirrored module.
      const stray = text.replaceAll('createRequireForBundle(import.meta.url)', '').replace(/new URL\("[^"]+\.js", import\.meta\.url\)/g, '');
      assert.doesNotMatch(stray, /import\.meta\.url/, `${entry}: a module's import.meta.url left as the bundle's own`);
    }
  });

  it('starts and answers: the API, the cabinet assets and the coin icons', async () => {
    const currencies = await http(server.url, 'GET', '/api/v1/currencies');
    assert.equal(currencies.status, 200, currencies.text);
    assert.ok((JSON.parse(currencies.text) as unknown[]).length > 0);

    const css = await http(server.url, 'GET', '/cabinet/assets/cabinet.css');
    assert.equal(css.status, 200, css.text);
    assert.match(css.text, /\{/);

    // TON's icon is the project's own (assets/icons), BTC's comes from the cryptocurrency-icons package.
    // Read beside their module at start-up: the status page's and the console's files.
    for (const asset of ['/status/assets/status.css', '/status/assets/status.js', '/console/assets/console.css']) {
      const res = await http(server.url, 'GET', asset);
      assert.equal(res.status, 200, `${asset}: ${res.text.slice(0, 200)}`);
    }
    // The security key script: @simplewebauthn/browser's bundle, found from the bundled server, then the console's own file beside its module.
    const keys = await http(server.url, 'GET', '/console/assets/security-keys.js');
    assert.equal(keys.status, 200, keys.text.slice(0, 200));
    assert.match(keys.text, /SimpleWebAuthnBrowser/);
    assert.match(keys.text, /form\[data-webauthn\]/);

    for (const icon of ['ton.svg', 'btc.svg']) {
      const res = await http(server.url, 'GET', `/static/icons/${icon}`);
      assert.equal(res.status, 200, `${icon}: ${res.text.slice(0, 200)}`);
      assert.match(res.text, /<svg/);
    }

    await server.stop(10_000);
    assert.equal(server.running, false);
  });
});
