import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { ENVIRONMENT, variableSchema, type Variable } from '../src/config/schema.js';
import { withConfigurationTables } from '../src/config/table.js';

/**
 * The configuration schema is the one description of the environment: the README's table is
 * generated from it, and the defaults the service runs with are the schema's.
 */
describe('the configuration schema', () => {
  it("the README's configuration table is the schema's (npm run docs:config writes it)", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const wanted = withConfigurationTables(readme).split('\n');
    const lines = readme.split('\n');
    // The first line that differs, not the whole README, when they do.
    const at = wanted.findIndex((line, index) => line !== lines[index]);
    assert.equal(at === -1 && wanted.length === lines.length ? undefined : `README.md line ${at + 1}: ${lines[at] ?? '(none)'}\nthe schema's: ${wanted[at] ?? '(none)'}`, undefined, 'run npm run docs:config');
  });

  it('every variable has a description, and every integer its bounds with its default inside them', () => {
    for (const name of Object.keys(ENVIRONMENT.properties) as Variable[]) {
      const schema = variableSchema(name);
      assert.ok((schema.description ?? '').length > 0, `${name} has no description`);
      if (schema.type !== 'integer') continue;
      assert.ok(schema.minimum !== undefined && schema.maximum !== undefined, `${name} has no bounds`);
      if (typeof schema.default === 'number') assert.ok(schema.default >= schema.minimum && schema.default <= schema.maximum, `${name}: default outside its bounds`);
    }
  });

  it('an empty environment runs on the schema defaults, and the worker tunables are read from it', () => {
    const config = loadConfig({});
    const numbers: [Variable, number][] = [
      ['PORT', config.port],
      ['WORKER_LEASE_MS', config.lifecycle.leaseMs],
      ['WORKER_MAX_ATTEMPTS', config.lifecycle.maxAttempts],
      ['WORKER_BATCH_SIZE', config.lifecycle.batchSize],
      ['WORKER_BACKOFF_MS', config.lifecycle.baseBackoffMs],
      ['WEBHOOK_CONCURRENCY', config.webhooks.concurrency],
      ['WEBHOOK_PER_ENDPOINT', config.webhooks.perEndpoint],
      ['WEB_CONCURRENCY', config.webConcurrency],
      ['MAIL_LEASE_MS', config.mail.leaseMs],
    ];
    for (const [name, value] of numbers) assert.equal(value, variableSchema(name).default, name);
    const set = loadConfig({ WORKER_LEASE_MS: '45000', WORKER_MAX_ATTEMPTS: '7', WEBHOOK_CONCURRENCY: '4', WEBHOOK_PER_ENDPOINT: '2' });
    assert.deepEqual([set.lifecycle.leaseMs, set.lifecycle.maxAttempts, set.webhooks.concurrency, set.webhooks.perEndpoint], [45_000, 7, 4, 2]);
    assert.throws(() => loadConfig({ WEBHOOK_CONCURRENCY: '0' }), /WEBHOOK_CONCURRENCY: must be between 1 and 1000/);
  });

  it('a URL variable names itself and the schemes it takes', () => {
    const problems: [Record<string, string>, string][] = [
      [{ SMTP_URL: 'http://mail.example' }, 'SMTP_URL: must be an smtp:// or smtps:// URL'],
      [{ SMTP_URL: 'not a url' }, 'SMTP_URL: must be an smtp:// or smtps:// URL'],
      [{ PUBLIC_URL: 'ftp://exchange.example' }, 'PUBLIC_URL: must be an http:// or https:// URL'],
      [{ PUBLIC_URL: 'exchange.example' }, 'PUBLIC_URL: must be an absolute http:// or https:// URL'],
      [{ CHAIN_LTC_RPC_URL: 'ws://127.0.0.1:9332' }, 'CHAIN_LTC_RPC_URL: must be an http:// or https:// URL'],
    ];
    for (const [env, message] of problems) assert.throws(() => loadConfig(env), { name: 'ConfigError', message });
  });
});
