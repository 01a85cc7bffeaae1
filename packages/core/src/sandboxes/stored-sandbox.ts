/**
 * A sandbox as the platform keeps it: a stored record (STARTING, then what the runtime says it
 * became, or ERROR) around the runtime's own sandbox, and its removal (the record says MISSING).
 * The sandboxes API, automation runs and conversations all start and remove sandboxes here, so
 * every sandbox of an owner gets what their settings say: the resource factor, their image (one
 * the runtime allows, else no sandbox: a 422's reason) and, for a runtime that takes one, their
 * `sandbox_api_key`, opened from its seal only for the start.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { SandboxRecord } from '../schemas/sandbox.js';
import { checkOwnerImage, ownerImageSetting } from './owner-image.js';

/** Thrown when the runtime would not start a sandbox; the record is left with status ERROR. */
export class SandboxStartError extends Error {}

/** Stores a sandbox record (STARTING), starts it on the runtime and records what it became. */
export async function startStoredSandbox(
  context: ServiceContext,
  runtime: SandboxRuntime,
  owner: { userId: string; orgId: string },
  specId: string,
  /** The sandbox dies with this process (see `StartSandboxInput.boundToProcess`): a run's. `egressAllow`: see `StartSandboxInput`. */
  options: { boundToProcess?: boolean; egressAllow?: readonly string[] } = {},
): Promise<SandboxRecord> {
  const now = nowIso(context);
  const sessionApiKey = randomBytes(32).toString('base64url');
  // The owner's resource factor scales the runtime's default limits.
  const settings = await context.storage.settings.get(owner.userId);
  const resourceFactor = settings?.values.remote_runtime_resource_factor ?? 1;
  const ownerImage = ownerImageSetting(settings?.values);
  // Refused before anything is stored: a runtime that cannot change images might ignore the ask.
  if (ownerImage) {
    await checkOwnerImage(runtime, ownerImage.field, ownerImage.image, ['settings', ownerImage.field]).catch((error: unknown) => {
      throw new SandboxStartError(`the sandbox did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
  }
  const sealedCredential = runtime.takesOwnerCredential === true ? settings?.secrets.sandbox_api_key : undefined;
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
    image: ownerImage?.image ?? null,
  };
  await context.storage.sandboxes.insert(record);
  try {
    const started = await runtime.start({
      sandboxId: record.id,
      specId,
      sessionApiKey,
      resourceFactor,
      ...(options.boundToProcess ? { boundToProcess: true } : {}),
      ...(options.egressAllow?.length ? { egressAllow: options.egressAllow } : {}),
      ...(ownerImage ? { image: ownerImage.image } : {}),
      ...(sealedCredential ? { ownerCredential: context.secrets.open(sealedCredential) } : {}),
    });
    const running: SandboxRecord = {
      ...record,
      status: started.status,
      exposed_urls: started.exposedUrls,
      image: started.image ?? record.image,
      updated_at: nowIso(context),
    };
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
