import pino from 'pino';
import { openDatabase } from '../db/database.js';
import { fromBaseUnits } from '../domain/money.js';
import { loggerOptions } from '../logger.js';
import { BitcoinPayer } from './bitcoin/bitcoin-payer.js';
import type { ChainPayer } from './chain-payer.js';
import type { EvmFees } from './evm/evm-fees.js';
import { EvmPayer } from './evm/evm-payer.js';
import { HotWallet } from './hot-wallet.js';
import { checkPassphrase, readKeyFile } from './key-file.js';
import { PayoutLoop } from './payout-loop.js';
import { loadSignerConfig, type SignerConfig } from './signer-config.js';

type Logger = Pick<pino.Logger, 'info' | 'warn' | 'error'>;

/** The payers of every chain the configuration names a node for. */
export async function createPayers(config: SignerConfig, wallet: HotWallet, logger: Logger): Promise<ChainPayer[]> {
  const payers: ChainPayer[] = [];
  for (const [chain, rpcUrl] of Object.entries(config.rpcUrls)) {
    const evmFees = config.evmFees[chain];
    if (evmFees !== undefined) {
      payers.push(
        await EvmPayer.create(chain, wallet.account(chain), rpcUrl, {
          fees: evmFees,
          ...(config.chainIds[chain] === undefined ? {} : { expectedChainId: config.chainIds[chain] }),
          replaceAfterBlocks: config.replaceAfterBlocks,
          ...(config.feeGuards[chain] === undefined ? {} : { guard: config.feeGuards[chain] }),
          onBoundedFee: (estimate, used, bounds = []) =>
            used === undefined
              ? logger.warn({ chain, estimate: gweiFees(estimate) }, 'EVM replacement fees would pass SIGNER_MAX_FEE_GWEI: the transaction waits as it is')
              : logger.warn({ chain, estimate: gweiFees(estimate), used: gweiFees(used), bounds }, 'EVM fee estimate bounded (SIGNER_MIN_PRIORITY_FEE_GWEI, SIGNER_MAX_FEE_GWEI, SIGNER_FEE_MAX_JUMP): the bound is used'),
        }),
      );
      continue;
    }
    const fees = config.fees[chain];
    if (fees === undefined) continue;
    payers.push(
      await BitcoinPayer.create(chain, wallet.account(chain), rpcUrl, {
        fees: { ...fees, ...(config.feeGuards[chain] === undefined ? {} : { guard: config.feeGuards[chain] }) },
        batchMax: config.batchMax,
        walletBirthday: config.walletBirthday,
        onBoundedFee: (estimate, used, bounds) =>
          logger.warn(
            { chain, estimate: estimate?.toFixed() ?? null, used: used.toFixed(), bounds },
            'fee rate estimate missing or bounded (SIGNER_FEE_RATE_MIN/MAX, SIGNER_FEE_MAX_JUMP): the bound is used',
          ),
      }),
    );
  }
  // ETH and BSC share the hot wallet's address: two nodes of one chain would sign one chain's
  // payouts as the other's.
  const evm = payers.filter((payer): payer is EvmPayer => payer instanceof EvmPayer);
  const ids = new Set(evm.map((payer) => payer.chainIdSigned));
  if (ids.size !== evm.length) throw new Error(`EVM nodes report the same chain id: ${evm.map((payer) => `${payer.chain} ${payer.chainIdSigned}`).join(', ')}`);
  for (const payer of evm) logger.info({ chain: payer.chain, chain_id: payer.chainIdSigned, address: payer.address }, 'EVM payer ready');
  return payers;
}

/** EIP-1559 fees in gwei, for the log. */
function gweiFees(fees: EvmFees): { max_fee_gwei: string; max_priority_fee_gwei: string } {
  return { max_fee_gwei: fromBaseUnits(fees.maxFeePerGas, 9).toFixed(), max_priority_fee_gwei: fromBaseUnits(fees.maxPriorityFeePerGas, 9).toFixed() };
}

/**
 * `npm run signer`: the payout loop until SIGTERM or SIGINT. The key file is opened once; the
 * passphrase is read from the environment and the variable deleted, so no child process or
 * diagnostic dump of the environment carries it.
 */
export async function runSignerLoop(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadSignerConfig(env);
  const logger = pino(loggerOptions(config.logLevel));
  const file = env.SIGNER_KEY_FILE ?? '';
  const wallet = new HotWallet(await readKeyFile(file, checkPassphrase(env.SIGNER_PASSPHRASE)));
  delete env.SIGNER_PASSPHRASE;
  const database = await openDatabase({ engine: 'postgres', url: config.databaseUrl, poolSize: 4 });
  const payers = await createPayers(config, wallet, logger);
  if (payers.length === 0) logger.warn('no chain to pay: set CHAIN_<CHAIN>_RPC_URL for BTC, LTC, ETH or BSC');
  const loop = new PayoutLoop(database.db, payers, config.policy, config, () => new Date(), logger);
  await loop.start();
  logger.info({ chains: payers.map((payer) => payer.chain), limits: [...config.policy.keys()] }, 'signer running');
  const keepAlive = setInterval(() => undefined, 60_000);
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      logger.info({ signal }, 'signer stopping: finishing the current pass');
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  clearInterval(keepAlive);
  await loop.stop();
  await database.close();
  logger.info('signer stopped');
}
