/**
 * Telemetry: traces and metrics through the OpenTelemetry API.
 * @module
 */
export { BoundedLabel, OTHER_LABEL } from './bounded-label.js';
export { CoreMetrics, LABEL_LIMITS, type IngestOutcome, type OutboundResult, type QueueGauges } from './metrics.js';
export { createTelemetry, INSTRUMENTATION_SCOPE, type Telemetry, type TelemetryOptions } from './telemetry.js';
export { contextOf, failSpan, inboundParent, inSpan, traceFields, traceparentOf, type SpanOptions } from './tracing.js';
