import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { npmStartNodeOptions, REPO_ROOT } from '../helpers/process/app-server.js';
import { systemdAnalyzeSkip } from '../helpers/requirements.js';

/**
 * The systemd units in ops/ (issue 36.11): each passes `systemd-analyze verify` with nothing to
 * say, and `systemd-analyze security` rates it well hardened; each restarts always, runs as a
 * user of its own, gives the graceful stop more time than SHUTDOWN_DELAY_MS and
 * SHUTDOWN_TIMEOUT_MS take, and starts what npm start and npm run worker start.
 *
 * verify checks that ExecStart's program exists, so the units are checked as copies in a
 * temporary directory with node's path on this machine for /usr/bin/node; the committed units
 * name no path of any one machine but the install's own.
 */
const UNITS = {
  'exchange-api.service': { entry: 'dist/server.js', stopBudgetMs: (c: ReturnType<typeof loadConfig>) => c.shutdownDelayMs + c.shutdownTimeoutMs },
  'exchange-worker.service': { entry: 'dist/worker/main.js', stopBudgetMs: (c: ReturnType<typeof loadConfig>) => c.shutdownTimeoutMs },
  // The signer's pass may wait on node calls of up to 60 s (src/signer/bitcoin/node-wallet.ts).
  'exchange-signer.service': { entry: 'dist/signer/main.js', stopBudgetMs: () => 60_000 },
} as const;
/** `systemd-analyze security`'s exposure, 0 (best) to 10, times ten; 2.5 is "OK" with margin. */
const MAX_EXPOSURE = 25;

const unitText = (name: string): string => readFileSync(path.join(REPO_ROOT, 'ops', name), 'utf8');
const settings = (text: string, key: string): string[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));

describe('systemd units in ops/', () => {
  it('restart always, a non-root user, hardening, a stop budget above the graceful stop, the same start as npm', () => {
    const defaults = loadConfig({});
    for (const [name, unit] of Object.entries(UNITS)) {
      const text = unitText(name);
      assert.deepEqual(settings(text, 'Restart'), ['always'], name);
      const user = settings(text, 'User');
      assert.equal(user.length, 1, name);
      assert.notEqual(user[0], 'root', name);
      for (const hardening of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes', 'CapabilityBoundingSet=']) {
        assert.ok(text.split('\n').includes(hardening), `${name} lacks ${hardening}`);
      }
      const stopSeconds = Number(settings(text, 'TimeoutStopSec')[0]);
      assert.ok(stopSeconds * 1000 >= unit.stopBudgetMs(defaults) + 5000, `${name}: TimeoutStopSec=${stopSeconds} leaves the graceful stop too little`);
      const [execStart] = settings(text, 'ExecStart');
      const expected = name === 'exchange-api.service' ? `/usr/bin/node ${npmStartNodeOptions()} ${unit.entry}` : `/usr/bin/node ${unit.entry}`;
      assert.equal(execStart, expected, name);
      assert.doesNotMatch(text, /\/work\/|\/home\/|\/root\//, `${name} names a path of one machine`);
    }
  });

  describe('systemd-analyze', { skip: systemdAnalyzeSkip() }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'epa-units-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const install = (name: string): string => {
      const file = path.join(dir, name);
      writeFileSync(file, unitText(name).replaceAll('/usr/bin/node', process.execPath));
      return file;
    };

    it('verify: no error and no warning for either unit', () => {
      const files = Object.keys(UNITS).map(install);
      const result = spawnSync('systemd-analyze', ['verify', ...files], { encoding: 'utf8', cwd: dir });
      assert.equal(result.error, undefined, String(result.error));
      assert.equal(result.status, 0, `${result.stderr}${result.stdout}`);
      // Unknown keys and the like are warnings with exit code 0: none is allowed either.
      const said = `${result.stderr}${result.stdout}`.split('\n').filter((line) => Object.keys(UNITS).some((unit) => line.includes(unit)));
      assert.deepEqual(said, []);
    });

    it('verify fails a unit it should (the check is live)', () => {
      const file = path.join(dir, 'broken.service');
      writeFileSync(file, '[Service]\nExecStart=/nonexistent/node dist/server.js\n');
      const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', cwd: dir });
      assert.notEqual(result.status, 0);
    });

    it(`security: exposure at most ${MAX_EXPOSURE / 10} for each unit`, () => {
      for (const name of Object.keys(UNITS)) {
        const file = install(name);
        const result = spawnSync('systemd-analyze', ['security', '--offline=yes', `--threshold=${MAX_EXPOSURE}`, '--no-pager', file], { encoding: 'utf8', cwd: dir });
        const overall = /Overall exposure level for \S+: ([\d.]+)/.exec(result.stdout)?.[1];
        assert.equal(result.status, 0, `${name}: exposure ${overall ?? '?'}\n${result.stderr}`);
        assert.ok(overall !== undefined && Number(overall) <= MAX_EXPOSURE / 10, `${name}: ${overall}`);
      }
    });
  });
});
