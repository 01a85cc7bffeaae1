/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would be: `POST /v1/traces` with
 * `application/x-protobuf` (gzip or not), decoded with the official OpenTelemetry protos
 * (`@opentelemetry/otlp-transformer`'s generated code), answered 200 with an empty
 * `ExportTraceServiceResponse`. The spans received are kept, flattened.
 * @module
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';

const protos: any = createRequire(import.meta.url)('otlp-proto-decoder/build/src/generated/root.js');
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = protos.opentelemetry.proto.collector.trace.v1;

/** A span as received, with ids in hex and attribute values as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** `''` for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message: string };
  scope: string;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`): `http://127.0.0.1:<port>`. */
  url: string;
  readonly spans: ReceivedSpan[];
  /** Requests that were not a decodable `POST /v1/traces`, for failure messages. */
  readonly refused: string[];
  close(): Promise<void>;
}

const hex = (bytes: Uint8Array | null | undefined) => (bytes && bytes.length > 0 ? Buffer.from(bytes).toString('hex') : '');

function plain(value: any): unknown {
  const has = (field: string) => value && Object.hasOwn(value, field);
  if (has('stringValue')) return value.stringValue;
  if (has('boolValue')) return value.boolValue;
  if (has('intValue')) return Number(String(value.intValue)); // a Long when long.js is there
  if (has('doubleValue')) return value.doubleValue;
  if (has('bytesValue')) return hex(value.bytesValue);
  if (has('arrayValue')) return (value.arrayValue.values ?? []).map(plain);
  if (has('kvlistValue')) return attributesOf(value.kvlistValue.values);
  return null;
}

function attributesOf(list: any[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, plain(entry.value)]));
}

/** Flattens a decoded `ExportTraceServiceRequest` into its spans. */
export function spansOf(request: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          events: (span.events ?? []).map((event: any) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          scope: scopeSpans.scope?.name ?? '',
          resource,
        });
      }
    }
  }
  return spans;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = createServer(async (request, response) => {
    const type = request.headers['content-type'] ?? '';
    if (request.method !== 'POST' || request.url !== '/v1/traces' || !type.startsWith('application/x-protobuf')) {
      refused.push(`${request.method} ${request.url} ${type}`);
      request.resume();
      response.writeHead(404).end();
      return;
    }
    try {
      spans.push(...spansOf(ExportTraceServiceRequest.decode(await bodyOf(request))));
    } catch (error) {
      refused.push(`undecodable: ${error}`);
      response.writeHead(400).end();
      return;
    }
    const answer: Uint8Array = ExportTraceServiceResponse.encode(ExportTraceServiceResponse.create({})).finish();
    response.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': answer.length }).end(Buffer.from(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
