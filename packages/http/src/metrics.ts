/**
 * `@agent-platform/http/metrics`: the platform's metrics for Prometheus. {@link createPrometheusMetrics}
 * gives an OpenTelemetry `MeterProvider` to hand to the platform (and the built-in agent), and a
 * `node:http` handler answering a scrape in Prometheus' text format, to mount on any server:
 * Fastify, Express, plain `node:http`. The OpenTelemetry SDK is loaded by this entry only; the
 * package's other entries use the OpenTelemetry API alone.
 * @module
 */
export {
  createPrometheusMetrics,
  PROMETHEUS_CONTENT_TYPE,
  type MetricsHandler,
  type PrometheusMetrics,
  type PrometheusMetricsOptions,
} from './metrics/prometheus.js';
