import { PlatformError, isPlatformError, notFound, validationError } from '../kernel/errors.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { Principal } from '../schemas/principal.js';
import type { Sandbox, SandboxRecord } from '../schemas/sandbox.js';
import type { SandboxSpec, SandboxStatus } from '../schemas/sandbox-spec.js';
import type { CursorQuery } from '../schemas/v1-pages.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { SandboxStartError, startStoredSandbox } from './stored-sandbox.js';
import { EgressRecorder, type SandboxEgressEvent } from './egress-record.js';

export interface SandboxPage {
  items: Sandbox[];
  next_page_id: string | null;
}

/**
 * Sandboxes (V1): each user sees and manages only their own. Status follows the runtime; the
 * session API key is shown to the owner only while the sandbox is RUNNING.
 */
export class SandboxesService {
  private readonly egress: EgressRecorder;

  constructor(
    private readonly context: ServiceContext,
    private readonly runtime: SandboxRuntime | null,
  ) {
    this.egress = new EgressRecorder(context);
  }

  /**
   * Records a connection the sandbox's egress proxy refused on the conversation working in it
   * (wire the Docker runtime's `onEgress` here); see {@link EgressRecorder.record}.
   */
  recordEgress(event: SandboxEgressEvent): Promise<boolean> {
    return this.egress.record(event);
  }

  async specs(query: CursorQuery): Promise<{ items: SandboxSpec[]; next_page_id: string | null }> {
    const specs = await this.requireRuntime().listSpecs();
    const offset = query.page_id ? Number(query.page_id) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw validationError(['query', 'page_id'], 'invalid page id');
    const items = specs.slice(offset, offset + query.limit);
    return { items, next_page_id: offset + query.limit < specs.length ? String(offset + query.limit) : null };
  }

  async search(principal: Principal, query: CursorQuery): Promise<SandboxPage> {
    const page = await this.context.storage.sandboxes.listByUser(principal.userId, { limit: query.limit, ...(query.page_id ? { pageId: query.page_id } : {}) });
    return { items: await Promise.all(page.items.map((record) => this.view(record))), next_page_id: page.nextPageId };
  }

  /** The caller's sandboxes by id; `null` for an unknown id or someone else's. */
  async batchGet(principal: Principal, ids: readonly string[]): Promise<(Sandbox | null)[]> {
    return Promise.all(
      ids.map(async (id) => {
        const record = await this.context.storage.sandboxes.get(id);
        return record && record.created_by_user_id === principal.userId ? this.view(record) : null;
      }),
    );
  }

  async start(principal: Principal, specId: string | null | undefined): Promise<Sandbox> {
    const runtime = this.requireRuntime();
    const specs = await runtime.listSpecs();
    const spec = specId ? specs.find((candidate) => candidate.id === specId) : specs[0];
    if (!spec) throw validationError(['body', 'sandbox_spec_id'], 'unknown sandbox spec: list them with GET /api/v1/sandbox-specs/search');
    try {
      return this.view(await startStoredSandbox(this.context, runtime, principal, spec.id));
    } catch (error) {
      // The owner's image refused (by the platform or the runtime) is theirs to change: a 422 with the list.
      if (error instanceof SandboxStartError && isPlatformError(error.cause) && error.cause.code === 'VALIDATION_FAILED') throw error.cause;
      if (error instanceof SandboxStartError) throw new PlatformError('UNAVAILABLE', error.message, { cause: error });
      throw error;
    }
  }

  async pause(principal: Principal, id: string): Promise<void> {
    const record = await this.load(principal, id);
    await this.requireRuntime().pause(id);
    await this.save({ ...record, status: 'PAUSED' });
  }

  async resume(principal: Principal, id: string): Promise<void> {
    const record = await this.load(principal, id);
    await this.requireRuntime().resume(id);
    await this.save({ ...record, status: 'RUNNING' });
  }

  async delete(principal: Principal, id: string): Promise<void> {
    await this.load(principal, id);
    await this.requireRuntime()
      .delete(id)
      .catch((error: unknown) => {
        // Already gone from the runtime: the record still goes.
        if (!(error instanceof PlatformError && error.code === 'NOT_FOUND')) throw error;
      });
    await this.context.storage.sandboxes.delete(id);
  }

  private async view(record: SandboxRecord): Promise<Sandbox> {
    const { status, engine } = await this.live(record);
    return {
      id: record.id,
      created_by_user_id: record.created_by_user_id,
      sandbox_spec_id: record.sandbox_spec_id,
      status,
      session_api_key: status === 'RUNNING' ? this.context.secrets.open(record.session_api_key) : null,
      exposed_urls: record.exposed_urls,
      image: record.image ?? null,
      engine,
      created_at: record.created_at,
    };
  }

  /** The runtime's word on a sandbox it holds (its status, and its engine where it has several); the stored status otherwise. */
  private async live(record: SandboxRecord): Promise<{ status: SandboxStatus; engine: string | null }> {
    if (!this.runtime || record.runtime !== this.runtime.name || record.status === 'MISSING') return { status: record.status, engine: null };
    const sandbox = await this.runtime.inspect(record.id);
    return { status: sandbox.status, engine: sandbox.engine ?? null };
  }

  private async load(principal: Principal, id: string): Promise<SandboxRecord> {
    const record = await this.context.storage.sandboxes.get(id);
    if (!record || record.created_by_user_id !== principal.userId || record.status === 'MISSING') throw notFound('Sandbox');
    return record;
  }

  private async save(record: SandboxRecord): Promise<SandboxRecord> {
    const updated = { ...record, updated_at: nowIso(this.context) };
    await this.context.storage.sandboxes.update(updated);
    return updated;
  }

  private requireRuntime(): SandboxRuntime {
    if (!this.runtime) throw new PlatformError('UNAVAILABLE', 'No sandbox runtime is configured');
    return this.runtime;
  }
}
