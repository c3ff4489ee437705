import { randomBytes } from 'node:crypto';
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';

/** A well-formed key whose id does not exist. */
export const unknownKey = (): string => `pk_${randomBytes(10).toString('hex')}.${randomBytes(32).toString('base64url')}`;

/** The key with its secret's last two characters changed (still well-formed). */
export const wrongSecret = (apiKey: string): string => `${apiKey.slice(0, -2)}${apiKey.endsWith('xx') ? 'yy' : 'xx'}`;

/** Counts the statements that read or write `table`, through a Kysely plugin on the app's database. */
export class TableQueryCounter implements KyselyPlugin {
  count = 0;
  constructor(private readonly table: string) {}

  /** For buildTestApp's `wrapDatabase`: the same database, every query seen by this counter. */
  wrap = (handle: DatabaseHandle): DatabaseHandle => ({
    db: handle.db.withPlugin(this),
    engine: handle.engine,
    ping: (timeoutMs) => handle.ping(timeoutMs),
    close: () => handle.close(),
  });

  transformQuery(args: PluginTransformQueryArgs): ReturnType<KyselyPlugin['transformQuery']> {
    if (mentionsTable(args.node, this.table)) this.count += 1;
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

/** Table names sit in IdentifierNodes (`{ kind: 'IdentifierNode', name }`) anywhere in the tree. */
function mentionsTable(node: OperationNode, table: string): boolean {
  return JSON.stringify(node).includes(`"name":${JSON.stringify(table)}`);
}

/** A distinct client address per call, so budgets per address never interfere across tests. */
export function addresses(prefix: string): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}.${Math.floor(next / 250) % 250}.${(next % 250) + 1}`;
  };
}
