import { readFile } from 'node:fs/promises';
import { stringify } from 'lossless-json';
import { parseBody, type ApiResponse } from './admin-client.js';
import { asRecord, printResponse, type ApiRecord, type Command } from './admin-command.js';
import { ApiFailure, CliError, UsageError } from './admin-errors.js';
import { cell } from './admin-table.js';

/** The API's largest batch (maxItems of POST /admin/v1/address-pools/{chain}). */
const BATCH_SIZE = 1000;
/** Kept under the API's 64 KiB body limit even when addresses are long. */
const BATCH_BYTES = 48 * 1024;
const CHAIN = /^[A-Za-z0-9]{1,12}$/;

const poolPath = (chain: string) => `/admin/v1/address-pools/${encodeURIComponent(chain)}`;
const state = (pool: ApiRecord) => `${cell(pool.chain)} pool: ${cell(pool.available)} available, ${cell(pool.assigned)} assigned`;
/** A pool with its threshold (GET a pool, PUT its threshold). */
const stateWithThreshold = (pool: ApiRecord) =>
  `${state(pool)}; low below ${cell(pool.low_at)}${pool.low_at_default === true ? ' (the default)' : ''}${pool.low === true ? ': LOW' : ''}`;

function checkChain(chain: string): void {
  if (!CHAIN.test(chain)) throw new UsageError(`<CHAIN> must be a chain like SOL, got "${chain}"`);
}

/** One address a line; blank lines and `#` comments (whole line or after an address) are skipped. */
export function parseAddressFile(content: string): string[] {
  return content
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '');
}

/** Batches of at most BATCH_SIZE addresses and about BATCH_BYTES of JSON. */
export function batches(addresses: readonly string[]): string[][] {
  const result: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const address of addresses) {
    const size = Buffer.byteLength(JSON.stringify(address)) + 1;
    if (current.length > 0 && (current.length >= BATCH_SIZE || bytes + size > BATCH_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(address);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

async function readAddresses(file: string): Promise<string[]> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const addresses = parseAddressFile(content);
  if (addresses.length === 0) throw new CliError(`${file} has no addresses (one a line; blank lines and # comments are skipped)`);
  return addresses;
}

export const poolCommands: readonly Command[] = [
  {
    words: ['addresses', 'resync'],
    args: [],
    flags: [],
    async run(context) {
      printResponse(context, await context.api.send('POST', '/admin/v1/addresses/resync'), (body) =>
        (asRecord(body).chains as ApiRecord[])
          .map((chain) => `${cell(chain.chain)}: next index ${cell(chain.next_index_before)} -> ${cell(chain.next_index)} (highest known ${cell(chain.highest_index_known)})`)
          .join('\n'),
      );
    },
  },
  {
    words: ['pools', 'show'],
    args: ['<CHAIN>'],
    flags: [],
    async run(context, [chain = '']) {
      checkChain(chain);
      printResponse(context, await context.api.send('GET', poolPath(chain)), (body) => stateWithThreshold(asRecord(body)));
    },
  },
  {
    words: ['pools', 'alert'],
    args: ['<CHAIN>', '<N|default>'],
    flags: [],
    async run(context, [chain = '', threshold = '']) {
      checkChain(chain);
      if (threshold !== 'default' && !/^[0-9]{1,10}$/.test(threshold)) throw new UsageError(`<N|default> must be a whole number or "default", got "${threshold}"`);
      const lowAt = threshold === 'default' ? null : Number(threshold);
      printResponse(context, await context.api.send('PUT', `${poolPath(chain)}/alert`, { low_at: lowAt }), (body) => stateWithThreshold(asRecord(body)));
    },
  },
  {
    words: ['pools', 'load'],
    args: ['<CHAIN>', '<file>'],
    flags: [],
    async run(context, [chain = '', file = '']) {
      checkChain(chain);
      const parts = batches(await readAddresses(file));
      let added = 0;
      let skipped = 0;
      let last: { response: ApiResponse; pool: ApiRecord } | undefined;
      for (const [index, addresses] of parts.entries()) {
        let response: ApiResponse;
        try {
          response = await context.api.send('POST', poolPath(chain), { addresses });
        } catch (error) {
          if (!(error instanceof ApiFailure) || index === 0) throw error;
          // Earlier batches are in: say so, as running the load again skips them.
          throw new CliError(
            `${error.message} (batch ${index + 1} of ${parts.length}; the ${index} before it were loaded, ` +
              `${added} addresses added: fix the file and run pools load again, known addresses are skipped)`,
          );
        }
        const pool = asRecord(parseBody(response));
        added += Number(pool.added ?? 0);
        skipped += Number(pool.skipped ?? 0);
        last = { response, pool };
      }
      if (last === undefined) return;
      const { response, pool } = last;
      if (context.json) {
        // One batch is the API's body as is; several are summed into one document of the same shape.
        context.print(parts.length === 1 ? response.text : (stringify({ ...pool, added, skipped }) ?? '{}'));
        return;
      }
      context.print(
        `added ${added}, skipped ${skipped} already known or repeated (${parts.length} batch${parts.length === 1 ? '' : 'es'})\n${state(pool)}`,
      );
    },
  },
];
