import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { HDKey } from '@scure/bip32';
import { ConfigError, type Config } from '../config.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import { validateAddress } from '../domain/addresses/index.js';
import { demoAddress } from '../domain/deposit-addresses/demo-addresses.js';
import { createDemoXpubs, isHdFormat, parseAccountXpub, type HdFormat } from '../domain/deposit-addresses/index.js';

/** File in DATA_DIR holding the demo wallet's PUBLIC keys (there are no private keys anywhere). */
export const DEMO_WALLET_FILE = 'demo-wallet.json';

interface DemoWalletFile {
  warning: string;
  xpubs: Record<HdFormat, string>;
  /** Memo-chain addresses by chain. */
  addresses: Record<string, string>;
}

/** What each chain hands out deposits from; a chain absent here cannot take orders. */
export interface DepositWallets {
  /** Account key of an `hd` chain. */
  readonly hd: ReadonlyMap<string, { format: HdFormat; account: HDKey }>;
  /** The shared address of a `memo` chain. */
  readonly memo: ReadonlyMap<string, string>;
  /** True when any chain uses the generated demo wallet. */
  readonly demo: boolean;
}

/**
 * Production takes DEPOSIT_XPUB_<CHAIN> / DEPOSIT_ADDRESS_<CHAIN>; a bad value stops the start
 * naming the variable. On the embedded default a chain without configuration uses a demo wallet
 * created once in DATA_DIR (public keys only: demo deposits are unspendable by design).
 */
export async function loadDepositWallets(config: Config, catalog: readonly CurrencyRow[]): Promise<DepositWallets> {
  const embedded = config.databaseUrl === undefined;
  let demoFile: DemoWalletFile | undefined;
  const demoWallet = async (): Promise<DemoWalletFile> => (demoFile ??= await readOrCreateDemoWallet(config.dataDir, catalog));

  const hd = new Map<string, { format: HdFormat; account: HDKey }>();
  const memo = new Map<string, string>();
  let demo = false;
  const chains = new Map(catalog.map((row) => [row.chain, row]));
  for (const [chain, row] of chains) {
    if (row.deposit_strategy === 'hd' && isHdFormat(row.address_format)) {
      const variable = `DEPOSIT_XPUB_${chain}`;
      let xpub = config.depositXpubs[chain];
      if (xpub === undefined && embedded) {
        xpub = (await demoWallet()).xpubs[row.address_format];
        demo = true;
      }
      if (xpub === undefined) continue;
      try {
        hd.set(chain, { format: row.address_format, account: parseAccountXpub(row.address_format, xpub) });
      } catch (error) {
        throw new ConfigError(variable, error instanceof Error ? error.message : 'not a usable account xpub');
      }
    } else if (row.deposit_strategy === 'memo') {
      let address = config.depositAddresses[chain];
      if (address === undefined && embedded) {
        address = (await demoWallet()).addresses[chain];
        demo = true;
      }
      if (address === undefined) continue;
      const check = validateAddress(row.address_format, address);
      if (!check.ok) throw new ConfigError(`DEPOSIT_ADDRESS_${chain}`, check.reason);
      memo.set(chain, address);
    }
  }
  return { hd, memo, demo };
}

async function readOrCreateDemoWallet(dataDir: string, catalog: readonly CurrencyRow[]): Promise<DemoWalletFile> {
  const file = path.join(dataDir, DEMO_WALLET_FILE);
  let wallet: DemoWalletFile | undefined;
  try {
    wallet = JSON.parse(await readFile(file, 'utf8')) as DemoWalletFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const missing = catalog.filter((row) => row.deposit_strategy === 'memo' && wallet?.addresses[row.chain] === undefined);
  if (wallet !== undefined && missing.length === 0) return wallet;
  wallet ??= {
    warning: 'DEMO WALLET: nobody holds these keys; anything sent to its addresses is lost. Configure DEPOSIT_XPUB_<CHAIN> for real use.',
    xpubs: createDemoXpubs(),
    addresses: {},
  };
  for (const row of missing) wallet.addresses[row.chain] = demoAddress(row.address_format);
  await writeFile(file, `${JSON.stringify(wallet, null, 2)}\n`, { mode: 0o600 });
  return wallet;
}
