import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { KeyFileError, newMnemonics, readKeyFile, writeKeyFile } from '../../src/signer/key-file.js';

const PASSPHRASE = 'correct horse battery staple';

describe('signer key file (issue 28, docs/contract.md §11.1)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'epa-signer-keys-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const fresh = () => path.join(dir, `keys-${++n}.json`);

  it('seals new mnemonics that open again with the passphrase, owner-readable only', async () => {
    const file = fresh();
    const mnemonics = newMnemonics();
    for (const words of Object.values(mnemonics)) {
      assert.ok(validateMnemonic(words, wordlist));
      assert.equal(words.split(' ').length, 24);
    }
    assert.notEqual(mnemonics.bitcoin, mnemonics.evm);
    await writeKeyFile(file, PASSPHRASE, mnemonics);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    for (const word of mnemonics.bitcoin.split(' ').slice(0, 3)) assert.ok(!text.includes(`${word} `), 'no word of a mnemonic in the file');
    assert.deepEqual(await readKeyFile(file, PASSPHRASE), mnemonics);
  });

  it('a wrong passphrase, a short one, or an altered file is refused with a KeyFileError', async () => {
    const file = fresh();
    await writeKeyFile(file, PASSPHRASE, newMnemonics());
    await assert.rejects(readKeyFile(file, `${PASSPHRASE}!`), (error: unknown) => error instanceof KeyFileError && /wrong SIGNER_PASSPHRASE/.test(error.message));
    await assert.rejects(readKeyFile(file, 'short'), (error: unknown) => error instanceof KeyFileError && /at least 16/.test(error.message));
    await assert.rejects(writeKeyFile(fresh(), 'short', newMnemonics()), KeyFileError);

    const json = JSON.parse(readFileSync(file, 'utf8')) as { sealed: string; kdf: { N: number } };
    const flipped = Buffer.from(json.sealed, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    const altered = fresh();
    writeFileSync(altered, JSON.stringify({ ...json, sealed: flipped.toString('base64') }));
    await assert.rejects(readKeyFile(altered, PASSPHRASE), /wrong SIGNER_PASSPHRASE, or the file was altered/);
    // The KDF's parameters are authenticated: a cheaper N does not open the file.
    const weakened = fresh();
    writeFileSync(weakened, JSON.stringify({ ...json, kdf: { ...json.kdf, N: 2 ** 14 } }));
    await assert.rejects(readKeyFile(weakened, PASSPHRASE), KeyFileError);
    const greedy = fresh();
    writeFileSync(greedy, JSON.stringify({ ...json, kdf: { ...json.kdf, N: 2 ** 30 } }));
    await assert.rejects(readKeyFile(greedy, PASSPHRASE), /KDF parameters/);
  });

  it('a cheaper scrypt cost within the bounds a signer reads opens again (a test\'s key file); outside them it is refused', async () => {
    const file = fresh();
    const mnemonics = newMnemonics();
    await writeKeyFile(file, PASSPHRASE, mnemonics, { N: 2 ** 14 });
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { kdf: { N: number } }).kdf.N, 2 ** 14);
    assert.deepEqual(await readKeyFile(file, PASSPHRASE), mnemonics);
    for (const N of [2 ** 13, 2 ** 21, 3 * 2 ** 14]) await assert.rejects(writeKeyFile(fresh(), PASSPHRASE, mnemonics, { N }), /power of two from 2\^14 to 2\^20/);
  });

  it('never replaces an existing file; a missing or foreign file is named', async () => {
    const file = fresh();
    await writeKeyFile(file, PASSPHRASE, newMnemonics());
    const before = readFileSync(file, 'utf8');
    await assert.rejects(writeKeyFile(file, PASSPHRASE, newMnemonics()), /exists: init never replaces a key file/);
    assert.equal(readFileSync(file, 'utf8'), before);
    await assert.rejects(readKeyFile(path.join(dir, 'none.json'), PASSPHRASE), /does not exist: make one with `npm run signer -- init`/);
    const foreign = fresh();
    writeFileSync(foreign, '{"hello": "world"}');
    await assert.rejects(readKeyFile(foreign, PASSPHRASE), /is not a signer key file/);
  });
});
