import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Issue 27.9: every js snippet of the SDK's README type-checks against the SDK under every
 * strict flag TypeScript has (exactOptionalPropertyTypes, noUncheckedIndexedAccess,
 * noPropertyAccessFromIndexSignature, …), as a partner with the strictest tsconfig gets it:
 * `apiKey: process.env.PARTNER_API_KEY`, `quote_id: fixed.quote_id`, `event.data.order` after
 * narrowing on `type`, `error.order.status` of a WaitForStatusError. Checked as JavaScript
 * (checkJs), as the README writes them, with Node's and the DOM's types.
 */
const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const STRICTEST: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  allowJs: true,
  checkJs: true,
  noEmit: true,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  allowUnreachableCode: false,
  allowUnusedLabels: false,
  isolatedModules: true,
  skipLibCheck: true,
  paths: { '@exchange-partner-api/sdk': [path.join(SDK_DIR, 'src/index.ts')] },
};

function snippets(): string[] {
  const readme = readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  return [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

function diagnosticsOf(files: string[], options: ts.CompilerOptions): string[] {
  const program = ts.createProgram({ rootNames: files, options });
  const mine = new Set(files.map((file) => path.resolve(file)));
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && mine.has(path.resolve(d.file.fileName)))
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${path.basename(d.file!.fileName)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

describe("the SDK README's snippets under every strict flag", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'epa-sdk-readme-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('type-check with no error', () => {
    const blocks = snippets();
    assert.ok(blocks.length >= 2, 'the README has its example and its webhook handler');
    const files = blocks.map((source, index) => {
      const file = path.join(dir, `snippet-${index + 1}.mjs`);
      writeFileSync(file, source);
      return file;
    });
    assert.deepEqual(diagnosticsOf(files, STRICTEST), []);
  });

  it('the check is live: a snippet the strict flags refuse is reported', () => {
    const file = path.join(dir, 'refused.mjs');
    writeFileSync(
      file,
      [
        "import { verifyWebhook } from '@exchange-partner-api/sdk';",
        '/** @param {Request} request */',
        'export async function handler(request) {',
        // A ping carries no order: reading it without narrowing on `type` is refused.
        "  const event = await verifyWebhook('whsec_x', request.headers, await request.text());",
        '  return event.data.order.status;',
        '}',
      ].join('\n'),
    );
    const found = diagnosticsOf([file], STRICTEST);
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(found[0] ?? '', /order/);
  });
});
