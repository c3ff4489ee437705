import { performance } from 'node:perf_hooks';
import { hex } from '@scure/base';
import { randomBytes } from 'node:crypto';
import { createDemoXpubs } from '../src/domain/deposit-addresses/index.js';
import { Decimal } from '../src/domain/money.js';
import { BitcoinPayer } from '../src/signer/bitcoin/bitcoin-payer.js';
import type { ChainPayer } from '../src/signer/chain-payer.js';
import { EvmPayer } from '../src/signer/evm/evm-payer.js';
import { HotWallet } from '../src/signer/hot-wallet.js';
import { newMnemonics } from '../src/signer/key-file.js';
import { PayoutLoop } from '../src/signer/payout-loop.js';
import { parseSignerPolicy } from '../src/signer/policy.js';
import { startAnvil } from '../test/helpers/anvil-node.js';
import { startLitecoind } from '../test/helpers/litecoind-node.js';
import { buildTestApp, ManualClock, type TestApp } from '../test/helpers/test-app.js';

/**
 * `--only payouts` (issue 28): the signer's own work, on a real litecoind (regtest) and a real
 * anvil, the payout loop in this process against PostgreSQL. For each side, N payouts are made
 * requested (orders run to `sending` through the API and the worker), then timed: the pass that
 * claims, judges, signs, stores and broadcasts them, one block, and the pass that confirms them.
 * Reported per side: payouts per second (signed + broadcast, and to confirmed), this process's
 * CPU per payout (the signer's: signing, the database and the node calls), and, for LTC, the
 * transaction bytes and fee per payout, batched (one transaction for up to PAYOUT_BATCH_MAX)
 * against one transaction per payout, side by side on the same node.
 */
export interface PayoutSide {
  label: string;
  payouts: number;
  transactions: number;
  signSeconds: number;
  confirmSeconds: number;
  cpuMsPerPayout: number;
  /** Virtual bytes per payout (Bitcoin family); null where the chain has none. */
  vbytesPerPayout: number | null;
  /** Network fee per payout, in the chain's coin. */
  feePerPayout: string;
}

const POLICY = parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '100', SIGNER_MAX_DAILY_LTC: '1000000', SIGNER_MAX_PAYOUT_ETH: '100', SIGNER_MAX_DAILY_ETH: '1000000' });

export async function payoutBench(count: number, log: (message: string) => void): Promise<PayoutSide[]> {
  process.env.TEST_ENGINE = 'postgres';
  const ltc = await startLitecoind();
  const eth = await startAnvil();
  const clock = new ManualClock();
  const hot = new HotWallet(newMnemonics());
  let t: TestApp | undefined;
  try {
    t = await buildTestApp({
      production: true,
      clock,
      env: { WORKER: 'off', SIMULATOR_AUTO: '0', PRICE_POLL_SECONDS: '3600', PAYOUT_SIGNER_CHAINS: 'LTC,ETH', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin, LOG_LEVEL: 'warn' },
    });
    const app = t;
    const { apiKey } = await app.createPartner();
    await ltc.mine(Math.ceil((count + 10) * 5 / 50) + 5);
    // One coin per payout of the one-by-one side: the signer spends confirmed coins only (no
    // chains of unconfirmed change), so each of its transactions needs a coin of its own.
    const funding = hot.fundingAddress('LTC', 'regtest');
    for (let i = 0; i < count + 10; i++) await ltc.rpc('sendtoaddress', [funding, '5']);
    await ltc.mine(1);
    await eth.send({ to: hot.fundingAddress('ETH'), value: 1000n * 10n ** 18n });

    const ltcRecipient = async (): Promise<string> => (await ltc.recipient()).mainnet;
    /** `n` BTC → coin orders moved to sending: their payouts requested. */
    const requested = async (coin: 'LTC' | 'ETH', n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const address = coin === 'LTC' ? await ltcRecipient() : `0x${hex.encode(randomBytes(20))}`;
        const res = await app.app.inject({
          method: 'POST',
          url: '/api/v1/partner/orders',
          headers: { 'x-api-key': apiKey },
          payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: coin, network_to: coin, amount_from: '0.0005', rate_type: 'float', recipient_address: address },
        });
        if (res.statusCode !== 201) throw new Error(`order: ${res.statusCode} ${res.body}`);
        const { id } = res.json<{ id: string }>();
        await app.admin('POST', `/admin/v1/simulator/orders/${id}/deposit`, {});
        await app.admin('POST', `/admin/v1/simulator/orders/${id}/confirmations`, { count: 2 });
      }
      for (let pass = 0; pass < Math.ceil(n / 20) * 2 + 2; pass++) {
        await app.runtime.worker.tick();
        clock.advance(2000);
        await app.runtime.prices.refresh();
      }
    };

    const measure = async (label: string, payer: ChainPayer, mine: () => Promise<unknown>, n: number): Promise<PayoutSide> => {
      log(`payouts: ${label}: requesting ${n}`);
      await payer.start(app.db.handle.db);
      const loop = new PayoutLoop(app.db.handle.db, [payer], POLICY, { batchIntervalMs: 0, confirmations: 1, intervalMs: 50 }, () => clock.now(), {
        info: () => undefined,
        warn: (o, m) => log(`${m} ${JSON.stringify(o)}`),
        error: (o, m) => log(`${m} ${JSON.stringify(o)}`),
      });
      // A pass with nothing to pay publishes what the wallet can pay: orders are quoted against it (docs/contract.md §11.7).
      await loop.pass();
      await app.runtime.liquidity.refresh();
      await requested(payer.chain === 'LTC' ? 'LTC' : 'ETH', n);
      const since = clock.now();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await loop.pass();
      const t1 = performance.now();
      await mine();
      await loop.pass();
      const t2 = performance.now();
      const cpu = process.cpuUsage(cpu0);
      const rows = await app.db.handle.db
        .selectFrom('payout_transactions')
        .select(['txid', 'vsize', 'fee', 'state'])
        .where('chain', '=', payer.chain)
        .where('created_at', '>=', since)
        .execute();
      const confirmed = await app.db.handle.db.selectFrom('payouts').select((eb) => eb.fn.countAll<string>().as('n')).where('chain', '=', payer.chain).where('status', '=', 'confirmed').where('confirmed_at', '>=', since).executeTakeFirstOrThrow();
      if (Number(confirmed.n) !== n) throw new Error(`${label}: ${confirmed.n} of ${n} payouts confirmed`);
      const vbytes = rows.every((row) => row.vsize !== null) ? rows.reduce((sum, row) => sum + (row.vsize ?? 0), 0) : null;
      const fee = rows.reduce((sum, row) => sum.plus(row.fee), new Decimal(0));
      return {
        label,
        payouts: n,
        transactions: rows.length,
        signSeconds: (t1 - t0) / 1000,
        confirmSeconds: (t2 - t0) / 1000,
        cpuMsPerPayout: (cpu.user + cpu.system) / 1000 / n,
        vbytesPerPayout: vbytes === null ? null : vbytes / n,
        feePerPayout: fee.div(n).toSignificantDigits(6).toFixed(),
      };
    };

    const ltcPayer = (batchMax: number) =>
      BitcoinPayer.create('LTC', hot.account('LTC'), ltc.rpcUrl, { fees: { min: new Decimal(1), max: new Decimal(100), targetBlocks: 6 }, batchMax, walletBirthday: 0, onBoundedFee: () => undefined });
    const sides: PayoutSide[] = [];
    sides.push(await measure('LTC batched (PAYOUT_BATCH_MAX 50)', await ltcPayer(50), () => ltc.mine(1), count));
    sides.push(await measure('LTC one by one (PAYOUT_BATCH_MAX 1)', await ltcPayer(1), () => ltc.mine(1), count));
    const ethPayer = await EvmPayer.create('ETH', hot.account('ETH'), eth.rpcUrl, { fees: { minPriorityFee: 10n ** 7n, maxFee: 500n * 10n ** 9n }, replaceAfterBlocks: 12, onBoundedFee: () => undefined });
    sides.push(await measure('ETH (one transaction per payout, anvil automine)', ethPayer, () => eth.mine(1), count));
    return sides;
  } finally {
    await t?.close().catch(() => undefined);
    await ltc.close();
    await eth.close();
  }
}

export function payoutSection(sides: readonly PayoutSide[]): string {
  const [batched, single] = sides;
  const lines = [
    '',
    '## Payouts (the signer, issue 28)',
    '',
    '| side | payouts | transactions | signed + broadcast /s | to confirmed /s | signer CPU ms/payout | vbytes/payout | fee/payout |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...sides.map(
      (side) =>
        `| ${side.label} | ${side.payouts} | ${side.transactions} | ${(side.payouts / side.signSeconds).toFixed(1)} | ${(side.payouts / side.confirmSeconds).toFixed(1)} | ` +
        `${side.cpuMsPerPayout.toFixed(1)} | ${side.vbytesPerPayout?.toFixed(1) ?? '—'} | ${side.feePerPayout} |`,
    ),
    '',
  ];
  if (batched?.vbytesPerPayout != null && single?.vbytesPerPayout != null) {
    lines.push(
      `Batched vs one by one on the same litecoind: **${(batched.vbytesPerPayout / single.vbytesPerPayout).toFixed(2)}×** the bytes per payout, ` +
        `**${new Decimal(batched.feePerPayout).div(single.feePerPayout).toFixed(2)}×** the fee per payout, ` +
        `**${(batched.cpuMsPerPayout / single.cpuMsPerPayout).toFixed(2)}×** the signer CPU per payout. ` +
        'Times include the node calls (coin listing, fee estimate, broadcast, confirmation) and PostgreSQL; one block is mined between the passes.',
      '',
    );
  }
  return lines.join('\n');
}
