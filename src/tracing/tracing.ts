import type * as OtelApiModule from '@opentelemetry/api';
import type { Context, Span, SpanProcessor, Tracer } from './otel-types.js';

/**
 * Tracing (OpenTelemetry): off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and then a request's
 * trace runs API → database → worker step → webhook delivery. The worker and the webhook sender
 * work after the request has answered, in other processes: each order event and webhook event
 * stores the W3C `traceparent` of the span that wrote it, and the step or delivery that follows
 * continues that trace (docs/operations.md, "Tracing").
 *
 * Off costs nothing: no provider is registered, the Fastify plugin and the database wrapper are
 * not installed, and the few call sites ask `tracingEnabled()` (a boolean) before doing any work.
 * Nothing of OpenTelemetry is even loaded: its API, SDK and exporter are some 250 modules, which
 * every process start (API, worker, signer, CLI) paid before they were imported only here, by
 * `startTracing`.
 */

type OtelApi = typeof OtelApiModule;

let provider: { shutdown(): Promise<void> } | undefined;
let tracer: Tracer | undefined;
/** The OpenTelemetry API module, once `startTracing` has loaded it. */
let api: OtelApi | undefined;

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's OTLP/HTTP origin (`/v1/traces` is added). */
  endpoint?: string | undefined;
  /** The traces' service name: config.otelServiceName (OTEL_SERVICE_NAME), else the process's role (`exchange-api`, `exchange-worker`). */
  serviceName: string;
  /** Instead of OTLP: where spans go (the tests' in-memory exporter), each exported as it ends. */
  processor?: SpanProcessor;
}

/** Registers this process's tracer provider (once; a second call changes nothing). Call before the database is opened. */
export async function startTracing(options: TracingOptions): Promise<void> {
  if (provider !== undefined) return;
  const [loadedApi, sdk] = await Promise.all([import('@opentelemetry/api'), import('./tracing-sdk.js')]);
  if (provider !== undefined) return;
  provider = sdk.registerProvider(options.serviceName, options.processor, options.endpoint);
  api = loadedApi;
  tracer = api.trace.getTracer('exchange-partner-api');
}

/** Sends what is buffered and stops; part of the graceful stop. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  tracer = undefined;
  const loaded = api;
  api = undefined;
  if (stopping === undefined || loaded === undefined) return;
  await stopping.shutdown();
  // Unregistered, so a later start (the tests start and stop in one process) registers anew.
  loaded.trace.disable();
  loaded.context.disable();
  loaded.propagation.disable();
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/** The W3C traceparent of the active span, to store with what a later step continues; null when off. */
export function currentTraceParent(): string | null {
  if (api === undefined) return null;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * Runs `work` in a span named `name`, continuing the trace of `traceParent` (stored with an order
 * or webhook event) when there is one; without tracing, just runs it.
 */
export async function withSpan<T>(name: string, traceParent: string | null | undefined, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  if (tracer === undefined || api === undefined) return work();
  const { context, propagation, SpanKind } = api;
  const parent: Context = traceParent === null || traceParent === undefined ? context.active() : propagation.extract(context.active(), { traceparent: traceParent });
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      recordError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The tracer, for the database wrapper; undefined when tracing is off. */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/** The OpenTelemetry API that `startTracing` loaded; only asked for while tracing is on (inside a span). */
export function otel(): OtelApi {
  if (api === undefined) throw new Error('tracing is off');
  return api;
}

export function recordError(span: Span, error: unknown): void {
  span.setStatus({ code: otel().SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (error instanceof Error) span.recordException(error);
}
