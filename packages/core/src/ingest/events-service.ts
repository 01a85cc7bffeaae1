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
import type { ServiceContext } from '../kernel/context.js';
import type { WebhooksService } from '../webhooks/webhooks-service.js';
import { verifySignature } from '../signatures/index.js';
import { logRefusal, logUnroutedGithubDelivery } from './delivery-log.js';
import { dedupIdentity } from './dedup.js';
import { customEventKey } from './event-key.js';
import type { CachedWebhook } from '../webhooks/webhook-cache.js';
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
   * `POST /api/automation/v1/events/{org_id}/{source}`. Each request is logged once: the
   * delivery when it is recorded, or the refusal with its reason.
   */
  async ingest(orgId: string, source: string, request: InboundRequest): Promise<IngestResult> {
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

  private async ingestCustom(orgId: string, source: string, request: InboundRequest, note: (note: IngestNote) => void): Promise<IngestResult> {
    const cached = await this.webhooks.cache.get(orgId, source);
    if (!cached?.record.enabled) throw unknownSource();
    const webhook = cached.record;
    if (request.body.byteLength > this.options.maxBodyBytes) throw payloadTooLarge(this.options.maxBodyBytes);
    this.verify(cached, request);
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
