import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { StorageAdapter } from '../ports/storage.js';

/** What every service is built from: the ports and the engine's settings. */
export interface ServiceContext {
  storage: StorageAdapter;
  secrets: SecretBox;
  clock: Clock;
  ids: IdGenerator;
  /** Base URL the platform is reached at, without a trailing slash (used in `webhook_url`). */
  publicUrl: string;
  /** How long a rotated-out webhook secret keeps verifying, in seconds. */
  webhookSecretGraceSeconds: number;
  /** Called after PENDING runs were stored (wakes the executor). */
  onRunsCreated?: () => void;
  /** Called after a run was cancelled (stops its agent if it is running). */
  onRunCancelled?: (runId: string) => void;
}

export const nowIso = (context: ServiceContext): string => context.clock.now().toISOString();
