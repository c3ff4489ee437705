import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';

/** Counts the statements that read or write `table`, through a Kysely plugin on the app's database. */
export class TableQueryCounter implements KyselyPlugin {
  count = 0;
  constructor(private readonly table: string) {}

  /** For buildTestApp's `wrapDatabase`: the same database, every query seen by this counter. */
  wrap = (handle: DatabaseHandle): DatabaseHandle => ({ ...handle, db: handle.db.withPlugin(this) });

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
