// Type-aware lint: floating promises and unsafe any are the bugs a service cannot afford.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Money is exact (src/domain/money.ts): decimal.js's own constructor keeps 20 significant digits
// and rounds half up, so only the money module may import it. ESLint does not merge the options of
// one rule across config objects: any other `no-restricted-imports` entry must include this path.
const bareDecimal = {
  name: 'decimal.js',
  message: "Import Decimal from src/domain/money.ts: the exact constructor every money computation uses.",
};
const sqlTag = { name: 'kysely', importNames: ['sql'], message: 'SQL belongs in src/db/repositories.' };

/**
 * Imports point down (docs/architecture.md, "Layers"): the domain is pure and imports nothing outside itself;
 * nothing below the plugins and routes imports them; the database layer imports no use case.
 * One entry per set of files, each carrying every restricted path of those files (the money
 * and SQL rules), since only the last matching entry's options hold.
 */
const pure = 'The domain is pure: it imports nothing outside src/domain.';
const layers = [
  { files: ['src/domain/*.ts'], ignores: ['src/domain/money.ts'], paths: [bareDecimal, sqlTag], outside: '^\\.\\./', message: pure },
  { files: ['src/domain/money.ts'], paths: [sqlTag], outside: '^\\.\\./', message: pure },
  { files: ['src/domain/*/*.ts'], paths: [bareDecimal, sqlTag], outside: '^\\.\\./\\.\\./', message: pure },
  {
    files: ['src/db/**/*.ts'],
    paths: [bareDecimal],
    outside: '^(\\.\\./)+(services|worker|pricing|chains|plugins|routes|cli)/',
    message: 'src/db sits below the use cases: it imports the domain and shared modules only.',
  },
  {
    files: ['src/infrastructure/*.ts'],
    paths: [bareDecimal, sqlTag],
    outside: '^(\\.\\./)+(services|worker|plugins|routes|cli)/',
    message: 'Infrastructure sits under the use cases: it imports the database layer and the domain, never a service.',
  },
  {
    files: ['src/{services,worker,pricing,chains}/**/*.ts'],
    paths: [bareDecimal, sqlTag],
    outside: '^(\\.\\./)+(plugins|routes|cli)/',
    message: 'Plugins and routes sit on top: what every layer needs lives low (src/metrics.ts, src/domain).',
  },
].map(({ files, ignores = [], paths, outside, message }) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { paths, patterns: [{ regex: outside, message }] }] },
}));


export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'bench/results/', 'packages/*/dist/', 'packages/sdk/src/generated/', 'dist/', 'dist-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // Fastify handlers and hooks are async by contract even when they await nothing.
      '@typescript-eslint/require-await': 'off',
      // node:test's describe/it return promises the runner itself tracks.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
    },
  },
  {
    ignores: ['src/domain/money.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [bareDecimal] }] },
  },
  // All SQL sits in src/db (repositories take `db` or a transaction first): elsewhere in src,
  // building a query or importing kysely's `sql` tag is an error.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**', 'src/domain/money.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [bareDecimal, sqlTag] },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(selectFrom|updateTable|insertInto|deleteFrom|replaceInto|mergeInto|selectNoFrom)$/]',
          message: 'Queries belong in src/db/repositories: call a repository function (db or transaction first).',
        },
      ],
    },
  },
  ...layers,
  // Routes are thin (docs/architecture.md, "Layers"): a route validates, calls one service method
  // and writes the answer, so it imports no repository (a row type is fine: it is what a service
  // returns). Every route follows it: the list of those that still read repositories is empty.
  {
    files: ['src/routes/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+db/repositories/',
              allowTypeImports: true,
              message: 'Routes are thin: call a service method (src/services), which reads and writes through the repositories.',
            },
          ],
        },
      ],
    },
  },
  // The SDK's runtime code runs on Node 20+, in browsers and on edge runtimes: it
  // imports its own files and its one dependency only (no Node built-in, `node:` or bare), and
  // uses no Node global; fetch, Web Crypto, TextEncoder, atob/btoa are what it has.
  {
    files: ['packages/sdk/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [bareDecimal],
          patterns: [
            {
              regex: '^(?!\\.{1,2}/|lossless-json$)',
              message: "The SDK imports its own files and lossless-json only: it runs in browsers and edge runtimes, and a new runtime dependency is a decision (docs/adr/0022-partner-sdk.md).",
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'module', '__dirname', '__filename', 'global', 'setImmediate'].map((name) => ({
          name,
          message: 'A Node global: the SDK runs in browsers and edge runtimes too (fetch and Web Crypto only).',
        })),
      ],
    },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  // Plain JavaScript run by node itself (the build, before dist/ exists; the bench's GC preload).
  {
    files: ['scripts/*.mjs', 'bench/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly', performance: 'readonly', setTimeout: 'readonly' },
    },
  },
  // The cabinet's, the console's and the status page's browser scripts: plain JavaScript served as is, with the browser's globals.
  {
    files: ['src/routes/cabinet/assets/*.js', 'src/routes/console/assets/*.js', 'src/routes/status-page/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'script',
      parserOptions: { projectService: false },
      globals: { document: 'readonly', navigator: 'readonly', Element: 'readonly', window: 'readonly', fetch: 'readonly', EventSource: 'readonly', DOMParser: 'readonly', setInterval: 'readonly' },
    },
  },
);
