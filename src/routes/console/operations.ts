import type { App, Services } from '../../app-types.js';
import { insertPoolAddresses } from '../../db/repositories/deposit-addresses-repository.js';
import { listStaticPrices, upsertStaticPrice } from '../../db/repositories/static-prices-repository.js';
import { validateAddress } from '../../domain/addresses/index.js';
import { isStorableDecimal, parseDecimalInput } from '../../domain/money.js';
import { roleAtLeast } from '../../domain/operator-roles.js';
import { ApiError } from '../../errors.js';
import type { Flash } from '../cabinet/flash.js';
import { html } from '../cabinet/html.js';
import { csrfField, time } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { act } from './actions.js';
import { consolePage, noticeOf } from './layout.js';
import { consoleSessionOf, type ConsoleSessions } from './session.js';

const HTML = 'text/html; charset=utf-8';
const NOTICES: Readonly<Record<string, string>> = {
  price: 'The static price is set: this process uses it now, the others at their next poll.',
  loaded: 'The addresses are loaded into the pool (known ones are skipped).',
};

/** The most addresses one form loads (as POST /admin/v1/address-pools/{chain}). */
const POOL_LOAD_MAX = 1000;

/**
 * The console's operations pages: prices and their feeds, address pools, health and treasury.
 * Each reads what its /admin/v1 route reads (the price book, the pool counts, the readiness
 * report, the treasury view) and its changes call what that route calls.
 */
export function registerConsoleOperations(app: App, services: Services, sessions: ConsoleSessions, flash: Flash): void {
  const { database, catalog, prices, clock, readiness, treasury } = services;
  const viewer = { schema: { hide: true }, preHandler: sessions.required('viewer') };
  const admin = { schema: { hide: true }, preHandler: sessions.required('admin') };

  app.get('/console/prices', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const table = new Map((await listStaticPrices(database.db)).map((row) => [row.symbol, row]));
    const symbols = [...new Set([...catalog.all().map((row) => row.price_symbol), ...table.keys()])].sort();
    const canAdmin = roleAtLeast(session.role, 'admin');
    const read = flash.read(session, request.query);
    return reply.type(HTML).send(
      consolePage({
        title: 'Prices and feeds',
        session,
        active: '/console/prices',
        notice: read.notice ?? noticeOf(request.query, NOTICES),
        problem: read.problem,
        body: html`<p class="hint">What quotes use is the median of the fresh sources; a source far from the others is left out as an outlier.</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Symbol</th><th scope="col">Used now (USD)</th><th scope="col">Sources</th><th scope="col">Outliers</th><th scope="col">Static (USD)</th><th scope="col">Set</th></tr></thead>
<tbody>${symbols.map((symbol) => {
          const stored = table.get(symbol);
          const live = prices.getAggregatedPrice(symbol);
          return html`<tr><td>${symbol}</td><td>${live === undefined ? html`<strong>no fresh price</strong>` : live.priceUsd.toString()}</td><td>${live?.sources.join(', ') || '—'}</td><td>${live?.outliers.join(', ') || '—'}</td><td>${stored === undefined ? '—' : html`${stored.price_usd} (${time(stored.updated_at)})`}</td><td>${canAdmin
            ? html`<form method="post" action="/console/prices/${symbol}" class="inline">${csrfField(session.csrf)}<label>Static price of ${symbol} <input type="text" inputmode="decimal" name="price_usd" required maxlength="40" autocomplete="off"></label> <button type="submit">Set ${symbol}</button></form>`
            : ''}</td></tr>`;
        })}</tbody></table></div>`,
      }),
    );
  });

  app.post('/console/prices/:coin', admin, async (request, reply) => {
    const { coin } = request.params as { coin: string };
    return act(reply, flash, consoleSessionOf(request), '/console/prices', 'price', async () => {
      if (!/^[A-Za-z0-9]{1,12}$/.test(coin)) throw new ApiError('not_found', 'There is no such symbol.');
      const price = parseDecimalInput((formField(request, 'price_usd') ?? '').trim());
      if (price === undefined || price.lte(0) || price.decimalPlaces() > 18 || !isStorableDecimal(price)) {
        throw new ApiError('bad_request', 'The price is a positive decimal below 1e20 with at most 18 decimals.');
      }
      await upsertStaticPrice(database.db, coin.toUpperCase(), price.toFixed(), clock.now());
      await prices.refresh();
    });
  });

  app.get('/console/pools', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const chains = [...new Set(catalog.all().filter((row) => row.deposit_strategy === 'pool').map((row) => row.chain))].sort();
    const states = await Promise.all(chains.map((chain) => services.addressPools.levels(chain)));
    const canAdmin = roleAtLeast(session.role, 'admin');
    const read = flash.read(session, request.query);
    return reply.type(HTML).send(
      consolePage({
        title: 'Address pools',
        session,
        active: '/console/pools',
        notice: read.notice ?? noticeOf(request.query, NOTICES),
        problem: read.problem,
        body: html`<p class="hint">Chains whose deposit addresses cannot be derived from an extended public key take them from a pool the operator loads; each address goes to one order, ever.</p>
${states.length === 0
  ? html`<p class="hint">No chain of the catalog takes its deposit addresses from a pool.</p>`
  : states.map(
      (state) => html`<section aria-labelledby="pool-${state.chain}"><h2 id="pool-${state.chain}">${state.chain}</h2>
<p>${state.available} addresses left, ${state.assigned} handed to orders.</p>
${canAdmin
  ? html`<form method="post" action="/console/pools/${state.chain}" class="stack">${csrfField(session.csrf)}
<label>Addresses to load into ${state.chain}, one a line (at most ${POOL_LOAD_MAX}) <textarea name="addresses" rows="4" required></textarea></label>
<button type="submit">Load into ${state.chain}</button></form>`
  : ''}</section>`,
    )}`,
      }),
    );
  });

  app.post('/console/pools/:chain', admin, async (request, reply) => {
    const { chain } = request.params as { chain: string };
    return act(reply, flash, consoleSessionOf(request), '/console/pools', 'loaded', async () => {
      const currency = services.addressPools.currency(chain);
      const addresses = [
        ...new Set(
          (formField(request, 'addresses') ?? '')
            .split(/\s+/)
            .map((line) => line.trim())
            .filter((line) => line !== ''),
        ),
      ];
      if (addresses.length === 0 || addresses.length > POOL_LOAD_MAX) throw new ApiError('bad_request', `Give 1 to ${POOL_LOAD_MAX} addresses, one a line.`);
      for (const address of addresses) {
        const check = validateAddress(currency.address_format, address);
        if (!check.ok) throw new ApiError('bad_request', `"${address.slice(0, 128)}" is not a valid ${currency.chain} address: ${check.reason}`);
      }
      // A chain's first pool makes its deposits configured here at once (other processes: at their next refresh).
      if ((await insertPoolAddresses(database.db, currency.chain, addresses)) > 0) await catalog.reload();
    });
  });

  app.get('/console/health', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const report = await readiness.report();
    const ok = (value: boolean) => (value ? 'ok' : html`<strong>failing</strong>`);
    const chains = Object.entries(report.chains);
    const payouts = Object.entries(report.payouts);
    return reply.type(HTML).send(
      consolePage({
        title: 'Health',
        session,
        active: '/console/health',
        body: html`<dl class="facts">
<dt>Ready</dt><dd>${report.ready ? 'yes' : html`<strong>no</strong>`}</dd>
<dt>Database</dt><dd>${ok(report.database.ok)} (${report.database.ping_ms} ms)</dd>
<dt>Redis</dt><dd>${report.redis === null ? 'not configured (counting in-process)' : html`${ok(report.redis.ok)} (${report.redis.ping_ms} ms)`}</dd>
<dt>Queues and workers</dt><dd>${report.workers_ok ? 'ok' : html`<strong>a worker is stale or missing</strong>`}</dd>
</dl>
<section aria-labelledby="chains"><h2 id="chains">Chains</h2>
${chains.length === 0
  ? html`<p class="hint">No chain node is configured.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Chain</th><th scope="col">State</th><th scope="col">Height</th><th scope="col">Lag</th><th scope="col">Last ok</th><th scope="col">Last error</th></tr></thead>
<tbody>${chains.map(([chain, state]) => html`<tr><td>${chain}</td><td>${ok(state.ok)}</td><td>${state.height === null ? '—' : String(state.height)}</td><td>${state.lag_seconds === null ? '—' : `${state.lag_seconds} s`}</td><td>${state.last_ok_at ?? '—'}</td><td>${state.last_error ?? '—'}</td></tr>`)}</tbody></table></div>`}
</section>
<section aria-labelledby="workers"><h2 id="workers">Worker loops</h2>
${report.workers.length === 0
  ? html`<p class="hint">No worker loop ticked in the last 24 hours.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Loop</th><th scope="col">Mode</th><th scope="col">Host</th><th scope="col">Last tick</th><th scope="col">State</th></tr></thead>
<tbody>${report.workers.map((worker) => html`<tr><td>${worker.kind}</td><td>${worker.mode}</td><td>${worker.host} (pid ${worker.pid})</td><td>${worker.seconds_since_tick} s ago</td><td>${worker.stopped_at !== null ? 'stopped' : worker.stale ? html`<strong>stale</strong>` : 'running'}</td></tr>`)}</tbody></table></div>`}
</section>
<section aria-labelledby="signer"><h2 id="signer">Signer</h2>
${payouts.length === 0
  ? html`<p class="hint">No chain pays out through the signer.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Chain</th><th scope="col">Unfinished payouts by state</th></tr></thead>
<tbody>${payouts.map(([chain, states]) => html`<tr><td>${chain}</td><td>${Object.entries(states).map(([state, count]) => `${state}: ${count}`).join(', ')}</td></tr>`)}</tbody></table></div>`}
</section>`,
      }),
    );
  });

  app.get('/console/treasury', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const lines = Object.entries(await treasury.view());
    return reply.type(HTML).send(
      consolePage({
        title: 'Treasury',
        session,
        active: '/console/treasury',
        body: html`<p class="hint">From the ledger, live figures only; the chain’s balance as last read. Drift is what nothing explains: 0 when reconciled.</p>
${lines.length === 0
  ? html`<p class="hint">The ledger holds nothing yet.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Asset</th><th scope="col">Ledger holds</th><th scope="col">Chain holds</th><th scope="col">Payouts in flight</th><th scope="col">Drift</th><th scope="col">Commission owed</th><th scope="col">Revenue</th><th scope="col">Holdings in USD</th></tr></thead>
<tbody>${lines.map(([asset, line]) => html`<tr><td>${asset}</td><td>${line.holdings_ledger}</td><td>${line.holdings_chain ?? '—'}</td><td>${line.pending_payouts}</td><td>${line.drift === null ? '—' : line.drift}</td><td>${line.commission_owed}</td><td>${line.revenue}</td><td>${line.usd === null ? '—' : line.usd.holdings_ledger}</td></tr>`)}</tbody></table></div>`}`,
      }),
    );
  });
}
