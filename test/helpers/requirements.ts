import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';

/**
 * What a suite needs from outside Node.js, as a node:test `skip` option.
 *
 * Outside CI a suite whose tool is missing is skipped, with a reason that starts with
 * `MISSING_TOOL` and says how to get the tool; scripts/run-tests.ts lists those reasons again
 * in its closing summary. Under CI (`CI` set) nothing is skipped: the suite runs and fails,
 * because CI must have every tool (.ci/run installs them).
 */
export const MISSING_TOOL = 'missing tool:';

/** `false` (run) when `available` or under CI; otherwise the skip reason. */
export function skipUnless(available: boolean, tool: string, howToGetIt: string): string | false {
  if (available || process.env.CI !== undefined) return false;
  return `${MISSING_TOOL} ${tool}; ${howToGetIt} (under CI this fails instead of skipping)`;
}

/** Whether `command` is an executable file in a PATH directory. */
export function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => isExecutableFile(path.join(dir, command)));
}

export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The chain watcher tests' regtest node (test/helpers/litecoind-node.ts). */
export const LITECOIND_HINT = 'install Debian\'s `litecoind` package (`apt-get install -y litecoind`; .ci/run does this)';

export function litecoindSkip(): string | false {
  return skipUnless(onPath('litecoind'), 'litecoind (not on PATH)', LITECOIND_HINT);
}

/** A private redis-server the process tests start, stop and restart (test/helpers/process-harness.ts). */
export function redisServerSkip(): string | false {
  return skipUnless(onPath('redis-server'), 'redis-server (not on PATH)', 'install Debian\'s `redis-server` package (`apt-get install -y redis-server`)');
}

/** The systemd units in ops/, checked by `systemd-analyze verify` (test/ops/systemd-units.test.ts). */
export function systemdAnalyzeSkip(): string | false {
  return skipUnless(onPath('systemd-analyze'), 'systemd-analyze (not on PATH)', 'install Debian\'s `systemd` package (`apt-get install -y systemd`; .ci/run does this)');
}

/** The Prometheus alert rules in ops/prometheus, checked and unit-tested by `promtool` (test/ops/alert-rules.test.ts). */
export function promtoolSkip(): string | false {
  return skipUnless(onPath('promtool'), 'promtool (not on PATH)', 'install Debian\'s `prometheus` package (`apt-get install -y prometheus`; .ci/run does this)');
}

/** Where a Chromium executable is on PATH (`chromium`, Debian's package, or `chromium-browser`). */
export function chromiumExecutable(): string | undefined {
  for (const command of ['chromium', 'chromium-browser']) {
    const found = (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((dir) => dir !== '')
      .map((dir) => path.join(dir, command))
      .find(isExecutableFile);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The flags every headless Chromium of the tests and benches starts with: no sandbox (CI runs
 * as root), no GPU, and no traffic of its own (updates, sync, background fetches).
 */
export const CHROMIUM_ARGS: readonly string[] = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * A headless Chromium with CHROMIUM_ARGS, for the tests that drive a page. playwright-core is
 * loaded here on first use, so the many tests that only ask `chromiumSkip()` never load it.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: [...CHROMIUM_ARGS] });
}

/** The browser tests (docs page under the CSP), driven by playwright-core. */
export function chromiumSkip(): string | false {
  return skipUnless(chromiumExecutable() !== undefined, 'chromium (not on PATH)', 'install Debian\'s `chromium` package (`apt-get install -y chromium`)');
}
