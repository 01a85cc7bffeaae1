/**
 * Inbound events: custom webhook deliveries and native GitHub deliveries are
 * verified on their raw bytes, parsed, deduplicated, named, matched and recorded. The answer
 * never waits for a sandbox or an agent: matched automations get PENDING runs.
 * @module
 */
import type { AutomationIndex } from '../matching/automation-index.js';
import { PlatformError, payloadTooLarge } from '../kernel/errors.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';
import type { IngestResult } from '../schemas/delivery.js';
import type { IngestAnswer } from '../schemas/webhook.js';
import type { ServiceContext } from '../kernel/context.js';
import type { WebhooksService } from '../webhooks/webhooks-service.js';
import { verifySignature } from '../signatures/index.js';
import { logRefusal, logUnroutedGithubDelivery } from './delivery-log.js';
import { dedupIdentity, dedupIdentityOf } from './dedup.js';
import { customEventKey } from './event-key.js';
import type { CachedWebhook } from '../webhooks/webhook-cache.js';
import { sourceKindOf, type SourceKind } from '../webhooks/source-kinds.js';
import { readGithubDelivery, type GithubOrgResolver } from './github-delivery.js';
import type { RequestHeaders } from './request-headers.js';
import { decodeUtf8, parseJsonText } from './json-body.js';
import { prepareDelivery, recordDeliveries, type DeliveryRecording, type PreparedDelivery } from './record-delivery.js';
import type { TriggerMarks } from './trigger-marks.js';
import type { ActorTrust } from '../threads/actor-trust.js';
import { inIngestSpan, type IngestNote } from './ingest-span.js';

export interface InboundRequest {
  /** Header names lower-cased (as Node gives them). */
  headers: RequestHeaders;
  /** The raw body bytes, exactly as received. */
  body: Uint8Array;
}

export interface EventsOptions {
  /** Largest inbound event body, in bytes. Default 5 MiB. */
  maxBodyBytes: number;
  /** How long a delivery id (or body hash) is remembered to drop redeliveries, in seconds. Default 7 days. */
  dedupWindowSeconds: number;
  /** Tolerance for timestamped signature schemes, in seconds. Default 300. */
  signatureToleranceSeconds: number;
  /** GitHub webhook secrets (several during a rotation); none disables the GitHub endpoint (404). */
  githubWebhookSecrets: readonly string[];
  /** Which orgs a GitHub delivery reaches; the default reads the links in storage. */
  resolveGithubOrgs: GithubOrgResolver;
  /** Where `last_triggered_at` marks gather before they are written; without it they are written at once. */
  triggerMarks?: TriggerMarks | null;
  /** Who may command thread automations (asked of the code host); without it, nobody whose trust must be checked. */
  trust?: ActorTrust | null;
  /** Told of each delivery once it is recorded. */
  delivered?: DeliveryRecording['delivered'];
}

const unknownSource = () => new PlatformError('NOT_FOUND', 'Unknown or disabled webhook source');

export class EventsService {
  constructor(
    private readonly context: ServiceContext,
    private readonly index: AutomationIndex,
    private readonly webhooks: WebhooksService,
    private readonly options: EventsOptions,
  ) {}

  /**
   * `POST /api/automation/v1/events/{org_id}/{source}`, as the sender is answered: the
   * delivery's result, or, for a host's handshake (a Slack source's URL verification, once its
   * signature holds), the answer the host expects (`{challenge}`), with nothing recorded.
   */
  async answer(orgId: string, source: string, request: InboundRequest): Promise<IngestAnswer> {
    return this.receive(orgId, source, request);
  }

  /**
   * An event for a registered source: its delivery's result. Each request is logged once: the
   * delivery when it is recorded, or the refusal with its reason. A host's handshake records
   * nothing and reads as received with nothing matched ({@link answer} gives its answer).
   */
  async ingest(orgId: string, source: string, request: InboundRequest): Promise<IngestResult> {
    const answer = await this.receive(orgId, source, request);
    return 'challenge' in answer ? { received: true, matched: 0, runs_created: [] } : answer;
  }

  private async receive(orgId: string, source: string, request: InboundRequest): Promise<IngestAnswer> {
    return inIngestSpan(this.context, { orgId, source, headers: request.headers }, async (note) => {
      try {
        return await this.ingestCustom(orgId, source, request, note);
      } catch (error) {
        logRefusal(this.context.logger, error, orgId, source);
        throw error;
      }
    });
  }

  /**
   * `POST /api/automation/v1/events/github`. A delivery reaches each org linked to its
   * installation or accounts, recorded in each org's log, all in one transaction; each is
   * logged, or the refusal once.
   */
  async ingestGithub(request: InboundRequest): Promise<IngestResult> {
    return inIngestSpan(this.context, { orgId: null, source: GITHUB_SOURCE, headers: request.headers }, async (note) => {
      try {
        return await this.ingestFromGithub(request, note);
      } catch (error) {
        logRefusal(this.context.logger, error, null, GITHUB_SOURCE);
        throw error;
      }
    });
  }

  private async ingestCustom(orgId: string, source: string, request: InboundRequest, note: (note: IngestNote) => void): Promise<IngestAnswer> {
    const cached = await this.webhooks.cache.get(orgId, source);
    if (!cached?.record.enabled) throw unknownSource();
    const webhook = cached.record;
    if (request.body.byteLength > this.options.maxBodyBytes) throw payloadTooLarge(this.options.maxBodyBytes);
    this.verify(cached, request);
    const kind = sourceKindOf(webhook);
    if (kind) return this.ingestFromHost(orgId, source, kind, request, note);
    const payloadJson = decodeUtf8(request.body);
    const payload = parseJsonText(payloadJson);
    const identity = dedupIdentity(source, request.headers, request.body, webhook.delivery_id_header);
    const prepared = await prepareDelivery(
      this.context,
      this.index,
      {
        orgId,
        source,
        providerDeliveryId: identity.providerDeliveryId,
        dedupKey: identity.key,
        eventKey: customEventKey(webhook, request.headers, payload),
        payload,
        payloadJson,
      },
      this.options.trust ?? null,
    );
    const [result] = await recordDeliveries(this.context, [prepared], this.options);
    note({ status: prepared.delivery.status as IngestNote['status'], eventKey: prepared.delivery.event_key });
    return result as IngestResult;
  }

  /**
   * A verified delivery to a host's source (GitLab, Bitbucket, Slack): its JSON (a Slack
   * interactivity request's is its form's `payload`), the host's handshake answered, then named
   * and deduplicated as the host does.
   */
  private async ingestFromHost(
    orgId: string,
    source: string,
    kind: SourceKind,
    request: InboundRequest,
    note: (note: IngestNote) => void,
  ): Promise<IngestAnswer> {
    const payloadJson = kind.payloadText(request.headers, decodeUtf8(request.body));
    if (payloadJson === null) throw new PlatformError('BAD_REQUEST', 'form-encoded request has no payload field');
    const payload = parseJsonText(payloadJson);
    const handshake = kind.handshake(payload);
    if (handshake) return handshake;
    const identity = dedupIdentityOf(kind.deliveryId(request.headers, payload), source, request.body);
    const prepared = await prepareDelivery(
      this.context,
      this.index,
      {
        orgId,
        source,
        providerDeliveryId: identity.providerDeliveryId,
        dedupKey: identity.key,
        eventKey: kind.eventKey(request.headers, payload),
        payload,
        payloadJson,
      },
      this.options.trust ?? null,
    );
    const [result] = await recordDeliveries(this.context, [prepared], this.options);
    note({ status: prepared.delivery.status as IngestNote['status'], eventKey: prepared.delivery.event_key });
    return result as IngestResult;
  }

  private async ingestFromGithub(request: InboundRequest, note: (note: IngestNote) => void): Promise<IngestResult> {
    const secrets = this.options.githubWebhookSecrets;
    if (secrets.length === 0) throw new PlatformError('NOT_FOUND', 'GitHub webhooks are not configured');
    if (request.body.byteLength > this.options.maxBodyBytes) throw payloadTooLarge(this.options.maxBodyBytes);
    const verified = verifySignature({ scheme: 'github', headers: request.headers, body: request.body, secrets, now: this.context.clock.now() });
    if (!verified.ok) throw new PlatformError('UNAUTHORIZED', verified.message, { cause: verified });
    const delivery = readGithubDelivery(request.headers, request.body);
    note({ status: 'unmatched', eventKey: delivery.eventKey });
    const orgs = [...new Set(await this.options.resolveGithubOrgs(delivery))];
    if (orgs.length === 0) {
      logUnroutedGithubDelivery(this.context.logger, delivery.eventKey, request.headers);
      return { received: true, matched: 0, runs_created: [] };
    }
    const identity = dedupIdentity(GITHUB_SOURCE, request.headers, request.body, 'x-github-delivery');
    const prepared: PreparedDelivery[] = [];
    for (const orgId of orgs) {
      prepared.push(
        await prepareDelivery(
          this.context,
          this.index,
          {
            orgId,
            source: GITHUB_SOURCE,
            providerDeliveryId: identity.providerDeliveryId,
            dedupKey: identity.key,
            eventKey: { ok: true, key: delivery.eventKey },
            payload: delivery.payload,
            payloadJson: delivery.payloadJson,
          },
          this.options.trust ?? null,
        ),
      );
    }
    const results = await recordDeliveries(this.context, prepared, this.options);
    const runs = results.flatMap((result) => result.runs_created);
    const answer: IngestResult = { received: true, matched: runs.length, runs_created: runs };
    if (results.every((result) => result.duplicate)) answer.duplicate = true;
    if (results.length === 1 && results[0]?.delivery_id) answer.delivery_id = results[0].delivery_id;
    return answer;
  }

  /** The signature check: nothing unsigned or wrongly signed goes further (and nothing of it is stored). */
  private verify({ record: webhook, current, previous: rotatedOut }: CachedWebhook, request: InboundRequest): void {
    const previous = rotatedOut !== null && this.webhooks.inGracePeriod(webhook) ? rotatedOut : null;
    const result = verifySignature({
      scheme: webhook.signature_scheme,
      headers: request.headers,
      body: request.body,
      secrets: previous ? [current, previous] : [current],
      signatureHeader: webhook.signature_header,
      now: this.context.clock.now(),
      toleranceSeconds: this.options.signatureToleranceSeconds,
    });
    // The failure rides along as the cause, so the refusal is logged with its reason.
    if (!result.ok) throw new PlatformError('UNAUTHORIZED', result.message, { cause: result });
  }
}
