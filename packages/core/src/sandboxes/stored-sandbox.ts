/**
 * A sandbox as the platform keeps it: a stored record (STARTING, then what the runtime says it
 * became, or ERROR) around the runtime's own sandbox, and its removal (the record says MISSING).
 * The sandboxes API, automation runs and conversations all start and remove sandboxes here.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { SandboxRecord } from '../schemas/sandbox.js';

/** Thrown when the runtime would not start a sandbox; the record is left with status ERROR. */
export class SandboxStartError extends Error {}

/** Stores a sandbox record (STARTING), starts it on the runtime and records what it became. */
export async function startStoredSandbox(
  context: ServiceContext,
  runtime: SandboxRuntime,
  owner: { userId: string; orgId: string },
  specId: string,
  /** The sandbox dies with this process (see `StartSandboxInput.boundToProcess`): a run's. */
  options: { boundToProcess?: boolean } = {},
): Promise<SandboxRecord> {
  const now = nowIso(context);
  const sessionApiKey = randomBytes(32).toString('base64url');
  // The owner's resource factor scales the runtime's default limits.
  const resourceFactor = (await context.storage.settings.get(owner.userId))?.values.remote_runtime_resource_factor ?? 1;
  const record: SandboxRecord = {
    id: context.ids.newId('sbx'),
    created_by_user_id: owner.userId,
    org_id: owner.orgId,
    sandbox_spec_id: specId,
    status: 'STARTING',
    exposed_urls: [],
    created_at: now,
    updated_at: now,
    runtime: runtime.name,
    session_api_key: context.secrets.seal(sessionApiKey),
  };
  await context.storage.sandboxes.insert(record);
  try {
    const started = await runtime.start({
      sandboxId: record.id,
      specId,
      sessionApiKey,
      resourceFactor,
      ...(options.boundToProcess ? { boundToProcess: true } : {}),
    });
    const running: SandboxRecord = { ...record, status: started.status, exposed_urls: started.exposedUrls, updated_at: nowIso(context) };
    await context.storage.sandboxes.update(running);
    return running;
  } catch (error) {
    await context.storage.sandboxes.update({ ...record, status: 'ERROR', updated_at: nowIso(context) }).catch(() => {});
    throw new SandboxStartError(`the sandbox did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Deletes a sandbox from the runtime (best effort) and marks its record MISSING. */
export async function removeStoredSandbox(context: ServiceContext, runtime: SandboxRuntime, sandboxId: string): Promise<void> {
  await runtime.delete(sandboxId).catch(() => {});
  const record = await context.storage.sandboxes.get(sandboxId).catch(() => null);
  if (record) await context.storage.sandboxes.update({ ...record, status: 'MISSING', updated_at: nowIso(context) }).catch(() => {});
}
