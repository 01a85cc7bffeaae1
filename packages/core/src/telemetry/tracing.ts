/**
 * Traces (OpenTelemetry API only: the host installs an SDK, or nothing is recorded and this costs
 * next to nothing). Helpers the engine's spans share: run work in a span, carry a span's context
 * in a W3C `traceparent` (stored on runs and outbound messages, so work done later, in another
 * process, joins the trace that caused it), and name the current span in log lines.
 *
 * Attributes never carry secrets or payload values: ids, names, counts, statuses.
 * @module
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';

export { SpanKind, type Span, type Tracer };

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** The parent; default: the active context. */
  parent?: Context;
}

/** Longest status message kept on a failed span. */
const MAX_STATUS_MESSAGE = 300;

/**
 * Runs `work` in a new active span and ends it: an error thrown marks the span failed (its
 * message, cut short, as the status; no stack) and is thrown on.
 */
export async function inSpan<T>(tracer: Tracer, name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` failed with `error`'s message (cut short). */
export function failSpan(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, MAX_STATUS_MESSAGE) });
}

/** The W3C `traceparent` of `ctx`'s span (default: the active one), or `null` when nothing is traced. */
export function traceparentOf(ctx: Context = context.active()): string | null {
  const span = trace.getSpan(ctx);
  if (!span?.spanContext || !trace.isSpanContextValid(span.spanContext())) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  // Without a registered propagator, `inject` writes nothing: spell the W3C header ourselves.
  if (carrier.traceparent) return carrier.traceparent;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The context a stored or received `traceparent` names, as a remote parent; the root context for
 * none or a malformed one (a bad header from a sender never fails its delivery).
 */
export function contextOf(traceparent: string | null | undefined, base: Context = ROOT_CONTEXT): Context {
  if (!traceparent) return base;
  const match = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (!match) return base;
  const spanContext = { traceId: match[1] as string, spanId: match[2] as string, traceFlags: Number.parseInt(match[3] as string, 16), isRemote: true };
  if (!trace.isSpanContextValid(spanContext)) return base;
  return trace.setSpanContext(base, spanContext);
}

/**
 * The parent of work an inbound request starts: the active span when the host traces its HTTP
 * server (its instrumentation continued the sender's `traceparent` already), else the sender's
 * `traceparent` header, else a new trace.
 */
export function inboundParent(headers: Readonly<Record<string, string | string[] | undefined>>): { parent: Context; kind: SpanKind } {
  const active = context.active();
  if (trace.getSpan(active)?.isRecording()) return { parent: active, kind: SpanKind.INTERNAL };
  const header = headers.traceparent;
  return { parent: contextOf(Array.isArray(header) ? header[0] : header, active), kind: SpanKind.SERVER };
}

/** `trace_id` and `span_id` of the active span for a log line; nothing when no span records. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
