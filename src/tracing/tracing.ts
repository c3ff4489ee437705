import { context, propagation, trace, SpanKind, SpanStatusCode, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * Tracing (OpenTelemetry): off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and then a request's
 * trace runs API → database → worker step → webhook delivery. The worker and the webhook sender
 * work after the request has answered, in other processes: each order event and webhook event
 * stores the W3C `traceparent` of the span that wrote it, and the step or delivery that follows
 * continues that trace (docs/operations.md, "Tracing").
 *
 * Off costs nothing: no provider is registered, the Fastify plugin and the database wrapper are
 * not installed, and the few call sites ask `tracingEnabled()` (a boolean) before doing any work.
 */

let provider: NodeTracerProvider | undefined;
let tracer: Tracer | undefined;

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's OTLP/HTTP origin (`/v1/traces` is added). */
  endpoint?: string | undefined;
  /** The traces' service name: config.otelServiceName (OTEL_SERVICE_NAME), else the process's role (`exchange-api`, `exchange-worker`). */
  serviceName: string;
  /** Instead of OTLP: where spans go (the tests' in-memory exporter), each exported as it ends. */
  processor?: SpanProcessor;
}

/** Registers this process's tracer provider (once; a second call changes nothing). Call before the database is opened. */
export function startTracing(options: TracingOptions): void {
  if (provider !== undefined) return;
  const processor = options.processor ?? new BatchSpanProcessor(otlpExporter(options.endpoint));
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [processor],
  });
  // The global provider, the AsyncLocalStorage context manager and the W3C propagator.
  provider.register();
  tracer = trace.getTracer('exchange-partner-api');
}

function otlpExporter(endpoint: string | undefined): SpanExporter {
  if (endpoint === undefined) throw new Error('tracing needs OTEL_EXPORTER_OTLP_ENDPOINT or a span processor');
  return new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
}

/** Sends what is buffered and stops; part of the graceful stop. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  tracer = undefined;
  if (stopping === undefined) return;
  await stopping.shutdown();
  // Unregistered, so a later start (the tests start and stop in one process) registers anew.
  trace.disable();
  context.disable();
  propagation.disable();
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/** The W3C traceparent of the active span, to store with what a later step continues; null when off. */
export function currentTraceParent(): string | null {
  if (tracer === undefined) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * Runs `work` in a span named `name`, continuing the trace of `traceParent` (stored with an order
 * or webhook event) when there is one; without tracing, just runs it.
 */
export async function withSpan<T>(name: string, traceParent: string | null | undefined, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  if (tracer === undefined) return work();
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

export function recordError(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (error instanceof Error) span.recordException(error);
}
