/**
 * Egress refusals on the run: a sandbox's proxy refused a connection (the host is not on its
 * allowlist, or resolves to an internal address), and the conversation working in that sandbox
 * gets an event saying so — the run's events show what the agent tried to reach. Any process
 * with the storage can record it (the proxy may be served by another process than the run's):
 * the sandbox's record names its owner, whose newest conversations name their sandboxes.
 * @module
 */
import { nowIso, type ServiceContext } from '../kernel/context.js';

/** A connection a sandbox's egress proxy decided on (the Docker runtime's `onEgress`). */
export interface SandboxEgressEvent {
  sandboxId: string;
  host: string;
  port: number;
  allowed: boolean;
  reason?: string;
}

/** How many of the owner's newest conversations are searched for the sandbox's. */
const CONVERSATIONS_SEARCHED = 50;
/** Refusals already recorded (sandbox, host, port): a loop of retries adds one event, not thousands. */
const MAX_REMEMBERED = 10_000;

export class EgressRecorder {
  private readonly recorded = new Set<string>();

  constructor(private readonly context: ServiceContext) {}

  /**
   * Appends an `agent_event` (`data.type: 'egress_refused'`) to the conversation of the sandbox,
   * once per sandbox, host and port in this process; allowed connections are not recorded.
   * Returns whether an event was written (false: allowed, already recorded, or no conversation).
   */
  async record(event: SandboxEgressEvent): Promise<boolean> {
    if (event.allowed) return false;
    const key = `${event.sandboxId} ${event.host}:${event.port}`;
    if (this.recorded.has(key)) return false;
    if (this.recorded.size >= MAX_REMEMBERED) this.recorded.clear();
    this.recorded.add(key);
    const sandbox = await this.context.storage.sandboxes.get(event.sandboxId);
    if (!sandbox) return false;
    const page = await this.context.storage.conversations.listByUser(sandbox.created_by_user_id, { limit: CONVERSATIONS_SEARCHED });
    const conversation = page.items.find((candidate) => candidate.sandbox_id === event.sandboxId);
    if (!conversation) return false;
    const reason = event.reason ?? `${event.host}:${event.port} is not allowed`;
    // As the agents' conversation-record appends (not imported: agents depend on sandboxes).
    const [stored] = await this.context.storage.conversations.appendEvents(conversation.id, [
      {
        id: this.context.ids.newId('evt'),
        conversation_id: conversation.id,
        created_at: nowIso(this.context),
        kind: 'agent_event',
        source: 'environment',
        message: `egress refused: ${reason}`,
        data: { type: 'egress_refused', host: event.host, port: event.port, reason },
      },
    ]);
    if (stored) await this.context.announce({ type: 'conversation.events', conversationId: conversation.id, seq: stored.seq });
    return true;
  }
}
