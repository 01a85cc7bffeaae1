/**
 * Metrics in Prometheus' text format: an OpenTelemetry SDK `MeterProvider` whose reader is a
 * Prometheus exporter that starts no server of its own, and a `node:http` handler that answers a
 * scrape with what the provider's meters hold.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { diag } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider, type MeterProviderOptions } from '@opentelemetry/sdk-metrics';

export interface PrometheusMetricsOptions {
  /**
   * The resource the metrics describe (`service.name`, `service.version`…), shown as the
   * `target_info` series. Default: the SDK's (`service.name="unknown_service:node"`).
   */
  resource?: MeterProviderOptions['resource'];
  /** SDK views (other histogram buckets, dropped attributes…). Default: none. */
  views?: MeterProviderOptions['views'];
  /** Prepended to every metric name (`myapp_` → `myapp_agent_platform_deliveries_total`). Default: none. */
  prefix?: string;
  /** Leaves out the `otel_scope_name` / `otel_scope_version` labels. Default: false (they are shown). */
  withoutScopeInfo?: boolean;
  /** Leaves out the `target_info` series. Default: false (it is shown). */
  withoutTargetInfo?: boolean;
}

/** A `node:http` request handler (also an Express handler: `app.get('/metrics', handler)`). */
export type MetricsHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

export interface PrometheusMetrics {
  /**
   * Where metrics go: give it to `createAgentPlatform({ telemetry: { meterProvider } })` and
   * `createLlmAgentRunner({ telemetry: { meterProvider } })`, or register it globally with
   * `metrics.setGlobalMeterProvider(meterProvider)` before creating them.
   */
  meterProvider: MeterProvider;
  /** Answers `GET` (and `HEAD`) with every metric in Prometheus' text format; 405 for other methods. */
  handler: MetricsHandler;
  /** The text a scrape would get now. */
  scrape(): Promise<string>;
  /** Shuts the provider down (its meters record nothing more). */
  shutdown(): Promise<void>;
}

/** Prometheus' text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * A `MeterProvider` read by Prometheus, and the handler that serves it. Mount the handler where
 * Prometheus scrapes (`/metrics`); it checks no credential, so keep that path off the public
 * internet (bind it to a private interface, or have the proxy in front refuse it).
 *
 * @example Fastify
 * ```ts
 * import { createPrometheusMetrics } from '@agent-platform/http/metrics';
 *
 * const { meterProvider, handler } = createPrometheusMetrics();
 * const platform = createAgentPlatform({ ...options, telemetry: { meterProvider } });
 * app.get('/metrics', (request, reply) => {
 *   reply.hijack(); // the handler writes the raw response itself
 *   void handler(request.raw, reply.raw);
 * });
 * ```
 *
 * @example Express
 * ```ts
 * const { meterProvider, handler } = createPrometheusMetrics();
 * const platform = createAgentPlatform({ ...options, telemetry: { meterProvider } });
 * app.get('/metrics', handler); // before the API's not-found handler
 * ```
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const exporter = new PrometheusExporter({
    preventServerStart: true,
    prefix: options.prefix,
    withoutScopeInfo: options.withoutScopeInfo,
    withoutTargetInfo: options.withoutTargetInfo,
  });
  const serializer = new PrometheusSerializer(options.prefix, false, undefined, options.withoutTargetInfo, options.withoutScopeInfo);
  const meterProvider = new MeterProvider({ resource: options.resource, views: options.views, readers: [exporter] });

  const scrape = async (): Promise<string> => {
    const { resourceMetrics, errors } = await exporter.collect();
    // A failing callback (a gauge whose storage is down) loses its own series, not the scrape.
    if (errors.length > 0) diag.error('agent-platform metrics: collection errors', ...errors);
    return serializer.serialize(resourceMetrics);
  };

  const handler: MetricsHandler = async (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    let text: string;
    try {
      text = await scrape();
    } catch (error) {
      diag.error('agent-platform metrics: scrape failed', error);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('# metrics collection failed\n');
      return;
    }
    response.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
    response.end(request.method === 'HEAD' ? undefined : text);
  };

  return { meterProvider, handler, scrape, shutdown: () => meterProvider.shutdown() };
}
