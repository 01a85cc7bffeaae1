/**
 * The one log line of each inbound delivery. Accepted deliveries are logged at
 * `info` with what they matched; refused ones at `warn` with why and the status answered.
 *
 * What a line may hold: org, source, ids, the event key, counts and the platform's own reasons.
 * Never a secret, a signature or anything of the payload — which is why a refusal's reason is
 * a fixed word and its `detail` is kept only where the text is the platform's own (a JSON
 * parser's message quotes the body, so a malformed body is logged as `malformed_json` alone).
 * Nothing is built when the logger would drop the line.
 * @module
 */
import { isPlatformError } from '../kernel/errors.js';
import { logsAt, type Logger } from '../ports/logger.js';
import type { DeliveryRecord } from '../schemas/delivery.js';
import { StorageUnavailableError } from '../ports/storage.js';
import type { VerifyFailure } from '../signatures/types.js';
import { header, type RequestHeaders } from './request-headers.js';
import { traceFields } from '../telemetry/tracing.js';

/**
 * Refusals of a body (400), by the start of their message: the reason, and whether the message
 * may be logged. An allow-list: a message not listed is logged as `bad_request` with no detail,
 * since a parser's message may quote the body.
 */
const BODY_REFUSALS: readonly (readonly [prefix: string, reason: string, keepMessage: boolean])[] = [
  ['Request body is not valid UTF-8', 'invalid_utf8', false],
  ['Request body JSON is nested deeper', 'json_too_deep', true],
  ['Request body is not valid JSON', 'malformed_json', false],
  ['X-GitHub-Event', 'bad_github_event', true],
  ['form-encoded GitHub delivery', 'malformed_form_body', true],
  ['form-encoded request has no payload', 'malformed_form_body', true],
];

/** One line for a delivery that was stored (matched, unmatched, ignored or duplicate). */
export function logDelivery(logger: Logger, delivery: DeliveryRecord, duplicateOf: string | null): void {
  if (!logsAt(logger, 'info')) return;
  const status = duplicateOf === null ? delivery.status : 'duplicate';
  const line: Record<string, unknown> = {
    kind: 'delivery',
    orgId: delivery.org_id,
    source: delivery.source,
    deliveryId: delivery.id,
    providerDeliveryId: delivery.provider_delivery_id,
    eventKey: delivery.event_key,
    status,
    matched: duplicateOf === null ? delivery.runs_created.length : 0,
    runIds: duplicateOf === null ? delivery.runs_created : [],
    ...traceFields(),
  };
  if (duplicateOf !== null) line.duplicateOf = duplicateOf;
  else if (delivery.detail !== null) line.detail = delivery.detail;
  if (delivery.replay_of) line.replayOf = delivery.replay_of;
  logger.info(line, `delivery ${status}`);
}

/** One line for a GitHub delivery that reached no linked org: accepted, and nothing stored. */
export function logUnroutedGithubDelivery(logger: Logger, eventKey: string, headers: RequestHeaders): void {
  if (!logsAt(logger, 'info')) return;
  const providerDeliveryId = header(headers, 'x-github-delivery')?.trim().slice(0, 200) || null;
  logger.info(
    {
      kind: 'delivery',
      orgId: null,
      source: 'github',
      deliveryId: null,
      providerDeliveryId,
      eventKey,
      status: 'unrouted',
      matched: 0,
      runIds: [],
      ...traceFields(),
    },
    'delivery unrouted: no org is linked to its installation or accounts',
  );
}

/**
 * One line for a refused request: the status it was answered with and why. `orgId` is `null` for
 * the GitHub endpoint, whose orgs are known only after verification. A 5xx is logged here too
 * (as `storage_unavailable` or `internal_error`); the HTTP layer logs its error and stack.
 */
export function logRefusal(logger: Logger, error: unknown, orgId: string | null, source: string): void {
  const status = isPlatformError(error) ? error.status : error instanceof StorageUnavailableError ? 503 : 500;
  if (!logsAt(logger, 'warn')) return;
  const { reason, detail } = refusal(error);
  const line: Record<string, unknown> = { kind: 'delivery', orgId, source, status: 'refused', httpStatus: status, reason, ...traceFields() };
  if (detail !== null) line.detail = detail;
  logger.warn(line, 'delivery refused');
}

/**
 * Why, as one word, and the message where it is the platform's own fixed text: the signature
 * check's (it names a header, never a signature or a secret), the size limit's, an unknown
 * source's, and the body refusals allowed above.
 */
function refusal(error: unknown): { reason: string; detail: string | null } {
  if (!isPlatformError(error)) return { reason: error instanceof StorageUnavailableError ? 'storage_unavailable' : 'internal_error', detail: null };
  switch (error.code) {
    case 'UNAUTHORIZED':
      return { reason: signatureFailure(error.cause)?.reason ?? 'unauthorized', detail: error.message };
    case 'NOT_FOUND':
      return { reason: 'unknown_source', detail: error.message };
    case 'PAYLOAD_TOO_LARGE':
      return { reason: 'payload_too_large', detail: error.message };
    case 'BAD_REQUEST': {
      const known = BODY_REFUSALS.find(([prefix]) => error.message.startsWith(prefix));
      if (known) return { reason: known[1], detail: known[2] ? error.message : null };
      return { reason: 'bad_request', detail: null };
    }
    default:
      return { reason: error.code.toLowerCase(), detail: null };
  }
}

/** The failed verification a 401 carries as its cause (see `EventsService`). */
const signatureFailure = (cause: unknown): VerifyFailure | null =>
  typeof cause === 'object' && cause !== null && (cause as VerifyFailure).ok === false ? (cause as VerifyFailure) : null;
