import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

/**
 * The signer's key file (docs/contract.md §11.1): the only place hot-wallet keys exist at rest.
 * One BIP-39 mnemonic per chain family (a family shares one seed: the Bitcoin family's chains
 * derive by their own coin type), sealed with a key derived from SIGNER_PASSPHRASE.
 *
 * - scrypt (N 2^17, r 8, p 1: about 128 MiB and a few hundred ms, once per start) makes guessing
 *   the passphrase of a stolen file slow; AES-256-GCM seals and authenticates the mnemonics, so a
 *   wrong passphrase or an altered file is refused, never read as other keys. The header (format,
 *   KDF and its parameters) is the GCM's additional data: it cannot be changed to weaken the KDF.
 * - Mnemonics rather than raw seeds: what an operator can write on paper and restore in any
 *   wallet (BIP-84 / BIP-44 paths: src/signer/hot-wallet.ts).
 * - Written once, mode 0600, never over an existing file (`init` refuses: losing a funded seed
 *   by a second `init` is the mistake this guards against).
 */

/** The chain families with a seed of their own. */
export const KEY_FAMILIES = ['bitcoin', 'evm'] as const;
export type KeyFamily = (typeof KEY_FAMILIES)[number];

export type FamilyMnemonics = Readonly<Record<KeyFamily, string>>;

/** Fewer characters than this is refused: the file's safety is the passphrase's. */
export const MIN_PASSPHRASE_LENGTH = 16;

const FORMAT = 'exchange-signer-keys/1' as const;
const SCRYPT = { N: 2 ** 17, r: 8, p: 1 } as const;

interface KeyFileJson {
  format: typeof FORMAT;
  kdf: { name: 'scrypt'; salt: string; N: number; r: number; p: number };
  cipher: { name: 'aes-256-gcm'; iv: string; tag: string };
  /** base64 of the sealed JSON {"bitcoin": mnemonic, "evm": mnemonic}. */
  sealed: string;
}

/** Why a key file could not be made or read, in words for the operator (never a secret). */
export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

export function checkPassphrase(passphrase: string | undefined): string {
  if (passphrase === undefined || passphrase === '') throw new KeyFileError('SIGNER_PASSPHRASE is not set');
  if ([...passphrase].length < MIN_PASSPHRASE_LENGTH) {
    throw new KeyFileError(`SIGNER_PASSPHRASE must be at least ${MIN_PASSPHRASE_LENGTH} characters`);
  }
  return passphrase;
}

/** New mnemonics (256 bits each) for every family. */
export function newMnemonics(): FamilyMnemonics {
  return Object.fromEntries(KEY_FAMILIES.map((family) => [family, generateMnemonic(wordlist, 256)])) as unknown as FamilyMnemonics;
}

/** Seals `mnemonics` into `file` (created, never replaced), readable by its owner only. */
/** scrypt's N: 2^17 unless told; the lowest a signer reads (2^14) suits a test that starts signers by the dozen. */
export async function writeKeyFile(file: string, passphrase: string, mnemonics: FamilyMnemonics, cost: { N: number } = SCRYPT): Promise<void> {
  checkPassphrase(passphrase);
  if (!acceptedN(cost.N)) throw new KeyFileError(`scrypt N must be a power of two from 2^14 to 2^20, got ${cost.N}`);
  const params = { ...SCRYPT, N: cost.N };
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const header = { format: FORMAT, kdf: { name: 'scrypt' as const, salt: salt.toString('base64'), ...params } };
  const key = await deriveKey(passphrase, salt, params);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(JSON.stringify(header)));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(mnemonics), 'utf8'), cipher.final()]);
  const json: KeyFileJson = { ...header, cipher: { name: 'aes-256-gcm', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') }, sealed: sealed.toString('base64') };
  let handle;
  try {
    // 'wx': fails when the file exists, so an existing wallet is never overwritten.
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyFileError(`${file} exists: init never replaces a key file (move it away first if you really mean to)`);
    throw new KeyFileError(`cannot create ${file}: ${(error as Error).message}`);
  }
  try {
    await handle.writeFile(`${JSON.stringify(json, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Opens `file` with `passphrase`: the mnemonics, or a KeyFileError that names what is wrong. */
export async function readKeyFile(file: string, passphrase: string): Promise<FamilyMnemonics> {
  checkPassphrase(passphrase);
  let json: KeyFileJson;
  try {
    json = JSON.parse(await readFile(file, 'utf8')) as KeyFileJson;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new KeyFileError(code === 'ENOENT' ? `${file} does not exist: make one with \`npm run signer -- init\`` : `${file} is not a signer key file`);
  }
  if (json?.format !== FORMAT || json.kdf?.name !== 'scrypt' || json.cipher?.name !== 'aes-256-gcm') throw new KeyFileError(`${file} is not a signer key file (${FORMAT})`);
  const { salt, N, r, p } = json.kdf;
  // The parameters are authenticated below; these bounds keep a crafted file from asking for
  // more memory than a signer has before the check can fail.
  if (!acceptedN(N) || r !== 8 || p !== 1) throw new KeyFileError(`${file} has KDF parameters this signer does not accept`);
  const key = await deriveKey(passphrase, Buffer.from(salt, 'base64'), { N, r, p });
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(json.cipher.iv, 'base64'));
  decipher.setAAD(Buffer.from(JSON.stringify({ format: json.format, kdf: json.kdf })));
  decipher.setAuthTag(Buffer.from(json.cipher.tag, 'base64'));
  let plain: string;
  try {
    plain = Buffer.concat([decipher.update(Buffer.from(json.sealed, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new KeyFileError(`${file}: wrong SIGNER_PASSPHRASE, or the file was altered`);
  }
  const mnemonics = JSON.parse(plain) as Record<string, unknown>;
  for (const family of KEY_FAMILIES) {
    const words = mnemonics[family];
    if (typeof words !== 'string' || !validateMnemonic(words, wordlist)) throw new KeyFileError(`${file} holds no valid ${family} mnemonic`);
  }
  return mnemonics as unknown as FamilyMnemonics;
}

/** The bounds keep a crafted file from asking for more memory than a signer has; scrypt needs a power of two. */
function acceptedN(N: number): boolean {
  return Number.isInteger(N) && N >= 2 ** 14 && N <= 2 ** 20 && (N & (N - 1)) === 0;
}

function deriveKey(passphrase: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem above 128 × N × r bytes, which scrypt needs.
    scrypt(passphrase.normalize('NFKC'), salt, 32, { ...params, maxmem: 256 * params.N * params.r }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
