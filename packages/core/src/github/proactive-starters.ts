/**
 * Proactive starters: when checks fail on a pull request the agent opened (a thread of a mention
 * automation whose owner keeps `enable_proactive_conversation_starters` on, the default), the
 * pull request gets one comment offering the fix — "mention me to fix them" — once per commit.
 * Nothing runs until a trusted person asks: the offer is a comment, not a run. Told of every
 * recorded GitHub delivery; works in the background and never fails the delivery.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { DeliveryRecord } from '../schemas/delivery.js';
import type { SettingsView } from '../schemas/settings.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';
import { commentLanguage } from '../i18n/comment-language.js';
import { createGitHubApi, repositoryOf, type GitHubApi } from './github-api.js';
import { marked } from './platform-marker.js';

export interface ProactiveStartersOptions {
  /** The owner's settings as shown (their flags). */
  settingsOf(owner: { userId: string; orgId: string }): Promise<Pick<SettingsView, 'enable_proactive_conversation_starters'>>;
  /** The owner's settings, decrypted (their GitHub token and host). */
  agentSettingsOf(userId: string): Promise<AgentSettings>;
  /** The org's GitHub automations. */
  automationsOf(orgId: string): Promise<readonly AutomationRecord[]>;
  apiFor?(token: string, host: string | null): GitHubApi;
}

/** A failed check: which commit, what failed, and the pull requests it ran for. */
interface FailedCheck {
  repository: string;
  sha: string;
  name: string;
  pulls: number[];
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const FAILED = new Set(['failure', 'timed_out', 'startup_failure']);
const CHECK_COMPLETIONS = new Set(['check_suite.completed', 'check_run.completed', 'workflow_run.completed']);

/** The failed check a `check_suite`, `check_run` or `workflow_run` completion tells of, or `null`. */
export function failedCheckOf(eventKey: string, payload: unknown): FailedCheck | null {
  const [event, action] = eventKey.split('.');
  if (action !== 'completed' || (event !== 'check_suite' && event !== 'check_run' && event !== 'workflow_run')) return null;
  const body = object(payload);
  const item = object(body?.[event]);
  const repository = object(body?.repository)?.full_name;
  if (!item || typeof repository !== 'string' || !FAILED.has(String(item.conclusion))) return null;
  const sha = item.head_sha;
  if (typeof sha !== 'string') return null;
  const pulls = (Array.isArray(item.pull_requests) ? item.pull_requests : [])
    .map((pull) => object(pull)?.number)
    .filter((number): number is number => typeof number === 'number' && Number.isSafeInteger(number) && number > 0);
  const name = typeof item.name === 'string' ? item.name : (object(item.app)?.name ?? event);
  return pulls.length > 0 ? { repository, sha, name: String(name), pulls } : null;
}

export class ProactiveStarters {
  constructor(
    private readonly context: ServiceContext,
    private readonly options: ProactiveStartersOptions,
  ) {}

  /** A delivery was recorded: for a failed check on GitHub, offers fixes on the agent's pull requests, in the background. */
  delivered(delivery: Pick<DeliveryRecord, 'org_id' | 'source' | 'event_key' | 'payload_json'>): void {
    const eventKey = delivery.event_key;
    if (delivery.source !== GITHUB_SOURCE || !eventKey || !CHECK_COMPLETIONS.has(eventKey) || delivery.payload_json === null) return;
    let failed: FailedCheck | null = null;
    try {
      failed = failedCheckOf(eventKey, JSON.parse(delivery.payload_json));
    } catch {
      failed = null;
    }
    if (!failed) return;
    const orgId = delivery.org_id;
    this.context.runEvents.track(
      this.offer(orgId, failed).catch((error: unknown) => {
        this.context.logger.warn({ kind: 'github', orgId, err: String(error) }, 'proactive starter: could not offer a fix for failed checks');
      }),
    );
  }

  private async offer(orgId: string, failed: FailedCheck): Promise<void> {
    const automations = (await this.options.automationsOf(orgId)).filter((automation) => automation.enabled && automation.trigger.mention);
    for (const pull of failed.pulls) {
      const key = `github:${failed.repository.toLowerCase()}#${pull}`;
      for (const automation of automations) {
        const thread = await this.context.storage.threads.get(orgId, automation.id, key);
        // Only the agent's own pull request, once per commit.
        if (thread?.pull_request?.number !== pull || thread.offered_fix_for === failed.sha) continue;
        const owner = { userId: automation.created_by, orgId };
        if (!(await this.options.settingsOf(owner)).enable_proactive_conversation_starters) continue;
        const ownerSettings = await this.options.agentSettingsOf(owner.userId);
        const github = ownerSettings.providerTokens.github;
        if (!github?.token) continue;
        const api = (this.options.apiFor ?? createGitHubApi)(github.token, github.host);
        // In the owner's language, as the run's own comments are.
        const words = commentLanguage(ownerSettings.language).phrases;
        const body = marked(words.failedChecks(`**${failed.name}**`, failed.sha.slice(0, 7), String(automation.trigger.mention)));
        await api.createComment(repositoryOf(failed.repository), pull, body);
        await this.context.storage.threads.put({ ...thread, offered_fix_for: failed.sha, updated_at: this.context.clock.now().toISOString() });
        this.context.logger.info({ kind: 'github', orgId, automationId: automation.id, thread: key }, 'proactive starter: offered a fix for failed checks');
      }
    }
  }
}
