import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import type { Tracer } from './otel-types.js';
import { otel, recordError } from './tracing.js';

/**
 * A Kysely dialect whose every query is a span (`db SELECT`, with the statement text, never its
 * parameters), on PostgreSQL and PGlite alike: below Kysely, at the connection, so a failed
 * query ends its span with the error. Everything else (transactions, savepoints, releasing a
 * connection back to the pool, symbol-keyed internals included) goes to the real driver, with
 * its own connection objects.
 */
export function tracedDialect(dialect: Dialect, tracer: Tracer, system: 'postgresql'): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => tracedDriver(dialect.createDriver(), tracer, system),
  };
}

function tracedDriver(driver: Driver, tracer: Tracer, system: string): Driver {
  // The driver gets its own connection objects back: PGlite's checks a released connection by identity.
  const originals = new WeakMap<object, DatabaseConnection>();
  const original = (value: unknown): unknown => (typeof value === 'object' && value !== null ? (originals.get(value) ?? value) : value);
  return new Proxy(driver, {
    get(target, property, receiver) {
      if (property === 'acquireConnection') {
        return async () => {
          const connection = await target.acquireConnection();
          const traced = tracedConnection(connection, tracer, system);
          originals.set(traced, connection);
          return traced;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => (value as (...a: unknown[]) => unknown).apply(target, args.map(original));
    },
  });
}

function tracedConnection(connection: DatabaseConnection, tracer: Tracer, system: string): DatabaseConnection {
  const executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
    const operation = /^\s*(\w+)/.exec(query.sql)?.[1]?.toUpperCase() ?? 'QUERY';
    const attributes = { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': query.sql };
    return tracer.startActiveSpan(`db ${operation}`, { kind: otel().SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await connection.executeQuery<R>(query);
      } catch (error) {
        recordError(span, error);
        throw error;
      } finally {
        span.end();
      }
    });
  };
  return new Proxy(connection, {
    get(target, property, receiver) {
      if (property === 'executeQuery') return executeQuery;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value.bind(target) as unknown) : value;
    },
  });
}
