/**
 * The Docker runtime over several engines: one Docker runtime per engine, and this composite in
 * front of them that places each new sandbox on one engine and finds a sandbox wherever it is.
 *
 * - Placement: a new sandbox goes to the reachable engine running the fewest of this platform's
 *   sandboxes (containers with the runtime's labels and name prefix, plus starts under way in
 *   this process), ties going to the engine listed first. An engine that does not answer within
 *   `placementTimeoutMs` is skipped; none answering is UNAVAILABLE.
 * - Finding: an engine is remembered per sandbox (in memory); a sandbox this process did not
 *   start, or that its remembered engine no longer has, is asked for on every engine at once by
 *   its container name. So any process with the same engine list reaches any sandbox.
 * - A lost engine: a sandbox whose engine does not answer is reported `ERROR` with `lost` saying
 *   so (not MISSING: the engine may come back with it), its commands and controls are
 *   UNAVAILABLE, and the other engines carry on; the platform retries a run whose sandbox is lost.
 * @module
 */
import { PlatformError, isPlatformError, noopLogger, notFound } from '@agent-platform/core';
import type { ExecEvent, ExecInput, Logger, RuntimeSandbox, SandboxRuntime, SandboxSpec, StartSandboxInput } from '@agent-platform/core';
import { sweepUnboundLeftovers } from './bound-process.js';
import type { DockerEngine } from './engine-hosts.js';
import { BOUND_LABEL, MANAGED_LABEL } from './labels.js';

/** How long placement waits for an engine's answer before skipping it. */
export const DEFAULT_PLACEMENT_TIMEOUT_MS = 5_000;

interface Member extends DockerEngine {
  runtime: SandboxRuntime;
  /** Starts under way on it from this process, not yet in its container list. */
  placing: number;
  /** It did not answer last time: when it answers again, what its runs' sandboxes left is swept. */
  down: boolean;
}

/** Where a sandbox is: on an engine, on an engine that does not answer (`lost`), or nowhere. */
type Located = { member: Member; sandbox: RuntimeSandbox } | { lost: string; engine: string | undefined } | null;

export interface EnginesOptions {
  runtimeName: string;
  /** Container names are this prefix and the sandbox id: what counts as this platform's sandboxes. */
  namePrefix: string;
  placementTimeoutMs: number;
  logger?: Logger;
}

export class DockerEnginesRuntime implements SandboxRuntime {
  readonly name: string;
  readonly takesOwnerCredential = false;
  private readonly members: Member[];
  /** The engine each sandbox was last found on. */
  private readonly where = new Map<string, Member>();
  private readonly logger: Logger;
  private readonly sweeps = new Set<Promise<void>>();

  constructor(
    engines: readonly (DockerEngine & { runtime: SandboxRuntime })[],
    private readonly options: EnginesOptions,
  ) {
    this.name = options.runtimeName;
    this.members = engines.map((engine) => ({ ...engine, placing: 0, down: false }));
    this.logger = options.logger ?? noopLogger;
  }

  /** The specs as the first engine that answers describes them (every engine has the same). */
  async listSpecs(): Promise<SandboxSpec[]> {
    return this.first((member) => member.runtime.listSpecs());
  }

  async allowedImages(): Promise<string[]> {
    return (await this.members[0]?.runtime.allowedImages?.()) ?? [];
  }

  async start(input: StartSandboxInput): Promise<RuntimeSandbox> {
    // What a single engine does not pay: the id asked for on every engine, and their counts.
    const began = performance.now();
    const existing = await this.locate(input.sandboxId);
    if (existing && 'member' in existing) throw new PlatformError('CONFLICT', `Sandbox ${JSON.stringify(input.sandboxId)} already exists`);
    const member = await this.place();
    this.logger.debug({ sandboxId: input.sandboxId, engine: member.name, placementMs: Math.round((performance.now() - began) * 10) / 10 }, 'sandbox placed');
    try {
      const sandbox = await member.runtime.start(input);
      this.where.set(input.sandboxId, member);
      return { ...sandbox, engine: member.name };
    } finally {
      member.placing -= 1;
    }
  }

  async inspect(sandboxId: string): Promise<RuntimeSandbox> {
    const located = await this.locate(sandboxId);
    if (located && 'member' in located) return { ...located.sandbox, engine: located.member.name };
    const gone = { id: sandboxId, specId: '', workingDir: '', exposedUrls: [] };
    if (located) return { ...gone, status: 'ERROR', lost: located.lost, ...(located.engine ? { engine: located.engine } : {}) };
    return { ...gone, status: 'MISSING' };
  }

  async pause(sandboxId: string): Promise<void> {
    await (await this.require(sandboxId)).runtime.pause(sandboxId);
  }

  async resume(sandboxId: string): Promise<void> {
    await (await this.require(sandboxId)).runtime.resume(sandboxId);
  }

  async delete(sandboxId: string): Promise<void> {
    await (await this.require(sandboxId)).runtime.delete(sandboxId);
    this.where.delete(sandboxId);
  }

  exec(sandboxId: string, input: ExecInput): AsyncIterable<ExecEvent> {
    const found = (): Promise<Member> => this.require(sandboxId);
    return {
      async *[Symbol.asyncIterator]() {
        yield* (await found()).runtime.exec(sandboxId, input);
      },
    };
  }

  /** Resolves while at least one engine answers: a lost engine takes only its own sandboxes. */
  async ping(): Promise<void> {
    await this.first((member) => member.runtime.ping?.() ?? Promise.resolve());
  }

  async close(): Promise<void> {
    await Promise.all([...this.sweeps]);
    await Promise.all(this.members.map((member) => member.runtime.close?.()));
  }

  /**
   * The engine for a new sandbox: the fewest of this platform's sandboxes, ties by order. Its
   * `placing` is counted up before this returns (the caller counts it down), in the same turn as
   * the choice: two starts placed at once see each other.
   */
  private async place(): Promise<Member> {
    const counts = await Promise.all(
      this.members.map((member) =>
        this.sandboxCount(member).then(
          (count) => {
            if (member.down) this.returned(member);
            return { member, count };
          },
          (error: unknown) => {
            member.down = true;
            return { member, error };
          },
        ),
      ),
    );
    let best: { member: Member; load: number } | undefined;
    for (const entry of counts) {
      const load = 'count' in entry ? entry.count + entry.member.placing : Number.POSITIVE_INFINITY;
      if (load !== Number.POSITIVE_INFINITY && (!best || load < best.load)) best = { member: entry.member, load };
    }
    if (best) {
      best.member.placing += 1;
      return best.member;
    }
    const reasons = counts.map((entry) => `${entry.member.name}: ${'error' in entry ? messageOf(entry.error) : 'no answer'}`);
    throw new PlatformError('UNAVAILABLE', `No Docker engine is reachable (${reasons.join('; ')})`);
  }

  /**
   * An engine answers again after it did not. The runs' sandboxes on it were bound to their
   * workers: the engine removed their containers as it came back, not their (anonymous)
   * volumes. Those go now, with any bound container left stopped; in the background, best effort
   * (a volume still in use is never pruned).
   */
  private returned(member: Member): void {
    member.down = false;
    this.logger.debug({ engine: member.name }, 'engine answers again');
    const sweep = sweepUnboundLeftovers(member.docker)
      .then(() => member.docker.pruneVolumes({ filters: { label: [`${MANAGED_LABEL}=true`, `${BOUND_LABEL}=true`] } }))
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.sweeps.delete(sweep));
    this.sweeps.add(sweep);
  }

  /** This platform's sandboxes on an engine (its containers, running or not, by label and name prefix). */
  private async sandboxCount(member: Member): Promise<number> {
    const containers = await member.docker.listContainers({
      all: true,
      filters: { label: [`${MANAGED_LABEL}=true`] },
      abortSignal: AbortSignal.timeout(this.options.placementTimeoutMs),
    });
    const prefix = `/${this.options.namePrefix}`;
    return containers.filter((container) => container.Names.some((name) => name.startsWith(prefix))).length;
  }

  /**
   * Where a sandbox is: its remembered engine first; else (or when that one no longer has it)
   * every engine at once. Not found on the engines that answer while another does not: lost
   * (it may be on that one).
   */
  private async locate(sandboxId: string): Promise<Located> {
    const cached = this.where.get(sandboxId);
    if (cached) {
      try {
        const sandbox = await cached.runtime.inspect(sandboxId);
        if (sandbox.status !== 'MISSING') return { member: cached, sandbox };
        this.where.delete(sandboxId);
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        cached.down = true;
        return { lost: `its Docker engine ${JSON.stringify(cached.name)} is unreachable: ${messageOf(error)}`, engine: cached.name };
      }
    }
    const answers = await Promise.allSettled(this.members.map((member) => member.runtime.inspect(sandboxId)));
    const unreachable: string[] = [];
    for (const [index, answer] of answers.entries()) {
      const member = this.members[index] as Member;
      if (answer.status === 'fulfilled') {
        if (answer.value.status === 'MISSING') continue;
        this.where.set(sandboxId, member);
        return { member, sandbox: answer.value };
      }
      if (!isUnavailable(answer.reason)) throw answer.reason;
      member.down = true;
      unreachable.push(member.name);
    }
    if (unreachable.length === 0) return null;
    const names = unreachable.map((name) => JSON.stringify(name)).join(', ');
    return { lost: `not on the engines that answer, and ${unreachable.length === 1 ? 'engine' : 'engines'} ${names} unreachable`, engine: undefined };
  }

  /** The engine holding a sandbox: NOT_FOUND when none has it, UNAVAILABLE when its engine is lost. */
  private async require(sandboxId: string): Promise<Member> {
    const located = await this.locate(sandboxId);
    if (!located) throw notFound(`Sandbox ${JSON.stringify(sandboxId)}`);
    if ('lost' in located) throw new PlatformError('UNAVAILABLE', `Sandbox ${JSON.stringify(sandboxId)} is lost: ${located.lost}`);
    return located.member;
  }

  /** The first engine's answer, in order, skipping those that fail; the last failure when all do. */
  private async first<T>(call: (member: Member) => Promise<T>): Promise<T> {
    let failure: unknown = new PlatformError('UNAVAILABLE', 'No Docker engine is configured');
    for (const member of this.members) {
      try {
        return await call(member);
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        failure = error;
      }
    }
    throw failure;
  }
}

const isUnavailable = (error: unknown): boolean => isPlatformError(error) && error.code === 'UNAVAILABLE';
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
