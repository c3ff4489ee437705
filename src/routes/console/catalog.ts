import type { FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import type { CurrencyRow } from '../../db/schema/currencies.js';
import { Decimal } from '../../domain/money.js';
import { roleAtLeast } from '../../domain/operator-roles.js';
import { UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import type { Flash } from '../cabinet/flash.js';
import { html } from '../cabinet/html.js';
import { csrfField } from '../cabinet/layout.js';
import { formField } from '../cabinet/session.js';
import { act } from './actions.js';
import { consoleErrorPage, consolePage, noticeOf } from './layout.js';
import { wholeNumber } from './partners.js';
import { consoleSessionOf, type ConsoleSessions } from './session.js';

const HTML = 'text/html; charset=utf-8';
const NOTICES: Readonly<Record<string, string>> = {
  added: 'It is in the catalog: every process quotes it from now on.',
  saved: 'The changes are saved: every process uses them from now on.',
};

const CODE = /^[A-Z0-9]{1,12}$/;

/** A stored amount as people read it: no trailing zeros. */
const amount = (value: string): string => new Decimal(value).toFixed();

/** Optional text of a form: trimmed, undefined when empty. */
const optional = (request: FastifyRequest, name: string): string | undefined => {
  const value = (formField(request, name) ?? '').trim();
  return value === '' ? undefined : value;
};

/** An explorer link template: https, with its placeholder; null when left empty. */
function explorerLink(value: string | undefined, placeholder: 'txid' | 'address'): string | null {
  if (value === undefined) return null;
  if (value.length > 512 || !new RegExp(`^https://[^\\s]*\\{${placeholder}\\}[^\\s]*$`).test(value)) {
    throw new ApiError('bad_request', `The ${placeholder === 'txid' ? 'transaction' : 'address'} link must start with https:// and hold {${placeholder}}.`);
  }
  return value;
}

const switches = (row?: CurrencyRow) => html`<fieldset><legend>Switches</legend>
<label><input type="checkbox" name="is_active" value="on"${row === undefined || row.is_active ? html` checked` : ''}> Listed</label>
<label><input type="checkbox" name="is_deposit_enabled" value="on"${row === undefined || row.is_deposit_enabled ? html` checked` : ''}> Deposits on</label>
<label><input type="checkbox" name="is_withdraw_enabled" value="on"${row === undefined || row.is_withdraw_enabled ? html` checked` : ''}> Withdrawals on</label>
</fieldset>`;

/**
 * The catalog in the console (/console/catalog): every coin, token and network with its limits
 * and switches; add one and edit one (admin), through the same service as POST and PATCH
 * /admin/v1/currencies (services/catalog-edits.ts): no migration, every process reloads.
 */
export function registerConsoleCatalog(app: App, services: Services, sessions: ConsoleSessions, flash: Flash): void {
  const { catalog, catalogEdits: edits } = services;
  const viewer = { schema: { hide: true }, preHandler: sessions.required('viewer') };
  const admin = { schema: { hide: true }, preHandler: sessions.required('admin') };

  app.get('/console/catalog', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const rows = catalog.all();
    const chains = [...catalog.chains().keys()].sort();
    const read = flash.read(session, request.query);
    return reply.type(HTML).send(
      consolePage({
        title: 'Catalog',
        session,
        active: '/console/catalog',
        notice: read.notice ?? noticeOf(request.query, NOTICES),
        problem: read.problem,
        body: html`<div class="table-wrap"><table><thead><tr><th scope="col">Coin</th><th scope="col">Network</th><th scope="col">Chain</th><th scope="col">Contract</th><th scope="col">Decimals</th><th scope="col">Limits</th><th scope="col">Confirmations</th><th scope="col">Switches</th></tr></thead>
<tbody>${rows.map(
          (row) =>
            html`<tr><td><a href="/console/catalog/${row.id}">${row.coin}</a> ${row.name}</td><td>${row.network}</td><td>${row.chain}</td><td class="mono">${row.token_contract ?? '—'}</td><td>${row.decimals}</td><td>${amount(row.min_amount)} – ${amount(row.max_amount)}</td><td>${row.min_confirmations}</td><td>${row.is_active ? 'listed' : 'not listed'}, deposits ${row.is_deposit_enabled ? 'on' : 'off'}, withdrawals ${row.is_withdraw_enabled ? 'on' : 'off'}</td></tr>`,
        )}</tbody></table></div>
${roleAtLeast(session.role, 'admin')
  ? html`<section aria-labelledby="add"><h2 id="add">Add a coin, token or network</h2>
<p class="hint">On a chain the catalog has. What is left empty comes from the chain’s own coin (address format, confirmations, explorer links).</p>
<form method="post" action="/console/catalog" class="stack">${csrfField(session.csrf)}
<label>Coin (ticker) <input type="text" name="coin" required maxlength="12" pattern="[A-Za-z0-9]{1,12}" autocomplete="off"></label>
<label>Network <input type="text" name="network" required maxlength="12" pattern="[A-Za-z0-9]{1,12}" autocomplete="off"></label>
<label>Chain <select name="chain" aria-label="Chain">${chains.map((chain) => html`<option value="${chain}">${chain}</option>`)}</select></label>
<label>Name <input type="text" name="name" required maxlength="64" autocomplete="off"></label>
<label>Decimals <input type="text" inputmode="numeric" name="decimals" required maxlength="2" autocomplete="off"></label>
<label>Token contract (empty for the chain’s own coin) <input type="text" name="token_contract" maxlength="128" autocomplete="off"></label>
<label>Price symbol (empty: the coin) <input type="text" name="price_symbol" maxlength="12" autocomplete="off"></label>
<label>Minimum amount <input type="text" inputmode="decimal" name="min_amount" required maxlength="40" autocomplete="off"></label>
<label>Maximum amount <input type="text" inputmode="decimal" name="max_amount" required maxlength="40" autocomplete="off"></label>
<label>Payout fee <input type="text" inputmode="decimal" name="payout_fee" maxlength="40" autocomplete="off"></label>
<label>Confirmations <input type="text" inputmode="numeric" name="min_confirmations" maxlength="5" autocomplete="off"></label>
<label>Explorer transaction link (with {txid}) <input type="text" name="explorer_tx_url" maxlength="512" autocomplete="off"></label>
<label>Explorer address link (with {address}) <input type="text" name="explorer_address_url" maxlength="512" autocomplete="off"></label>
${switches()}
<button type="submit">Add to the catalog</button>
</form></section>`
  : ''}`,
      }),
    );
  });

  app.post('/console/catalog', admin, async (request, reply) => {
    const session = consoleSessionOf(request);
    let added: CurrencyRow;
    try {
      const coin = (formField(request, 'coin') ?? '').trim().toUpperCase();
      const network = (formField(request, 'network') ?? '').trim().toUpperCase();
      const chain = (formField(request, 'chain') ?? '').trim().toUpperCase();
      const name = (formField(request, 'name') ?? '').trim();
      const priceSymbol = optional(request, 'price_symbol')?.toUpperCase();
      if (!CODE.test(coin) || !CODE.test(network) || !CODE.test(chain)) throw new ApiError('bad_request', 'Coin, network and chain are 1 to 12 letters or digits.');
      if (name === '' || name.length > 64) throw new ApiError('bad_request', 'Give a name of at most 64 characters.');
      if (priceSymbol !== undefined && !CODE.test(priceSymbol)) throw new ApiError('bad_request', 'The price symbol is 1 to 12 letters or digits.');
      const decimals = wholeNumber(formField(request, 'decimals'), 'Decimals', 0, 18);
      if (decimals === undefined) throw new ApiError('bad_request', 'Give the decimals (0 to 18).');
      const contract = optional(request, 'token_contract');
      if (contract !== undefined && contract.length > 128) throw new ApiError('bad_request', 'The contract is at most 128 characters.');
      ({ row: added } = await edits.add({
        coin,
        network,
        chain,
        name,
        decimals,
        token_contract: contract ?? null,
        price_symbol: priceSymbol,
        min_amount: optional(request, 'min_amount') ?? '',
        max_amount: optional(request, 'max_amount') ?? '',
        payout_fee: optional(request, 'payout_fee'),
        min_confirmations: wholeNumber(formField(request, 'min_confirmations'), 'Confirmations', 0, 10_000),
        ...(optional(request, 'explorer_tx_url') === undefined ? {} : { explorer_tx_url: explorerLink(optional(request, 'explorer_tx_url'), 'txid') }),
        ...(optional(request, 'explorer_address_url') === undefined ? {} : { explorer_address_url: explorerLink(optional(request, 'explorer_address_url'), 'address') }),
        is_active: formField(request, 'is_active') === 'on',
        is_deposit_enabled: formField(request, 'is_deposit_enabled') === 'on',
        is_withdraw_enabled: formField(request, 'is_withdraw_enabled') === 'on',
      }));
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return flash.redirect(reply, session, '/console/catalog', 'problem', error.message);
      throw error;
    }
    return reply.redirect(`/console/catalog/${added.id}?done=added`, 303);
  });

  // From the database, not the catalog's snapshot: a row just added is there before every process has reloaded.
  const rowOf = async (request: FastifyRequest): Promise<CurrencyRow | undefined> => {
    const { id } = request.params as { id: string };
    return UUID_PATTERN.test(id) ? edits.find(id.toLowerCase()) : undefined;
  };

  app.get('/console/catalog/:id', viewer, async (request, reply) => {
    const session = consoleSessionOf(request);
    const row = await rowOf(request);
    if (row === undefined) return reply.code(404).type(HTML).send(consoleErrorPage('Not in the catalog', 'There is no coin or token with this id.'));
    const read = flash.read(session, request.query);
    const editable = roleAtLeast(session.role, 'admin');
    const field = (label: string, name: string, value: string | null, extra: { max?: number; mode?: string } = {}) =>
      html`<label>${label} <input type="text" name="${name}" value="${value ?? ''}" maxlength="${String(extra.max ?? 128)}"${extra.mode === undefined ? '' : html` inputmode="${extra.mode}"`} autocomplete="off"${editable ? '' : html` readonly`}></label>`;
    return reply.type(HTML).send(
      consolePage({
        title: `${row.coin} on ${row.network}`,
        session,
        active: '/console/catalog',
        notice: read.notice ?? noticeOf(request.query, NOTICES),
        problem: read.problem,
        body: html`<dl class="facts"><dt>Id</dt><dd class="mono">${row.id}</dd><dt>Chain</dt><dd>${row.chain}</dd><dt>Decimals</dt><dd>${row.decimals}</dd><dt>Address format</dt><dd>${row.address_format}</dd><dt>Deposits by</dt><dd>${row.deposit_strategy}</dd></dl>
<form method="post" action="/console/catalog/${row.id}" class="stack">${csrfField(session.csrf)}
${field('Name', 'name', row.name, { max: 64 })}
${row.token_contract === null ? '' : field('Token contract', 'token_contract', row.token_contract)}
${field('Price symbol', 'price_symbol', row.price_symbol, { max: 12 })}
${field('Minimum amount', 'min_amount', amount(row.min_amount), { max: 40, mode: 'decimal' })}
${field('Maximum amount', 'max_amount', amount(row.max_amount), { max: 40, mode: 'decimal' })}
${field('Payout fee', 'payout_fee', amount(row.payout_fee), { max: 40, mode: 'decimal' })}
${field('Confirmations', 'min_confirmations', String(row.min_confirmations), { max: 5, mode: 'numeric' })}
${field('Explorer transaction link (with {txid})', 'explorer_tx_url', row.explorer_tx_url, { max: 512 })}
${field('Explorer address link (with {address})', 'explorer_address_url', row.explorer_address_url, { max: 512 })}
${switches(row)}
${editable ? html`<button type="submit">Save ${row.coin} on ${row.network}</button>` : html`<p class="hint">Changing the catalog needs the admin role.</p>`}
</form>
<p><a href="/console/catalog">Back to the catalog</a></p>`,
      }),
    );
  });

  app.post('/console/catalog/:id', admin, async (request, reply) => {
    const { id } = request.params as { id: string };
    const back = `/console/catalog/${id}`;
    return act(reply, flash, consoleSessionOf(request), back, 'saved', async () => {
      const row = await rowOf(request);
      if (row === undefined) throw new ApiError('not_found', 'There is no coin or token with this id.');
      const name = optional(request, 'name');
      const priceSymbol = optional(request, 'price_symbol')?.toUpperCase();
      if (name !== undefined && name.length > 64) throw new ApiError('bad_request', 'The name is at most 64 characters.');
      if (priceSymbol !== undefined && !CODE.test(priceSymbol)) throw new ApiError('bad_request', 'The price symbol is 1 to 12 letters or digits.');
      await edits.change(row.id, {
        name,
        price_symbol: priceSymbol,
        token_contract: row.token_contract === null ? undefined : optional(request, 'token_contract'),
        min_amount: optional(request, 'min_amount'),
        max_amount: optional(request, 'max_amount'),
        payout_fee: optional(request, 'payout_fee'),
        min_confirmations: wholeNumber(formField(request, 'min_confirmations'), 'Confirmations', 0, 10_000),
        explorer_tx_url: explorerLink(optional(request, 'explorer_tx_url'), 'txid'),
        explorer_address_url: explorerLink(optional(request, 'explorer_address_url'), 'address'),
        is_active: formField(request, 'is_active') === 'on',
        is_deposit_enabled: formField(request, 'is_deposit_enabled') === 'on',
        is_withdraw_enabled: formField(request, 'is_withdraw_enabled') === 'on',
      });
    });
  });
}
