import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { ADMIN_TOKEN_FILE, QUOTE_SIGNING_KEY_FILE, SECRETS_KEY_FILE, withEmbeddedSecrets } from '../src/embedded-secrets.js';

const HEX_KEY = 'ab'.repeat(32);
const TOKEN = 'A'.repeat(32);

/** Asserts loadConfig(env) throws a ConfigError about `variable`, with the name in the message. */
function rejects(env: Record<string, string>, variable: string): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
      assert.equal(error.variable, variable);
      assert.equal(error.name, 'ConfigError');
      assert.ok(error.message.startsWith(`${variable}: `), error.message);
      return true;
    },
  );
}

describe('loadConfig: defaults', () => {
  it('an empty environment gives the embedded defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.secretsKey, undefined);
    assert.equal(config.adminToken, undefined);
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.ok(path.isAbsolute(config.dataDir));
    assert.equal(config.shortIdPrefix, 'EX');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.trustProxy, false);
    assert.equal(config.cacheRefreshMs, 5000);
    assert.ok(Object.isFrozen(config));
  });

  it('blank values count as unset', () => {
    const config = loadConfig({ PORT: '  ', SHORT_ID_PREFIX: '', DATA_DIR: ' ' });
    assert.equal(config.port, 3000);
    assert.equal(config.shortIdPrefix, 'EX');
    assert.equal(config.dataDir, path.resolve('./data'));
  });

  it('accepts valid explicit values', () => {
    const config = loadConfig({
      PORT: '0',
      DATA_DIR: 'some/dir',
      DATABASE_URL: 'postgresql://u:p@db:5432/x',
      REDIS_URL: 'rediss://cache:6380',
      SECRETS_KEY: HEX_KEY,
      ADMIN_TOKEN: TOKEN,
      TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
      LOG_LEVEL: 'warn',
      SHORT_ID_PREFIX: 'PX9',
    });
    assert.equal(config.port, 0);
    assert.equal(config.dataDir, path.resolve('some/dir'));
    assert.equal(config.databaseUrl, 'postgresql://u:p@db:5432/x');
    assert.equal(config.redisUrl, 'rediss://cache:6380');
    assert.deepEqual(config.secretsKey, Buffer.from(HEX_KEY, 'hex'));
    assert.equal(config.adminToken, TOKEN);
    assert.deepEqual(config.trustProxy, ['10.0.0.0/8', '192.168.1.1']);
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.shortIdPrefix, 'PX9');
    assert.equal(loadConfig({ PORT: '65535' }).port, 65535);
  });

  it('SECRETS_KEY may be base64url of 32 bytes', () => {
    const raw = Buffer.alloc(32, 7);
    assert.deepEqual(loadConfig({ SECRETS_KEY: raw.toString('base64url') }).secretsKey, raw);
  });

  it('WEBHOOK_ALLOW_PRIVATE: true embedded (local receivers work), false with DATABASE_URL (production), and as set', () => {
    const production = { DATABASE_URL: 'postgres://db/x', SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN };
    assert.deepEqual(loadConfig({}).webhooks, { allowPrivate: true, timeoutMs: 10_000, concurrency: 32, perEndpoint: 8 });
    assert.deepEqual(loadConfig(production).webhooks, { allowPrivate: false, timeoutMs: 10_000, concurrency: 32, perEndpoint: 8 });
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhooks.allowPrivate, false);
    assert.equal(loadConfig({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks.allowPrivate, true);
    for (const value of ['yes', '1', 'TRUE']) rejects({ WEBHOOK_ALLOW_PRIVATE: value }, 'WEBHOOK_ALLOW_PRIVATE');
  });

  it('DATABASE_READ_URL: a postgres URL beside DATABASE_URL, unset by default', () => {
    const production = { DATABASE_URL: 'postgres://db/x', SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN };
    assert.equal(loadConfig(production).databaseReadUrl, undefined);
    assert.equal(loadConfig({ ...production, DATABASE_READ_URL: 'postgresql://replica/x' }).databaseReadUrl, 'postgresql://replica/x');
    rejects({ DATABASE_READ_URL: 'postgres://replica/x' }, 'DATABASE_READ_URL');
    rejects({ ...production, DATABASE_READ_URL: 'mysql://replica/x' }, 'DATABASE_READ_URL');
  });

  it('TRUST_PROXY: true, false and a hop count', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  });
});

describe('loadConfig: each bad variable is named', () => {
  it('PORT not an integer or out of range', () => {
    for (const value of ['abc', '3000.5', '-1', '1e3', '0x10', '65536', '99999']) rejects({ PORT: value }, 'PORT');
  });

  it('DATABASE_URL not a postgres URL', () => {
    for (const value of ['mysql://x/y', 'http://db', 'db:5432', 'postgres:/x']) {
      rejects({ DATABASE_URL: value, SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN }, 'DATABASE_URL');
    }
  });

  it("the signer's passphrase and key file are refused in the API's environment (docs/contract.md §11.1)", () => {
    rejects({ SIGNER_PASSPHRASE: 'a passphrase long enough' }, 'SIGNER_PASSPHRASE');
    rejects({ SIGNER_KEY_FILE: '/somewhere/keys.json' }, 'SIGNER_KEY_FILE');
    rejects({ DATABASE_URL: 'postgres://db/x', SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN, SIGNER_PASSPHRASE: 'x' }, 'SIGNER_PASSPHRASE');
  });

  it('HOT_WALLET_MIN_<ASSET> / HOT_WALLET_MAX_<ASSET>: decimals, the maximum not below the minimum (docs/contract.md §11.7)', () => {
    assert.deepEqual(loadConfig({ HOT_WALLET_MIN_LTC: '5', HOT_WALLET_MAX_LTC: '1000.50', HOT_WALLET_MAX_USDT_ERC20: '250000' }).hotWalletThresholds, {
      LTC: { min: '5', max: '1000.5' },
      USDT_ERC20: { max: '250000' },
    });
    rejects({ HOT_WALLET_MIN_LTC: 'lots' }, 'HOT_WALLET_MIN_LTC');
    rejects({ HOT_WALLET_MAX_ETH: '-1' }, 'HOT_WALLET_MAX_ETH');
    rejects({ HOT_WALLET_MIN_ETH: '10', HOT_WALLET_MAX_ETH: '5' }, 'HOT_WALLET_MAX_ETH');
  });

  it('PAYOUT_SIGNER_CHAINS: only chains the signer signs on (DOGE has keys but no payer: its payouts would wait for ever)', () => {
    const production = { DATABASE_URL: 'postgres://db/x', SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN };
    assert.deepEqual(loadConfig({ ...production, PAYOUT_SIGNER_CHAINS: 'ltc, ETH,BTC,BSC' }).payoutSignerChains, ['LTC', 'ETH', 'BTC', 'BSC']);
    rejects({ ...production, PAYOUT_SIGNER_CHAINS: 'LTC,DOGE' }, 'PAYOUT_SIGNER_CHAINS');
    rejects({ ...production, PAYOUT_SIGNER_CHAINS: 'TRON' }, 'PAYOUT_SIGNER_CHAINS');
    rejects({ PAYOUT_SIGNER_CHAINS: 'LTC' }, 'PAYOUT_SIGNER_CHAINS');
  });

  it('REDIS_URL not a redis URL', () => {
    for (const value of ['http://cache', 'localhost:6379', 'memcached://x']) rejects({ REDIS_URL: value }, 'REDIS_URL');
  });

  it('SECRETS_KEY of the wrong length or alphabet', () => {
    for (const value of ['ab'.repeat(31), 'ab'.repeat(33), 'zz'.repeat(32), 'short', Buffer.alloc(16).toString('base64')]) {
      rejects({ SECRETS_KEY: value }, 'SECRETS_KEY');
    }
  });

  it('ADMIN_TOKEN too short or with odd characters', () => {
    rejects({ ADMIN_TOKEN: 'A'.repeat(31) }, 'ADMIN_TOKEN');
    rejects({ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN');
    rejects({ ADMIN_TOKEN: `${'A'.repeat(32)}!` }, 'ADMIN_TOKEN');
    rejects({ ADMIN_TOKEN: 'A'.repeat(257) }, 'ADMIN_TOKEN');
  });

  it('TRUST_PROXY junk', () => {
    for (const value of ['yes', 'not-an-ip', '10.0.0.0/33', '10.0.0.1,junk', '::1/129']) {
      rejects({ TRUST_PROXY: value }, 'TRUST_PROXY');
    }
  });

  it('LOG_LEVEL not a pino level', () => {
    for (const value of ['verbose', 'INFO', 'warning']) rejects({ LOG_LEVEL: value }, 'LOG_LEVEL');
  });

  it('SHORT_ID_PREFIX lowercase, too long or with symbols', () => {
    for (const value of ['ex', 'Ex', 'ABCDEFGHI', 'E-X', 'E X']) rejects({ SHORT_ID_PREFIX: value }, 'SHORT_ID_PREFIX');
  });

  it('HOST junk', () => {
    rejects({ HOST: 'bad host!' }, 'HOST');
  });

  it('the operator surface: one listener by default; ADMIN_PORT moves it, on ADMIN_HOST (default 127.0.0.1)', () => {
    assert.deepEqual(loadConfig({}).operator, { listener: undefined, metricsToken: undefined, workerMetrics: undefined });
    assert.deepEqual(loadConfig({ ADMIN_PORT: '9100' }).operator.listener, { host: '127.0.0.1', port: 9100 });
    assert.deepEqual(loadConfig({ ADMIN_PORT: '0', ADMIN_HOST: '10.0.0.2' }).operator.listener, { host: '10.0.0.2', port: 0 });
    assert.equal(loadConfig({ METRICS_TOKEN: TOKEN }).operator.metricsToken, TOKEN);
  });

  it("the worker's metrics listener: none by default; WORKER_METRICS_PORT on WORKER_METRICS_HOST (default 127.0.0.1)", () => {
    assert.deepEqual(loadConfig({ WORKER_METRICS_PORT: '9200' }).operator.workerMetrics, { host: '127.0.0.1', port: 9200 });
    assert.deepEqual(loadConfig({ WORKER_METRICS_PORT: '0', WORKER_METRICS_HOST: '10.0.0.3' }).operator.workerMetrics, { host: '10.0.0.3', port: 0 });
    rejects({ WORKER_METRICS_HOST: '10.0.0.3' }, 'WORKER_METRICS_HOST');
    rejects({ WORKER_METRICS_PORT: '9200', WORKER_METRICS_HOST: 'bad host!' }, 'WORKER_METRICS_HOST');
    rejects({ WORKER_METRICS_PORT: '70000' }, 'WORKER_METRICS_PORT');
  });

  it('ADMIN_PORT junk or equal to PORT, ADMIN_HOST alone or junk, METRICS_TOKEN short', () => {
    rejects({ ADMIN_PORT: 'x' }, 'ADMIN_PORT');
    rejects({ ADMIN_PORT: '70000' }, 'ADMIN_PORT');
    rejects({ ADMIN_PORT: '3000' }, 'ADMIN_PORT');
    rejects({ ADMIN_PORT: '8080', PORT: '8080' }, 'ADMIN_PORT');
    rejects({ ADMIN_HOST: '127.0.0.1' }, 'ADMIN_HOST');
    rejects({ ADMIN_PORT: '9100', ADMIN_HOST: 'bad host!' }, 'ADMIN_HOST');
    rejects({ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN');
  });

  it('CACHE_REFRESH_MS out of range', () => {
    rejects({ CACHE_REFRESH_MS: '10' }, 'CACHE_REFRESH_MS');
    rejects({ CACHE_REFRESH_MS: 'fast' }, 'CACHE_REFRESH_MS');
  });

  it('QUOTE_SIGNING_KEY and QUOTE_SIGNING_KEY_PREVIOUS: 32 bytes, hex or base64url', () => {
    const config = loadConfig({ QUOTE_SIGNING_KEY: HEX_KEY, QUOTE_SIGNING_KEY_PREVIOUS: Buffer.from(HEX_KEY, 'hex').toString('base64url') });
    assert.deepEqual(config.quoteSigningKey, Buffer.from(HEX_KEY, 'hex'));
    assert.deepEqual(config.quoteSigningKeyPrevious, Buffer.from(HEX_KEY, 'hex'));
    assert.equal(loadConfig({}).quoteSigningKey, undefined);
    for (const variable of ['QUOTE_SIGNING_KEY', 'QUOTE_SIGNING_KEY_PREVIOUS']) {
      rejects({ [variable]: 'ab'.repeat(31) }, variable);
      rejects({ [variable]: 'not a key' }, variable);
    }
  });

  it('SECRETS_KEY and ADMIN_TOKEN are required with DATABASE_URL', () => {
    const url = 'postgres://db/x';
    rejects({ DATABASE_URL: url, ADMIN_TOKEN: TOKEN }, 'SECRETS_KEY');
    rejects({ DATABASE_URL: url, SECRETS_KEY: HEX_KEY }, 'ADMIN_TOKEN');
    rejects({ DATABASE_URL: url }, 'SECRETS_KEY');
    const config = loadConfig({ DATABASE_URL: url, SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN });
    assert.equal(config.databaseUrl, url);
  });
});

describe('withEmbeddedSecrets', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const tempDataDir = (): string => {
    const root = mkdtempSync(path.join(tmpdir(), 'epa-config-'));
    dirs.push(root);
    // A directory that does not exist yet: withEmbeddedSecrets creates it.
    return path.join(root, 'data');
  };

  it('generates admin-token and secrets-key (mode 0600) and reuses them on the next start', async () => {
    const dataDir = tempDataDir();
    const first = await withEmbeddedSecrets(loadConfig({ DATA_DIR: dataDir }));
    const tokenFile = path.join(dataDir, ADMIN_TOKEN_FILE);
    const keyFile = path.join(dataDir, SECRETS_KEY_FILE);
    assert.equal(first.adminTokenPath, tokenFile);
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);

    const token = first.config.adminToken;
    assert.ok(token !== undefined);
    assert.equal(readFileSync(tokenFile, 'utf8').trim(), token);
    // The generated token passes the same rule as a configured one.
    assert.equal(loadConfig({ ADMIN_TOKEN: token }).adminToken, token);
    const key = first.config.secretsKey;
    assert.ok(key !== undefined);
    assert.equal(key.length, 32);
    assert.deepEqual(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex'), key);
    assert.ok(Object.isFrozen(first.config));

    const second = await withEmbeddedSecrets(loadConfig({ DATA_DIR: dataDir }));
    assert.equal(second.config.adminToken, token);
    assert.deepEqual(second.config.secretsKey, key);
    assert.equal(second.adminTokenPath, tokenFile);
  });

  it('generates quote-signing-key (mode 0600) and reuses it; a configured one is kept; none is written with DATABASE_URL', async () => {
    const dataDir = tempDataDir();
    const first = await withEmbeddedSecrets(loadConfig({ DATA_DIR: dataDir }));
    const keyFile = path.join(dataDir, QUOTE_SIGNING_KEY_FILE);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const key = first.config.quoteSigningKey;
    assert.ok(key !== undefined);
    assert.equal(key.length, 32);
    assert.deepEqual(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex'), key);
    assert.notDeepEqual(key, first.config.secretsKey);
    assert.deepEqual((await withEmbeddedSecrets(loadConfig({ DATA_DIR: dataDir }))).config.quoteSigningKey, key);
    const configured = await withEmbeddedSecrets(loadConfig({ DATA_DIR: dataDir, QUOTE_SIGNING_KEY: HEX_KEY }));
    assert.deepEqual(configured.config.quoteSigningKey, Buffer.from(HEX_KEY, 'hex'));

    // Several processes share PostgreSQL: each would generate its own; the key is derived from SECRETS_KEY instead.
    const shared = tempDataDir();
    const production = await withEmbeddedSecrets(
      loadConfig({ DATA_DIR: shared, DATABASE_URL: 'postgres://db/x', SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN }),
    );
    assert.equal(production.config.quoteSigningKey, undefined);
    assert.throws(() => statSync(path.join(shared, QUOTE_SIGNING_KEY_FILE)), { code: 'ENOENT' });
  });

  it('keeps configured secrets and writes no files for them', async () => {
    const dataDir = tempDataDir();
    const result = await withEmbeddedSecrets(loadConfig({ DATA_DIR: dataDir, SECRETS_KEY: HEX_KEY, ADMIN_TOKEN: TOKEN }));
    assert.equal(result.config.adminToken, TOKEN);
    assert.deepEqual(result.config.secretsKey, Buffer.from(HEX_KEY, 'hex'));
    assert.equal(result.adminTokenPath, undefined);
    assert.throws(() => statSync(path.join(dataDir, ADMIN_TOKEN_FILE)), { code: 'ENOENT' });
    assert.throws(() => statSync(path.join(dataDir, SECRETS_KEY_FILE)), { code: 'ENOENT' });
  });
});
