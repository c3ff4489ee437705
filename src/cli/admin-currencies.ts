import { amountFlag, booleanFlag, integerFlag, type Flags } from './admin-args.js';
import { parseBody, type AdminClient } from './admin-client.js';
import { asList, asRecord, printResponse, text, type ApiRecord, type Command } from './admin-command.js';
import { CliError, UsageError } from './admin-errors.js';
import { cell, fields, table } from './admin-table.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CURRENCY_FIELDS = [
  'id',
  'coin',
  'network',
  'name',
  'is_active',
  'is_deposit_enabled',
  'is_withdraw_enabled',
  'min_amount',
  'max_amount',
  'payout_fee',
  'min_confirmations',
  'decimals',
  'updated_at',
];

async function listCurrencies(api: AdminClient) {
  const response = await api.send('GET', '/admin/v1/currencies');
  return { response, currencies: asList(parseBody(response)) };
}

const symbol = (currency: ApiRecord) => `${cell(currency.coin)}:${cell(currency.network)}`;

/** A row id as is; COIN:NETWORK (any case) looked up in the catalog, which has one row per pair. */
async function resolveCurrencyId(api: AdminClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const match = /^([^:\s]+):([^:\s]+)$/.exec(ref);
  if (match === null) throw new UsageError(`"${ref}" is neither a currency id nor COIN:NETWORK (e.g. BTC:BTC, USDT:TRC20)`);
  const wanted = ref.toUpperCase();
  const { currencies } = await listCurrencies(api);
  const found = currencies.find((currency) => symbol(currency).toUpperCase() === wanted);
  if (found === undefined) throw new CliError(`no currency ${ref}: see currencies list`);
  return text(found, 'id');
}

/** The PATCH body from the flags that were given; amounts stay decimal strings. */
function currencyChanges(flags: Flags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.active !== undefined) body.is_active = booleanFlag('active', flags.active);
  if (flags.deposit !== undefined) body.is_deposit_enabled = booleanFlag('deposit', flags.deposit);
  if (flags.withdraw !== undefined) body.is_withdraw_enabled = booleanFlag('withdraw', flags.withdraw);
  if (flags['min-amount'] !== undefined) body.min_amount = amountFlag('min-amount', flags['min-amount']);
  if (flags['max-amount'] !== undefined) body.max_amount = amountFlag('max-amount', flags['max-amount']);
  if (flags['payout-fee'] !== undefined) body.payout_fee = amountFlag('payout-fee', flags['payout-fee']);
  if (flags.confirmations !== undefined) body.min_confirmations = integerFlag('confirmations', flags.confirmations);
  return body;
}

/** The POST body of `currencies add`: COIN:NETWORK, the chain and the flags given; the server fills the rest from the chain. */
function newCurrency(ref: string, flags: Flags): Record<string, unknown> {
  const match = /^([A-Za-z0-9]{1,12}):([A-Za-z0-9]{1,12})$/.exec(ref);
  if (match === null) throw new UsageError(`"${ref}" is not COIN:NETWORK (e.g. PYUSD:ERC20)`);
  for (const required of ['chain', 'name', 'decimals', 'min-amount', 'max-amount'] as const) {
    if (flags[required] === undefined) throw new UsageError(`currencies add needs --${required}`);
  }
  const body: Record<string, unknown> = {
    coin: (match[1] as string).toUpperCase(),
    network: (match[2] as string).toUpperCase(),
    chain: String(flags.chain).toUpperCase(),
    name: flags.name,
    decimals: integerFlag('decimals', flags.decimals ?? ''),
    ...currencyChanges(flags),
  };
  if (flags.contract !== undefined) body.token_contract = flags.contract;
  if (flags['price-symbol'] !== undefined) body.price_symbol = String(flags['price-symbol']).toUpperCase();
  return body;
}

export const currencyCommands: readonly Command[] = [
  {
    words: ['currencies', 'add'],
    args: ['<COIN:NETWORK>'],
    flags: ['chain', 'name', 'decimals', 'contract', 'price-symbol', 'min-amount', 'max-amount', 'payout-fee', 'confirmations', 'active', 'deposit', 'withdraw'],
    async run(context, [ref = ''], flags) {
      const response = await context.api.send('POST', '/admin/v1/currencies', newCurrency(ref, flags));
      printResponse(context, response, (body) => `added ${symbol(asRecord(body))}\n${fields(asRecord(body), CURRENCY_FIELDS)}`);
    },
  },
  {
    words: ['currencies', 'list'],
    args: [],
    flags: [],
    async run(context) {
      const { response, currencies } = await listCurrencies(context.api);
      printResponse(context, response, () =>
        table(
          ['CURRENCY', 'NAME', 'ACTIVE', 'DEPOSIT', 'WITHDRAW', 'MIN', 'MAX', 'PAYOUT_FEE', 'CONFIRMATIONS', 'ID'],
          currencies.map((c) => [
            symbol(c),
            ...[c.name, c.is_active, c.is_deposit_enabled, c.is_withdraw_enabled].map(cell),
            ...[c.min_amount, c.max_amount, c.payout_fee, c.min_confirmations, c.id].map(cell),
          ]),
        ),
      );
    },
  },
  {
    words: ['currencies', 'update'],
    args: ['<currency-id | COIN:NETWORK>'],
    flags: ['active', 'deposit', 'withdraw', 'min-amount', 'max-amount', 'payout-fee', 'confirmations'],
    async run(context, [ref = ''], flags) {
      // Checked before the look-up so a usage mistake costs no request.
      const changes = currencyChanges(flags);
      if (Object.keys(changes).length === 0) {
        throw new UsageError('currencies update needs at least one of --active --deposit --withdraw --min-amount --max-amount --payout-fee --confirmations');
      }
      const id = await resolveCurrencyId(context.api, ref);
      const response = await context.api.send('PATCH', `/admin/v1/currencies/${encodeURIComponent(id)}`, changes);
      printResponse(context, response, (body) => `updated ${symbol(asRecord(body))}\n${fields(asRecord(body), CURRENCY_FIELDS)}`);
    },
  },
];
