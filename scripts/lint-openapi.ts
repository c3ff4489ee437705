/**
 * `npm run lint:openapi` (part of `npm run lint`, so CI runs it): Redocly CLI's recommended rules
 * (redocly.yaml) over the partner OpenAPI document as the server serves it
 * (scripts/openapi-document.ts). An error fails; warnings are printed. Redocly's telemetry and
 * update check are off: the lint must not depend on the network.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedPartnerDocument } from './openapi-document.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
const dir = mkdtempSync(path.join(tmpdir(), 'epa-openapi-lint-'));
const file = path.join(dir, 'partner-openapi.json');
try {
  writeFileSync(file, JSON.stringify(await servedPartnerDocument(), null, 2));
  const result = spawnSync(process.execPath, [cli, 'lint', '--config', path.join(root, 'redocly.yaml'), file], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
