import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * The OpenTelemetry SDK and OTLP exporter: loaded by `startTracing` (tracing.ts) only when tracing
 * is on, never by a process that traces nothing.
 */
export function registerProvider(serviceName: string, processor: SpanProcessor | undefined, endpoint: string | undefined): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [processor ?? new BatchSpanProcessor(otlpExporter(endpoint))],
  });
  // The global provider, the AsyncLocalStorage context manager and the W3C propagator.
  provider.register();
  return provider;
}

function otlpExporter(endpoint: string | undefined): SpanExporter {
  if (endpoint === undefined) throw new Error('tracing needs OTEL_EXPORTER_OTLP_ENDPOINT or a span processor');
  return new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
}
