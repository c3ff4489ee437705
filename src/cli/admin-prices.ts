import { decimalAmount } from './admin-args.js';
import { asList, asRecord, printResponse, text, type Command } from './admin-command.js';
import { UsageError } from './admin-errors.js';
import { cell, table } from './admin-table.js';

/** The API's own pattern for a price symbol, checked here so a typo costs no request. */
const SYMBOL = /^[A-Za-z0-9]{1,12}$/;

/** A list of source names as one cell: comma separated, "-" when empty. */
function names(value: unknown): string {
  return Array.isArray(value) && value.length > 0 ? value.map(cell).join(',') : '-';
}

export const priceCommands: readonly Command[] = [
  {
    words: ['prices', 'list'],
    args: [],
    flags: [],
    async run(context) {
      printResponse(context, await context.api.send('GET', '/admin/v1/prices'), (body) =>
        table(
          ['SYMBOL', 'STATIC_USD', 'STATIC_UPDATED_AT', 'LIVE_USD', 'SOURCES', 'OUTLIERS'],
          asList(body).map((p) => [
            ...[p.symbol, p.static_price_usd, p.static_updated_at, p.price_usd].map(cell),
            names(p.sources),
            names(p.outliers),
          ]),
        ),
      );
    },
  },
  {
    words: ['prices', 'set'],
    args: ['<COIN>', '<usd>'],
    flags: [],
    async run(context, [coin = '', usd = '']) {
      if (!SYMBOL.test(coin)) throw new UsageError(`<COIN> must be a price symbol like BTC, got "${coin}"`);
      // Sent as the string typed, so the API stores exactly that decimal.
      const price = decimalAmount('<usd>', usd);
      const response = await context.api.send('PUT', `/admin/v1/prices/${encodeURIComponent(coin)}`, { price_usd: price });
      printResponse(context, response, (body) => {
        const row = asRecord(body);
        return (
          `static price of ${text(row, 'symbol')} is now ${cell(row.price_usd)} USD (updated_at ${cell(row.updated_at)})\n` +
          'quotes use the median of fresh sources: see prices list'
        );
      });
    },
  },
];
