/**
 * The span and metrics of one inbound request (OpenTelemetry): a span per request —
 * `agent_platform.ingest`, continuing the sender's `traceparent` (or the host's HTTP span) — with
 * its source, org, event key, outcome, delivery id and how many runs it created; and the
 * `agent_platform.deliveries` counter and ingest-latency histogram by source and outcome. The
 * runs it creates carry the span's context, so their execution joins this trace.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import type { IngestResult } from '../schemas/delivery.js';
import type { IngestAnswer } from '../schemas/webhook.js';
import type { IngestOutcome } from '../telemetry/metrics.js';
import { inboundParent, inSpan, type Span } from '../telemetry/tracing.js';
import type { RequestHeaders } from './request-headers.js';
import { isPlatformError } from '../kernel/errors.js';

/** The `source` label of requests refused because their source is not registered (or disabled). */
export const UNKNOWN_SOURCE = '(unknown)';

/** What a recorded request tells its span: the delivery's status before dedup, and its event key. */
export interface IngestNote {
  status: 'matched' | 'unmatched' | 'ignored';
  eventKey: string | null;
}

/** Runs `work` (one inbound request) in its span, and counts it. A host's handshake (Slack's URL verification) counts as ignored. */
export async function inIngestSpan<Answer extends IngestAnswer>(
  context: ServiceContext,
  target: { orgId: string | null; source: string; headers: RequestHeaders },
  work: (note: (note: IngestNote) => void) => Promise<Answer>,
): Promise<Answer> {
  const started = performance.now();
  const { tracer, metrics } = context.telemetry;
  const { parent, kind } = inboundParent(target.headers);
  const attributes: Record<string, string> = { 'agent_platform.source': target.source };
  if (target.orgId !== null) attributes['agent_platform.org.id'] = target.orgId;
  return inSpan(tracer, 'agent_platform.ingest', { parent, kind, attributes }, async (span) => {
    let noted: IngestNote | null = null;
    let answer: Answer;
    try {
      answer = await work((note) => {
        noted = note;
      });
    } catch (error) {
      span.setAttribute('agent_platform.delivery.outcome', 'refused');
      // An unknown source's name is whatever the caller put in the URL: not a label value.
      const known = !(isPlatformError(error) && error.code === 'NOT_FOUND');
      metrics.delivery(known ? target.source : UNKNOWN_SOURCE, 'refused', (performance.now() - started) / 1000);
      throw error;
    }
    const given: IngestAnswer = answer;
    const result: IngestResult = 'challenge' in given ? { received: true, matched: 0, runs_created: [] } : given;
    const outcome = 'challenge' in given ? 'ignored' : outcomeOf(result, noted);
    describe(span, result, outcome, noted);
    metrics.delivery(target.source, outcome, (performance.now() - started) / 1000);
    return answer;
  });
}

function outcomeOf(result: IngestResult, note: IngestNote | null): IngestOutcome {
  if (result.duplicate) return 'duplicate';
  if (result.matched > 0) return 'matched';
  return note?.status === 'ignored' ? 'ignored' : 'unmatched';
}

function describe(span: Span, result: IngestResult, outcome: IngestOutcome, note: IngestNote | null): void {
  if (!span.isRecording()) return;
  span.setAttribute('agent_platform.delivery.outcome', outcome);
  span.setAttribute('agent_platform.delivery.matched', result.matched);
  if (result.delivery_id) span.setAttribute('agent_platform.delivery.id', result.delivery_id);
  if (note?.eventKey) span.setAttribute('agent_platform.event_key', note.eventKey);
}
