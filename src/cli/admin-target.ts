import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { adminCliEnvironment, type Env } from '../config.js';
import { ADMIN_TOKEN_FILE, API_URL_FILE } from '../embedded-secrets.js';
import { CliError, UsageError } from './admin-errors.js';

/** Where the operator API is and how to authenticate, with where each came from (for messages). */
export interface AdminTarget {
  /** Base URL without a trailing slash; API paths are appended to it. */
  url: string;
  urlSource: string;
  token: string;
  tokenSource: string;
}

/**
 * URL: --url > ADMIN_API_URL > DATA_DIR/api-url (written by the server when it listens)
 * > http://127.0.0.1:$ADMIN_PORT when ADMIN_PORT is set (the operator listener: the public port
 * answers 404 for the operator API there) > http://127.0.0.1:$PORT. Token: --token > ADMIN_TOKEN > DATA_DIR/admin-token. This is the
 * server's own lookup order, so on the embedded default the CLI needs no configuration.
 */
export async function resolveTarget(
  given: { url: string | undefined; token: string | undefined },
  env: Env,
): Promise<AdminTarget> {
  const { dataDir, adminApiUrl, adminPort, port, adminToken } = adminCliEnvironment(env);
  const urlFile = path.join(dataDir, API_URL_FILE);
  const tokenFile = path.join(dataDir, ADMIN_TOKEN_FILE);

  let url: { value: string; source: string };
  const flagUrl = nonEmpty(given.url);
  const envUrl = adminApiUrl;
  const fileUrl = (flagUrl ?? envUrl) === undefined ? await readIfPresent(urlFile) : undefined;
  if (flagUrl !== undefined) url = { value: flagUrl, source: '--url' };
  else if (envUrl !== undefined) url = { value: envUrl, source: 'ADMIN_API_URL' };
  else if (fileUrl !== undefined) url = { value: fileUrl, source: urlFile };
  else if (adminPort !== undefined) url = { value: `http://127.0.0.1:${adminPort}`, source: `ADMIN_PORT, as ${urlFile} is missing` };
  else url = { value: `http://127.0.0.1:${port}`, source: `PORT or its default, as ${urlFile} is missing` };

  const flagToken = nonEmpty(given.token);
  const envToken = adminToken;
  let token: { value: string; source: string } | undefined;
  if (flagToken !== undefined) token = { value: flagToken, source: '--token' };
  else if (envToken !== undefined) token = { value: envToken, source: 'ADMIN_TOKEN' };
  else {
    const fileToken = await readIfPresent(tokenFile);
    if (fileToken !== undefined) token = { value: fileToken, source: tokenFile };
  }
  if (token === undefined) {
    throw new CliError(
      `no admin token: pass --token, set ADMIN_TOKEN, or start the server once (npm start) so it writes ${tokenFile}`,
    );
  }
  return { url: baseUrl(url.value, url.source), urlSource: url.source, token: token.value, tokenSource: token.source };
}

function baseUrl(raw: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new UsageError(`the API URL from ${source} is not a URL: "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`the API URL from ${source} must start with http:// or https://`);
  }
  // A path is kept (an API mounted under a prefix behind a proxy); query and fragment are not.
  return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return nonEmpty(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}
