/**
 * Where the engine's traces and metrics go: the providers a host gives, else the global ones
 * (registered by an OpenTelemetry SDK before the platform is created), else nowhere.
 * @module
 */
import { metrics, trace, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { CoreMetrics } from './metrics.js';

export interface TelemetryOptions {
  /** Where spans go. Default: the global tracer provider (`trace.setGlobalTracerProvider`). */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider, as it is when the platform is created. */
  meterProvider?: MeterProvider;
}

export interface Telemetry {
  readonly tracer: Tracer;
  readonly metrics: CoreMetrics;
}

/** The instrumentation scope of the engine's spans and metrics. */
export const INSTRUMENTATION_SCOPE = '@agent-platform/core';

export function createTelemetry(options: TelemetryOptions = {}): Telemetry {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE);
  return { tracer, metrics: new CoreMetrics(meter) };
}
