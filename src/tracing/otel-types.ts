/**
 * OpenTelemetry's types, for the modules that must not load OpenTelemetry itself until tracing
 * starts (tracing.ts): type-only, erased by the compiler.
 */
export type { Context, Span, Tracer } from '@opentelemetry/api';
export type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
