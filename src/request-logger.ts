import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

/** pino loggers have isLevelEnabled; Fastify's logger type does not promise it. */
type ParentLogger = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * Fastify's `childLoggerFactory`: a request's logger (`request.log`, bound to its reqId) that
 * makes the real pino child only when the request first logs.
 *
 * Why: Fastify makes a child per request, and a pino child with our redaction paths runs every
 * binding through the redactor and serialiser. Under load that was ~7 % of the server's CPU on
 * GET /currencies (bench/README.md), for a logger most requests never use (with
 * LOG_REQUESTS=false only errors and warnings are written). Output is identical: the first call
 * makes the same child Fastify would have made.
 */
export function lazyChildLoggerFactory(
  this: unknown,
  logger: ParentLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}

class LazyChildLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindingsOf: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The real child; Fastify passes `{}` options unless a route sets a level or serializers. */
  private get target(): FastifyBaseLogger {
    this.made ??= Object.keys(this.options).length === 0
      ? this.parent.child(this.bindingsOf)
      : this.parent.child(this.bindingsOf, this.options);
    return this.made;
  }

  /** A level the parent would drop is dropped here without making the child (unless a route changed the level). */
  private enabled(level: string): boolean {
    if (this.made !== undefined || this.options.level !== undefined) return true;
    return this.parent.isLevelEnabled?.(level) ?? true;
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.target.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.target.child(bindings, options);
  }

  // Prototype methods, not per-instance closures: one of these objects is made per request.
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    if (!this.enabled(level)) return;
    const method: (...values: unknown[]) => void = this.target[level];
    method.apply(this.target, args);
  }
}
