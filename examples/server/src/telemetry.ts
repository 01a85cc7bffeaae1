/**
 * The server's OpenTelemetry SDK, started before the platform is created (the metrics API has no
 * stand-in that picks up a provider registered later):
 *
 * - Traces: with `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, a
 *   `NodeTracerProvider` is registered globally (AsyncLocalStorage context, W3C trace context)
 *   and exports in batches over OTLP/HTTP (protobuf); the exporter reads the standard `OTEL_*`
 *   variables (headers, timeout, `OTEL_BSP_*`) itself. Without them nothing is installed and
 *   spans cost next to nothing.
 * - Metrics: a Prometheus `MeterProvider` (`@agent-platform/http/metrics`), registered globally,
 *   always on unless `AGENT_PLATFORM_METRICS=off`. Its handler is mounted at `/metrics` on the
 *   API port, or served on `AGENT_PLATFORM_METRICS_PORT` (a worker's only way to serve them).
 *
 * The resource is `service.name` (`OTEL_SERVICE_NAME`, default `agent-platform`) and
 * `service.version`, plus `OTEL_RESOURCE_ATTRIBUTES`.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { diag, DiagLogLevel, metrics, trace, type DiagLogFunction } from '@opentelemetry/api';
import type { TelemetryOptions } from '@agent-platform/core';
import { createPrometheusMetrics, type MetricsHandler } from '@agent-platform/http/metrics';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';

/** `service.name` when `OTEL_SERVICE_NAME` sets none. */
export const DEFAULT_SERVICE_NAME = 'agent-platform';

const SERVICE_VERSION: string = createRequire(import.meta.url)('../package.json').version;

export interface ServerTelemetry {
  /** For `createAgentPlatform({ telemetry })` and the built-in agent: the providers started here (also the global ones). */
  options: TelemetryOptions;
  /** Serves `/metrics` in Prometheus' text format; `null` with `AGENT_PLATFORM_METRICS=off`. */
  metricsHandler: MetricsHandler | null;
  /** Whether `/metrics` belongs on the API's port (metrics on, no `AGENT_PLATFORM_METRICS_PORT`). */
  metricsOnApiPort: boolean;
  /** Flushes the spans not yet exported and stops the providers (and the metrics port). Call after the platform stops. */
  shutdown(): Promise<void>;
}

export type TelemetryConfig = Pick<ServerConfig, 'metrics' | 'metricsPort' | 'otlpTraces' | 'host'>;

/** The resource spans and metrics describe: `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` win over the defaults. */
export function serviceResource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME, [ATTR_SERVICE_VERSION]: SERVICE_VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
}

/**
 * Starts tracing and metrics as `config` says and registers them globally. Call once, before
 * the platform (and the agent runner) is created.
 */
export async function startTelemetry(config: TelemetryConfig, logger: Logger): Promise<ServerTelemetry> {
  routeDiagnostics(logger);
  const resource = serviceResource();
  let tracerProvider: NodeTracerProvider | null = null;
  if (config.otlpTraces) {
    tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
    tracerProvider.register();
    logger.info({ service: resource.attributes[ATTR_SERVICE_NAME] }, 'tracing: spans are exported over OTLP');
  }
  const prometheus = config.metrics ? createPrometheusMetrics({ resource }) : null;
  if (prometheus) metrics.setGlobalMeterProvider(prometheus.meterProvider);
  let metricsServer: Server | null = null;
  if (prometheus && config.metricsPort !== null) metricsServer = await serveMetrics(prometheus.handler, config.metricsPort, config.host, logger);

  let stopped: Promise<void> | null = null;
  return {
    options: { ...(tracerProvider ? { tracerProvider } : {}), ...(prometheus ? { meterProvider: prometheus.meterProvider } : {}) },
    metricsHandler: prometheus?.handler ?? null,
    metricsOnApiPort: prometheus !== null && config.metricsPort === null,
    shutdown() {
      stopped ??= (async () => {
        if (metricsServer) await new Promise<void>((resolve) => metricsServer?.close(() => resolve()));
        // Each on its own: a collector that is down must not keep the metrics provider running.
        const results = await Promise.allSettled([tracerProvider?.shutdown(), prometheus?.shutdown()]);
        for (const result of results) if (result.status === 'rejected') logger.warn({ err: result.reason }, 'telemetry did not shut down cleanly');
        trace.disable();
        metrics.disable();
      })();
      return stopped;
    },
  };
}

/** `/metrics` on a port of its own (a worker's, or to keep it off the API's port); anything else is a 404. */
export async function serveMetrics(handler: MetricsHandler, port: number, host: string, logger: Logger): Promise<Server> {
  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://metrics').pathname === '/metrics') return void handler(request, response);
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: metrics are at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  logger.info({ metricsUrl: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics` }, 'metrics served on their own port');
  return server;
}

/**
 * The SDK's own warnings and errors (an export that failed: the collector down, a 401) in the
 * server's log, as messages only: their arguments may be requests with the exporter's headers.
 */
function routeDiagnostics(logger: Logger): void {
  const line =
    (level: 'warn' | 'error'): DiagLogFunction =>
    (message, ...args) => {
      const detail = args.map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : '')).filter(Boolean);
      logger[level]({ component: 'opentelemetry', ...(detail.length > 0 ? { detail: detail.join('; ').slice(0, 500) } : {}) }, message);
    };
  const quiet: DiagLogFunction = () => {};
  diag.setLogger(
    { error: line('error'), warn: line('warn'), info: quiet, debug: quiet, verbose: quiet },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}
