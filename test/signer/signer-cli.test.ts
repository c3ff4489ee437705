import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { nodeNetworkAddress } from '../../src/chains/nodes/node-network-address.js';
import { runSigner } from '../../src/signer/cli.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { writeKeyFile } from '../../src/signer/key-file.js';

/** The BIP-39 test mnemonic of BIP-84's and every wallet's test vectors. */
const ABANDON = `${'abandon '.repeat(11)}about`;
const PASSPHRASE = 'correct horse battery staple';

async function signer(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await runSigner(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

describe('npm run signer: init, addresses, check (issue 28)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'epa-signer-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the hot wallet derives on the standard paths: BIP-84 and BIP-44 test vectors', () => {
    const wallet = new HotWallet({ bitcoin: ABANDON, evm: ABANDON });
    // BIP-84's own test vector: m/84'/0'/0'/0/0 of the "abandon … about" mnemonic.
    assert.equal(wallet.fundingAddress('BTC'), 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    // m/44'/60'/0'/0/0 of the same mnemonic, as MetaMask and Ledger give it.
    assert.equal(wallet.fundingAddress('ETH'), '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    assert.equal(wallet.fundingAddress('BSC'), wallet.fundingAddress('ETH'));
    assert.match(wallet.fundingAddress('LTC'), /^ltc1q/);
    assert.match(wallet.fundingAddress('DOGE'), /^D/);
    assert.equal(wallet.fundingAddress('LTC', 'regtest'), nodeNetworkAddress('LTC', 'regtest', wallet.fundingAddress('LTC')));
  });

  it('init writes a key file once; addresses and check open it; the passphrase is required', async () => {
    const env = { SIGNER_KEY_FILE: path.join(dir, 'keys.json'), SIGNER_PASSPHRASE: PASSPHRASE };
    const made = await signer(['init'], env);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /Back up the file and the passphrase/);
    const again = await signer(['init'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /init never replaces a key file/);

    const listed = await signer(['addresses', '--json', '--network', 'regtest'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const { addresses } = JSON.parse(listed.stdout) as { addresses: Array<{ chain: string; address: string }> };
    assert.deepEqual(addresses.map((row) => row.chain), ['BTC', 'LTC', 'DOGE', 'ETH', 'BSC']);
    assert.match(addresses.find((row) => row.chain === 'LTC')?.address ?? '', /^rltc1q/);
    assert.match((await signer(['addresses'], env)).stdout, /^BTC {3}bc1q/m);

    const checked = await signer(['check'], { ...env, SIGNER_MAX_PAYOUT_LTC: '1', SIGNER_MAX_DAILY_LTC: '10' });
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(checked.stdout, /LTC +per payout 1, per 24 h 10, approval above none/);
    const unlimited = await signer(['check'], env);
    assert.match(unlimited.stdout, /no asset has limits: every payout would be refused/);
    const halfLimited = await signer(['check'], { ...env, SIGNER_MAX_PAYOUT_LTC: '1' });
    assert.equal(halfLimited.code, 1);
    assert.match(halfLimited.stderr, /SIGNER_MAX_DAILY_LTC: required/);

    const wrong = await signer(['addresses'], { ...env, SIGNER_PASSPHRASE: `${PASSPHRASE}?` });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /wrong SIGNER_PASSPHRASE/);
    assert.equal((await signer(['addresses'], { SIGNER_KEY_FILE: env.SIGNER_KEY_FILE })).code, 1);
    assert.equal((await signer(['bogus'], env)).code, 2);
    // No command runs the loop (docs/contract.md §11.1), which needs PostgreSQL before it opens any key.
    const loop = await signer([], env);
    assert.equal(loop.code, 1);
    assert.match(loop.stderr, /DATABASE_URL: the signer needs PostgreSQL/);
    assert.equal((await signer(['addresses', '--bogus'], env)).code, 2);
  });

  it('the same key file gives the same addresses (a restore from the file and passphrase)', async () => {
    const file = path.join(dir, 'restored.json');
    await writeKeyFile(file, PASSPHRASE, { bitcoin: ABANDON, evm: ABANDON });
    const listed = await signer(['addresses', '--json'], { SIGNER_KEY_FILE: file, SIGNER_PASSPHRASE: PASSPHRASE });
    const { addresses } = JSON.parse(listed.stdout) as { addresses: Array<{ chain: string; address: string }> };
    assert.equal(addresses.find((row) => row.chain === 'BTC')?.address, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
  });
});
