/**
 * What every service is built from: the ports and the engine's settings, built once by
 * `createAgentPlatform` and never changed afterwards.
 * @module
 */
import type { AnswerHost } from '../ports/answer-host.js';
import type { PublishedChange } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Logger } from '../ports/logger.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { StorageAdapter } from '../ports/storage.js';
import type { OutboundEventType } from '../schemas/subscription.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { RunEventBus } from './run-event-bus.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { SpendControl } from '../spend/spend-control.js';

/** Where platform events go to subscribers (outbound events). Never throws and is never awaited: an event's own work does not wait for its fan-out. */
export interface OutboundEventSink {
  emit(orgId: string, type: OutboundEventType, data: Record<string, unknown>): void;
}

export interface ServiceContext {
  readonly storage: StorageAdapter;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Where deliveries and run transitions are logged; a no-op logger by default. */
  readonly logger: Logger;
  /** Base URL the platform is reached at, without a trailing slash (used in `webhook_url`). */
  readonly publicUrl: string;
  /** How long a rotated-out webhook secret keeps verifying, in seconds. */
  readonly webhookSecretGraceSeconds: number;
  /**
   * Tells every process sharing the storage (this one included) about a committed change: new
   * PENDING runs, a cancel, an automation changed. Best effort: never throws, since polls and
   * time limits stand behind it.
   */
  announce(change: PublishedChange): Promise<void>;
  /** Fan-out of platform events to subscribers. */
  readonly outbound: OutboundEventSink;
  /** What became of runs changed in this process (started, released, finished), for whatever reacts to runs. */
  readonly runEvents: RunEventBus;
  /** Where spans and metrics go (OpenTelemetry); no-ops without an SDK. */
  readonly telemetry: Telemetry;
  /** The org's audit log: who changed what. */
  readonly audit: AuditLog;
  /** The orgs' budgets and spend ledger: whether work may spend, and what it spent. */
  readonly spend: SpendControl;
  /** The hosts runs answer on (GitHub and those the embedder added), each for the sources it handles. */
  readonly answerHosts: readonly AnswerHost[];
}

export const nowIso = (context: ServiceContext): string => context.clock.now().toISOString();
