import { ConfigError } from '../config.js';
import { HotWallet, HOT_WALLET_CHAINS } from './hot-wallet.js';
import { checkPassphrase, KeyFileError, newMnemonics, readKeyFile, writeKeyFile } from './key-file.js';
import { parseSignerPolicy } from './policy.js';
import { runSignerLoop } from './run.js';

export const SIGNER_USAGE = `usage: npm run signer [-- <command>]

  (none) or run             the payout loop: claims requested payouts, checks them against
                            the limits, signs, stores, broadcasts and confirms (docs/contract.md §11)
  init                      make SIGNER_KEY_FILE: new keys, sealed with SIGNER_PASSPHRASE
                            (never replaces an existing file)
  addresses [--json] [--network <name>]
                            the hot wallet's funding address per chain (as mainnet spells
                            them, or as a node on <name> does: regtest, test)
  check                     open the key file and print the limits the signer applies
                            (SIGNER_MAX_PAYOUT_<ASSET>, SIGNER_MAX_DAILY_<ASSET>,
                            SIGNER_APPROVAL_ABOVE_<ASSET>)

Environment: SIGNER_KEY_FILE (path), SIGNER_PASSPHRASE (at least 16 characters). Neither
belongs in the API's or the worker's environment. The loop also reads DATABASE_URL (the signer's
own role), CHAIN_<CHAIN>_RPC_URL (BTC, LTC, ETH, BSC), PAYOUT_BATCH_MAX, PAYOUT_BATCH_SECONDS,
PAYOUT_CONFIRMATIONS, SIGNER_FEE_RATE_MIN_<CHAIN>, SIGNER_FEE_RATE_MAX_<CHAIN>, SIGNER_FEE_MAX_JUMP,
SIGNER_FEE_MAX_BLOCK_LAG, SIGNER_FEE_MAX_AGE_SECONDS_<CHAIN>, SIGNER_WALLET_BIRTHDAY, and for EVM chains SIGNER_MIN_PRIORITY_FEE_GWEI_<CHAIN>,
SIGNER_MAX_FEE_GWEI_<CHAIN>, SIGNER_CHAIN_ID_<CHAIN> and EVM_REPLACE_AFTER_BLOCKS (README,
"The signer").
`;

interface Io {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** `npm run signer -- <command>`; returns the exit code (0 done, 1 failed, 2 usage). */
export async function runSigner(args: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined:
      case 'run':
        await runSignerLoop(io.env);
        return 0;
      case 'init':
        return await init(io);
      case 'addresses':
        return await addresses(rest, io);
      case 'check':
        return await check(io);
      default:
        io.stderr(SIGNER_USAGE);
        return 2;
    }
  } catch (error) {
    if (error instanceof KeyFileError || error instanceof ConfigError) {
      io.stderr(`signer: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function keyFile(env: NodeJS.ProcessEnv): string {
  const file = env.SIGNER_KEY_FILE;
  if (file === undefined || file === '') throw new KeyFileError('SIGNER_KEY_FILE is not set');
  return file;
}

async function init({ env, stdout }: Io): Promise<number> {
  const file = keyFile(env);
  await writeKeyFile(file, checkPassphrase(env.SIGNER_PASSPHRASE), newMnemonics());
  stdout(
    `wrote ${file} (mode 0600): new hot-wallet keys for ${Object.keys(HOT_WALLET_CHAINS).join(', ')}.\n` +
      'Back up the file and the passphrase apart from each other; without both the coins in the hot wallet are lost.\n' +
      'Fund the wallet at the addresses of `npm run signer -- addresses`.\n',
  );
  return 0;
}

async function addresses(args: readonly string[], { env, stdout, stderr }: Io): Promise<number> {
  let json = false;
  let network = 'main';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') json = true;
    else if (args[i] === '--network' && args[i + 1] !== undefined) network = args[++i] as string;
    else {
      stderr(`signer: unknown argument ${args[i]}\n${SIGNER_USAGE}`);
      return 2;
    }
  }
  const wallet = new HotWallet(await readKeyFile(keyFile(env), checkPassphrase(env.SIGNER_PASSPHRASE)));
  const rows = Object.keys(HOT_WALLET_CHAINS).map((chain) => ({ chain, address: wallet.fundingAddress(chain, network) }));
  if (json) stdout(`${JSON.stringify({ network, addresses: rows }, null, 2)}\n`);
  else stdout(rows.map((row) => `${row.chain.padEnd(5)} ${row.address}\n`).join(''));
  return 0;
}

async function check({ env, stdout }: Io): Promise<number> {
  const policy = parseSignerPolicy(env);
  await readKeyFile(keyFile(env), checkPassphrase(env.SIGNER_PASSPHRASE));
  const lines = [...policy].map(
    ([asset, limits]) =>
      `${asset.padEnd(10)} per payout ${limits.maxPayout.toFixed()}, per 24 h ${limits.maxDaily.toFixed()}, ` +
      `approval above ${limits.approvalAbove?.toFixed() ?? 'none'}\n`,
  );
  stdout(`key file opens.\n${lines.length === 0 ? 'no asset has limits: every payout would be refused (policy)\n' : lines.join('')}`);
  return 0;
}
