import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Logger } from '../ports/logger.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { StorageAdapter } from '../ports/storage.js';
import type { PublishedChange } from '../ports/change-feed.js';

import type { AgentPlatformTools } from '../ports/agent-runner.js';
import type { Principal } from '../schemas/principal.js';
import type { TriggerMarks } from '../ingest/trigger-marks.js';
import type { OutboundEvents } from '../outbound/outbound-events.js';

/** What every service is built from: the ports and the engine's settings. */
export interface ServiceContext {
  storage: StorageAdapter;
  secrets: SecretBox;
  clock: Clock;
  ids: IdGenerator;
  /** Where deliveries and run transitions are logged (DESIGN §15); a no-op logger by default. */
  logger: Logger;
  /** Base URL the platform is reached at, without a trailing slash (used in `webhook_url`). */
  publicUrl: string;
  /** How long a rotated-out webhook secret keeps verifying, in seconds. */
  webhookSecretGraceSeconds: number;
  /**
   * Tells every process sharing the storage (this one included) about a committed change: new
   * PENDING runs, a cancel, an automation changed. Best effort: never throws, since polls and
   * time limits stand behind it.
   */
  announce(change: PublishedChange): Promise<void>;
  /** Where `last_triggered_at` marks gather before they are written; without it they are written at once. */
  triggerMarks?: TriggerMarks;
  /** Fan-out of platform events to subscribers (DESIGN §16); absent in tests that build a bare context. */
  outbound?: OutboundEvents;
  /** The platform tools an agent gets for its owner (spec 4.5); set once the services exist. */
  agentTools?: (owner: Principal) => AgentPlatformTools;
}

export const nowIso = (context: ServiceContext): string => context.clock.now().toISOString();
