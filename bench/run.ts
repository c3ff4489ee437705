/**
 * `npm run bench`: every measure side by side with its ceiling, in one run, on loopback.
 *
 * Flags: --duration <s> (load per side and measure, default 8), --rounds <n> (the duration is
 * split into n runs per side, the sides' order reversed every round: ceiling and service ABBA,
 * or raw node:http, bare Fastify and service ABC CBA for the public GETs; default 2), --connections
 * <n> (default 50), --warmup <s> (per side, default 2), --soak <s> (default 15; 0 skips),
 * --only <name,...> (currencies, rates-float, rates-fixed, orders-post-pg, orders-get-pg, rates-float-2p,
 * orders-post-pglite, orders-list-pg, soak, webhooks, payouts, stream, tracing, scale), --streams <n> (open status
 * streams, default 10000), --stream-orders <n> (default 1000), --moves <n/s> (default 200), --payouts <n> (payouts per side, default 50),
 * --scale-api <n,...> (API processes per scale configuration, default 1,2,4), --scale-workers <n,...> (default 1,2),
 * --profile (servers run with --cpu-prof and the report adds the
 * top self-time frames of the measured windows; profiled numbers are slower, and written to
 * latest-profile.md instead of latest.md). See bench/README.md.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { captureOrderSql, pgbenchScript } from './capture-sql.js';
import { sameSizeBody } from './ceilings.js';
import { ordersListPostgres, ordersPglite, ordersPostgres, publicMeasure, soak, type Measure } from './measures.js';
import { payoutBench, payoutSection, type PayoutSide } from './payouts.js';
import { scaleRun } from './scale.js';
import { loadAverage, profileSection, report } from './report.js';
import { CONNECTIONS, DURATION, flags, log, ONLY, PROFILE_DIR, RESULTS_DIR, ROUNDS, SOAK, WARMUP, wanted } from './run-options.js';
import { streamBench, streamSection } from './stream.js';
import { tracingBench, tracingSection } from './tracing.js';
import { webhookBench, webhookSection } from './webhooks.js';
import { planCpus, pinSelf, REPO_ROOT } from './server.js';

async function main(): Promise<void> {
  const started = new Date();
  const loadBefore = loadAverage();
  const plan = planCpus();
  log(plan.note);
  await mkdir(RESULTS_DIR, { recursive: true });
  if (flags.profile) {
    await rm(PROFILE_DIR, { recursive: true, force: true });
    await mkdir(PROFILE_DIR, { recursive: true });
  }

  // The signer's bench runs first, in this process (the loop is what is measured), before the
  // process is pinned to the load generator's core.
  const payouts: PayoutSide[] | undefined = wanted('payouts') ? await payoutBench(Number(flags.payouts), log) : undefined;
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'payouts')) {
    const text = payouts === undefined ? '' : payoutSection(payouts);
    console.log(text);
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    await writeFile(path.join(RESULTS_DIR, `${stamp}.json`), JSON.stringify({ plan, flags, payouts }, null, 2));
    await writeFile(path.join(RESULTS_DIR, 'latest-payouts.md'), `# Payouts bench, ${started.toISOString()}\n${text}`);
    log(`written bench/results/latest-payouts.md and bench/results/${stamp}.json`);
    return;
  }
  // The status streams need no SQL capture: alone, they report on their own.
  const stream = wanted('stream')
    ? await streamBench(plan, { streams: Number(flags.streams), orders: Number(flags['stream-orders']), movesPerSecond: Number(flags.moves), seconds: DURATION }, log)
    : undefined;
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'stream')) {
    const text = stream === undefined ? '' : streamSection(stream);
    console.log(text);
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    await writeFile(path.join(RESULTS_DIR, `${stamp}.json`), JSON.stringify({ plan, flags, stream }, null, 2));
    await writeFile(path.join(RESULTS_DIR, 'latest-stream.md'), `# Status stream bench, ${started.toISOString()}\n${text}`);
    log(`written bench/results/latest-stream.md and bench/results/${stamp}.json`);
    return;
  }

  // Tracing on against off needs no SQL capture either: alone, it reports on its own.
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'tracing')) {
    pinSelf(plan);
    const text = tracingSection(await tracingBench(plan, DURATION, ROUNDS * 2, CONNECTIONS, log));
    console.log(text);
    await writeFile(path.join(RESULTS_DIR, 'latest-tracing.md'), `# Tracing bench, ${started.toISOString()}\n${text}`);
    log('written bench/results/latest-tracing.md');
    return;
  }

  // Scale-out alone: its own servers, workers and report (bench/scale.ts).
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'scale')) {
    await scaleRun(plan, { flags, duration: DURATION, warmup: WARMUP, connections: CONNECTIONS, resultsDir: RESULTS_DIR, started, log });
    return;
  }

  log('capturing the SQL of one order creation and one order read');
  const capture = await captureOrderSql();
  const createScript = path.join(REPO_ROOT, 'bench', 'order-create.sql');
  const getScript = path.join(REPO_ROOT, 'bench', 'order-get.sql');
  await writeFile(createScript, pgbenchScript(capture.create, 'POST /api/v1/partner/orders'));
  await writeFile(getScript, pgbenchScript(capture.get, 'GET /api/v1/partner/orders/{id}; bench/run.ts writes one copy per read order with :order_id filled in'));
  // The capture ran in this process; from here on it only generates load, on its own core.
  pinSelf(plan);

  const measures: Measure[] = [];
  const rates = '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.5';
  if (wanted('currencies')) {
    measures.push(await publicMeasure(plan, 'currencies', 'GET /currencies', 'raw node:http, same bytes', 0.9, '/api/v1/currencies', (body) => body));
  }
  if (wanted('rates-float')) {
    measures.push(await publicMeasure(plan, 'rates-float', 'GET /partner/rates (float)', 'raw node:http, same-size body', 0.8, rates, (body) => sameSizeBody(body.length)));
  }
  if (wanted('rates-fixed')) {
    measures.push(
      await publicMeasure(plan, 'rates-fixed', 'GET /partner/rates (fixed)', 'raw node:http, same-size body', 0.8, `${rates}&rate_type=fixed`, (body) =>
        sameSizeBody(body.length),
      ),
    );
  }
  if (wanted('rates-float-2p')) {
    // WEB_CONCURRENCY=2 against the same ceiling: what a second API process buys the quote path.
    measures.push(
      await publicMeasure(plan, 'rates-float-2p', 'GET /partner/rates (float), 2 processes', 'raw node:http, same-size body', 0.8, rates, (body) => sameSizeBody(body.length), 2),
    );
  }
  if (wanted('orders-post-pg') || wanted('orders-get-pg')) measures.push(...(await ordersPostgres(plan, capture, createScript, getScript)));
  if (wanted('orders-post-pg-2p') || wanted('orders-get-pg-2p')) measures.push(...(await ordersPostgres(plan, capture, createScript, getScript, 2)));
  if (wanted('orders-post-pglite')) measures.push(await ordersPglite(plan, capture));
  if (wanted('orders-list-pg')) measures.push(await ordersListPostgres(plan));
  const soakResult = SOAK > 0 && wanted('soak') ? await soak(plan, capture) : undefined;

  const webhooks = wanted('webhooks') ? await webhookBench(plan, capture.body, DURATION, Math.min(CONNECTIONS, 16), log) : undefined;
  const tracing = wanted('tracing') ? await tracingBench(plan, DURATION, ROUNDS * 2, CONNECTIONS, log) : undefined;
  let text = report(plan, measures, soakResult, started, loadBefore);
  if (webhooks !== undefined) text += webhookSection(webhooks);
  if (tracing !== undefined) text += tracingSection(tracing);
  if (payouts !== undefined) text += payoutSection(payouts);
  if (stream !== undefined) text += streamSection(stream);
  if (flags.profile) text += await profileSection();
  console.log(text);
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  await writeFile(path.join(RESULTS_DIR, `${stamp}.json`), JSON.stringify({ plan, flags, measures, soak: soakResult, webhooks, payouts, stream, tracing }, null, 2));
  const out = flags.profile ? 'latest-profile.md' : 'latest.md';
  await writeFile(path.join(RESULTS_DIR, out), text);
  log(`written bench/results/${out} and bench/results/${stamp}.json`);
}

await main();

