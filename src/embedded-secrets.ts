import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseKey32, parseSecretsKey, type Config } from './config.js';

/** File names inside DATA_DIR. The CLI reads the same files to find the running API. */
export const ADMIN_TOKEN_FILE = 'admin-token';
export const SECRETS_KEY_FILE = 'secrets-key';
export const API_URL_FILE = 'api-url';
export const QUOTE_SIGNING_KEY_FILE = 'quote-signing-key';

export interface EmbeddedSecrets {
  config: Config;
  /** Where the admin token lives, when it came from a file (printed at start-up). */
  adminTokenPath: string | undefined;
}

/**
 * On the embedded default, a missing SECRETS_KEY or ADMIN_TOKEN is generated once into DATA_DIR
 * (mode 0600) and reused on every later start, so keys stay decryptable across restarts. So is
 * QUOTE_SIGNING_KEY (fixed quotes issued before a restart stay valid); with DATABASE_URL it is
 * derived from SECRETS_KEY instead when unset, which all processes share (fixed-quote-tokens.ts).
 */
export async function withEmbeddedSecrets(config: Config): Promise<EmbeddedSecrets> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  let adminTokenPath: string | undefined;
  let { secretsKey, adminToken, quoteSigningKey } = config;
  if (secretsKey === undefined) {
    const file = path.join(config.dataDir, SECRETS_KEY_FILE);
    secretsKey = parseSecretsKey(await readOrCreate(file, () => randomBytes(32).toString('hex')));
  }
  if (adminToken === undefined) {
    adminTokenPath = path.join(config.dataDir, ADMIN_TOKEN_FILE);
    adminToken = await readOrCreate(adminTokenPath, () => randomBytes(32).toString('base64url'));
  }
  if (quoteSigningKey === undefined && config.databaseUrl === undefined) {
    const file = path.join(config.dataDir, QUOTE_SIGNING_KEY_FILE);
    quoteSigningKey = parseKey32('QUOTE_SIGNING_KEY', await readOrCreate(file, () => randomBytes(32).toString('hex')));
  }
  return { config: Object.freeze({ ...config, secretsKey, adminToken, quoteSigningKey }), adminTokenPath };
}

async function readOrCreate(file: string, generate: () => string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const value = generate();
  // 'wx' fails if another process created the file in between; then that one's value wins.
  try {
    await writeFile(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFile(file, 'utf8')).trim();
  }
}
