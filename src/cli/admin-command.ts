import type { Flags, FlagName } from './admin-args.js';
import { parseBody, type AdminClient, type ApiResponse } from './admin-client.js';
import { CliError } from './admin-errors.js';

export interface CommandContext {
  api: AdminClient;
  /** --json: print the API's body as is instead of the human rendering. */
  json: boolean;
  /** One block of output on stdout. */
  print(text: string): void;
}

/** One `<group> <action>` command, or a one-word one (`health`). */
export interface Command {
  words: readonly [group: string, action: string] | readonly [group: string];
  /** Placeholders of the positional arguments, e.g. `<partner-id>`; each is required. */
  args: readonly string[];
  /** The options it accepts besides the global ones. */
  flags: readonly FlagName[];
  run(context: CommandContext, args: readonly string[], flags: Flags): Promise<void>;
}

export type ApiRecord = Readonly<Record<string, unknown>>;

/** Prints the body as sent under --json, else the human rendering of the parsed body. */
export function printResponse(context: CommandContext, response: ApiResponse, human: (body: unknown) => string): void {
  context.print(context.json ? response.text : human(parseBody(response)));
}

export function asRecord(value: unknown): ApiRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError('the API answered with an unexpected body (expected an object)');
  }
  return value as ApiRecord;
}

export function asList(value: unknown): ApiRecord[] {
  if (!Array.isArray(value)) throw new CliError('the API answered with an unexpected body (expected a list)');
  return value.map(asRecord);
}

/** A string field of an API record (ids, names), for messages and look-ups. */
export function text(record: ApiRecord, field: string): string {
  const value = record[field];
  if (typeof value !== 'string') throw new CliError(`the API answered without a string "${field}"`);
  return value;
}
