/**
 * `createAgentPlatform`: wires the ports into the engine's services.
 * @module
 */
import { TriggerMarks } from './ingest/trigger-marks.js';
import { createStoredApiKeyAuthenticator } from './keys/stored-api-key-authenticator.js';
import type { Authenticator, Credentials } from './ports/authenticator.js';
import { systemClock, type Clock } from './ports/clock.js';
import { randomIdGenerator, type IdGenerator } from './ports/id-generator.js';
import { noopLogger, type Logger } from './ports/logger.js';
import type { SecretBox } from './ports/secret-box.js';
import type { StorageAdapter } from './ports/storage.js';
import { checkReadiness, type PlatformReadiness } from './kernel/readiness.js';
import type { Principal } from './schemas/principal.js';
import { ApiKeysService } from './keys/api-keys-service.js';
import type { ServiceContext } from './kernel/context.js';
import { GitProvidersService } from './settings/git-providers-service.js';
import { SettingsService } from './settings/settings-service.js';
import { SecretsService } from './secrets/secrets-service.js';
import { WebhooksService } from './webhooks/webhooks-service.js';
import { AutomationIndex, type AutomationIndexOptions } from './matching/automation-index.js';
import { AutomationsService } from './automations/automations-service.js';
import { DeliveriesService } from './ingest/deliveries-service.js';
import { GithubLinksService, storedLinksResolver } from './ingest/github-links-service.js';
import { GithubOrgCache } from './ingest/github-org-cache.js';
import { EventsService } from './ingest/events-service.js';
import type { GithubOrgResolver } from './ingest/github-delivery.js';
import { RunExecutor, type RunExecutorOptions } from './runs/run-executor.js';
import { RunReporter } from './hosts/run-reporter.js';
import { createGitHubAnswerHost } from './hosts/github-answer-host.js';
import type { AnswerHost } from './ports/answer-host.js';
import { createGitHubApi, repositoryOf } from './github/github-api.js';
import { ActorTrust } from './threads/actor-trust.js';
import { createBitbucketRoleLookup } from './hosts/bitbucket-roles.js';
import { createGitLabRoleLookup } from './hosts/gitlab-roles.js';
import { createSlackUserGroupLookup } from './hosts/slack-user-groups.js';
import { AuditLog } from './audit/audit-log.js';
import { BudgetsService } from './budgets/budgets-service.js';
import { OverviewService } from './overview/overview-service.js';
import { MembersService } from './sign-in/members-service.js';
import { SpendControl } from './spend/spend-control.js';
import { ProactiveStarters } from './github/proactive-starters.js';
import type { SolvabilityEstimator } from './ports/solvability.js';
import type { DeliveryRecord } from './schemas/delivery.js';
import { GITHUB_SOURCE } from './schemas/vocabulary.js';
import { RunEventBus } from './kernel/run-event-bus.js';
import { countRunEvents } from './runs/run-metrics.js';
import { emitRunEvents } from './outbound/run-events.js';
import { toRunView } from './runs/run-view.js';
import type { Run } from './schemas/run.js';
import type { SandboxRuntime } from './ports/sandbox-runtime.js';
import type { AgentRunner } from './ports/agent-runner.js';
import { catalogOf, type AgentCatalog } from './agents/agent-router.js';
import { securityAnalyzerNames } from './security/analyzer-names.js';
import { createAgentPlatformTools } from './automations/agent-tools.js';
import { SandboxesService } from './sandboxes/sandboxes-service.js';
import { ConversationsService } from './conversations/conversations-service.js';
import type { RunQueue } from './ports/run-queue.js';
import { ChangeDispatcher } from './kernel/change-dispatcher.js';
import type { PublishedChange } from './ports/change-feed.js';
import type { AgentJobServices } from './agents/agent-job.js';
import { OutboundEvents } from './outbound/outbound-events.js';
import { OutboundDispatcher } from './outbound/dispatcher.js';
import { resolveOutboundOptions, type OutboundOptions } from './outbound/options.js';
import { SubscriptionsService } from './outbound/subscriptions-service.js';
import { createTelemetry, type TelemetryOptions } from './telemetry/telemetry.js';
import { tracedRuntime } from './sandboxes/traced-runtime.js';

/** How long a solvability estimate may take before "on it" goes without it. */
const SOLVABILITY_TIMEOUT_MS = 30_000;

export interface AgentPlatformOptions {
  storage: StorageAdapter;
  /** Encrypts secrets at rest; see `createAesGcmSecretBox`. */
  secrets: SecretBox;
  /** Base URL the platform is reached at, used in `webhook_url` (e.g. `https://agents.example.com`). */
  publicUrl: string;
  /** Turns request credentials into a principal. Defaults to API keys stored (hashed) in `storage`. */
  auth?: Authenticator;
  clock?: Clock;
  ids?: IdGenerator;
  /**
   * Where the engine logs one line per inbound delivery and one per run transition.
   * A pino logger is passed as it is. Default: nothing is logged.
   */
  logger?: Logger;
  /** How long a rotated-out webhook secret keeps verifying, in seconds. Default 24 h; 0 allowed. */
  webhookSecretGraceSeconds?: number;
  /** Native GitHub deliveries (`POST /api/automation/v1/events/github`). */
  github?: {
    /** The GitHub App's webhook secret(s); several during a rotation. None disables the endpoint. */
    webhookSecrets?: readonly string[];
    /** Which orgs a delivery reaches. Default: the links stored with `platform.githubLinks`. */
    resolveOrgs?: GithubOrgResolver;
    /**
     * The run's page that outcome comments link to (automations with `report_to_github`); `null`
     * for no link. Default: the console's page of the run, `{publicUrl}/console/runs/{id}`.
     */
    runUrl?: (run: Run) => string | null;
    /**
     * Estimates how solvable an issue is, shown in a run's "on it" comment when the automation's
     * owner keeps `enable_solvability_analysis` on (`createSolvabilityEstimator` of
     * `@agent-platform/agent` asks the owner's model). Default: none.
     */
    solvability?: SolvabilityEstimator;
  };
  /**
   * Hosts runs answer on besides GitHub (the answer-back port: acknowledge, the run's comment,
   * approval requests), each for the deliveries of the sources it `handles`. GitHub's is built in;
   * one named `github` here replaces it.
   */
  answerHosts?: readonly AnswerHost[];
  /** Inbound event limits. */
  events?: {
    /** Largest event body, in bytes. Default 5 MiB. */
    maxBodyBytes?: number;
    /** How long redeliveries are recognised, in seconds. Default 7 days. */
    dedupWindowSeconds?: number;
    /** Clock skew allowed for timestamped signatures, in seconds. Default 300. */
    signatureToleranceSeconds?: number;
  };
  /** The in-process matching index. */
  matching?: AutomationIndexOptions;
  /** Where agents run. With `agent`, PENDING runs are executed (from `start()` on). */
  runtime?: SandboxRuntime;
  /** The agent that runs for each run. */
  agent?: AgentRunner;
  /**
   * The agent names owners may choose in their `agent` setting: a saved name outside them is a
   * 422 that lists them, and `GET /api/options/agents` lists them. Default: the `agent`'s own
   * when it is a router (`createAgentRouter`); `null` (and a plain runner) checks no name.
   */
  agents?: AgentCatalog | null;
  /** Where executors claim PENDING runs. Default: the storage's own (`storage.runQueue`). */
  queue?: RunQueue;
  /** Concurrency, retries and time limits of the run executor. */
  executor?: Omit<RunExecutorOptions, 'queue'>;
  /** Outbound events to subscribers: address policy, retries, disabling. */
  outbound?: OutboundOptions;
  /**
   * Where spans and metrics go (OpenTelemetry). Default: the global providers as they are when
   * the platform is created, so register an SDK first; without one nothing is recorded.
   */
  telemetry?: TelemetryOptions;
}

export interface StartOptions {
  /**
   * Whether this process executes runs (default `true`, with a `runtime` and an `agent`). An
   * API-only process passes `false`: it still hears other processes' changes (fresh matching),
   * and worker processes execute the runs it creates.
   */
  executeRuns?: boolean;
}

export interface AgentPlatform {
  readonly settings: SettingsService;
  /** Custom secrets one by one (OpenHands' `/api/v1/secrets`): the settings' `secrets_store.custom_secrets`. */
  readonly secrets: SecretsService;
  readonly gitProviders: GitProvidersService;
  readonly apiKeys: ApiKeysService;
  readonly webhooks: WebhooksService;
  readonly automations: AutomationsService;
  readonly events: EventsService;
  readonly deliveries: DeliveriesService;
  readonly githubLinks: GithubLinksService;
  /** App conversations (V1): started in the background, the agent run on the first message. */
  readonly conversations: ConversationsService;
  /** Outbound-event subscribers, their messages and attempts. */
  readonly subscriptions: SubscriptionsService;
  /** Sends stored outbound messages (from `start()` on, unless `outbound.send` is false). */
  readonly outbound: OutboundDispatcher;
  /** Sandboxes (V1); answers 503 without a `runtime`. */
  readonly sandboxes: SandboxesService;
  /** Executes PENDING runs; `null` without a `runtime` and an `agent`. */
  readonly executor: RunExecutor | null;
  /**
   * What became of the runs this process changed: `run.started`, `run.released`,
   * `run.finished`, told once by whatever made the change. Subscribe to react to runs (a
   * subscriber's promise is awaited by the change, so keep long work in the background).
   */
  readonly runEvents: Pick<RunEventBus, 'on'>;
  /** The orgs' audit logs: who changed what, chained by hash. */
  readonly audit: AuditLog;
  /** The orgs' spend budgets and the usage report of what their model calls cost. */
  readonly budgets: BudgetsService;
  /** The org's runs over a period, aggregated for the console's overview. */
  readonly overview: OverviewService;
  /** The org's members (console sign-in's memberships): listed by admins, their roles changed by owners. */
  readonly members: MembersService;
  /** Largest inbound event body accepted, in bytes (HTTP bindings read up to it). */
  readonly maxEventBodyBytes: number;
  readonly storage: StorageAdapter;
  readonly publicUrl: string;
  /** The principal the credentials act for, or `null`. */
  authenticate(credentials: Credentials): Promise<Principal | null>;
  /** Resolves when the storage is reachable; throws otherwise. See {@link AgentPlatform.readiness} for every check. */
  ready(): Promise<void>;
  /**
   * Whether this process should get traffic and work: the storage reachable, its schema migrated,
   * the sandbox runtime reachable (each `ok`, `failed` or `skipped` with a short reason), and not
   * stopping. Never throws.
   */
  readiness(): Promise<PlatformReadiness>;
  /** Whether a stop began (`drain()` or `stop()`). */
  readonly stopping: boolean;
  /**
   * Starts background work: listening for changes made by other processes sharing the storage
   * (automations, cancels, new runs) and, unless told not to, executing runs.
   */
  start(options?: StartOptions): Promise<void>;
  /**
   * The first half of a stop: from this call on `readiness()` says `stopping` and no run is
   * claimed here; the runs executing here get `graceMs` to finish, then the rest are handed back
   * to PENDING (the attempt not counted, the lease cleared) for another process to take at once.
   * Storage and the change feed stay open, so the API keeps serving until `stop()`.
   */
  drain(options?: StopOptions): Promise<void>;
  /**
   * Drains (see {@link AgentPlatform.drain}), stops background work and closes the storage
   * adapter. A second call joins the first (its grace may end the wait sooner).
   */
  stop(options?: StopOptions): Promise<void>;
}

export interface StopOptions {
  /**
   * How long the runs executing here may take to finish on their own, in milliseconds, before
   * they are stopped and handed back. Default 0: handed back at once (another process resumes
   * them from the start).
   */
  graceMs?: number;
}

const DEFAULT_GRACE_SECONDS = 24 * 3600;
const DEFAULT_EVENT_BODY_BYTES = 5 * 1024 * 1024;
const DEFAULT_DEDUP_WINDOW_SECONDS = 7 * 24 * 3600;

/**
 * @example
 * ```ts
 * import { createAgentPlatform, createAesGcmSecretBox } from '@agent-platform/core';
 * import { createMemoryStorage } from '@agent-platform/storage-memory';
 *
 * const platform = createAgentPlatform({
 *   storage: createMemoryStorage(),
 *   secrets: createAesGcmSecretBox({ keys: { k1: process.env.AGENT_PLATFORM_SECRET_KEY! } }),
 *   publicUrl: 'https://agents.example.com',
 * });
 * const me = { userId: 'alice', orgId: 'acme' };
 * await platform.settings.store(me, { llm_model: 'anthropic/claude-sonnet-4' });
 * ```
 */
export function createAgentPlatform(options: AgentPlatformOptions): AgentPlatform {
  const grace = options.webhookSecretGraceSeconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isInteger(grace) || grace < 0) throw new Error('webhookSecretGraceSeconds must be a non-negative integer');
  if (!URL.canParse(options.publicUrl)) throw new Error(`publicUrl must be an absolute URL, got "${options.publicUrl}"`);
  const ports = {
    storage: options.storage,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? randomIdGenerator,
    logger: options.logger ?? noopLogger,
    telemetry: createTelemetry(options.telemetry),
  };
  const changes = new ChangeDispatcher(options.storage);
  const outboundEvents = new OutboundEvents(ports);
  const runEvents = new RunEventBus(ports.logger);
  // GitHub's answer-back is built in; a host named `github` among the embedder's replaces it.
  const extraHosts = options.answerHosts ?? [];
  const answerHosts = [...(extraHosts.some((host) => host.name === GITHUB_SOURCE) ? [] : [createGitHubAnswerHost()]), ...extraHosts];
  // Built once, here, with everything in it; nothing changes it afterwards.
  const context: ServiceContext = Object.freeze({
    ...ports,
    secrets: options.secrets,
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    webhookSecretGraceSeconds: grace,
    announce: (change: PublishedChange) => changes.announce(change),
    outbound: outboundEvents,
    runEvents,
    audit: new AuditLog(ports),
    spend: new SpendControl(ports),
    answerHosts,
  });
  // What reacts to runs subscribes to their events; whatever changes a run's status tells them.
  countRunEvents(runEvents, context.telemetry.metrics);
  emitRunEvents(context, runEvents);
  const outboundOptions = resolveOutboundOptions(options.outbound);
  const dispatcher = new OutboundDispatcher(context, outboundEvents, outboundOptions);
  const triggerMarks = new TriggerMarks(options.storage);
  const auth = options.auth ?? createStoredApiKeyAuthenticator({ storage: context.storage, clock: context.clock });
  const index = new AutomationIndex(context.storage, context.clock, options.matching);
  const webhooks = new WebhooksService(context);
  // Which orgs a GitHub delivery reaches, read once per installation and accounts (a host's own resolver is its business).
  const githubOrgs = new GithubOrgCache(storedLinksResolver(context.storage), context.clock);
  const automations = new AutomationsService(context, index, triggerMarks);
  const settings = new SettingsService(context, {
    agents: options.agents !== undefined ? options.agents : catalogOf(options.agent),
    runtime: options.runtime ?? null,
    securityAnalyzers: securityAnalyzerNames(options.agent),
  });
  // Sandbox starts and commands are spans, wherever they are called from.
  const runtime = options.runtime ? tracedRuntime(options.runtime, context.telemetry) : null;
  const jobs: AgentJobServices | null = runtime
    ? {
        context,
        runtime,
        agent: options.agent ?? null,
        settingsOf: (userId) => settings.agentSettings(userId),
        toolsFor: (owner) => createAgentPlatformTools(automations, webhooks, owner),
      }
    : null;
  const conversations = new ConversationsService(context, jobs, { timeoutSeconds: options.executor?.defaultTimeoutSeconds ?? 1800 });
  // Runs of automations with `report_to_github` answer in their event's thread on its host, whichever process ends them.
  const reporter = new RunReporter(context, {
    settingsOf: (userId) => settings.agentSettings(userId),
    hosts: answerHosts,
    runUrl: (run) => (options.github?.runUrl ? options.github.runUrl(toRunView(run)) : `${context.publicUrl}/console/runs/${encodeURIComponent(run.id)}`),
    estimate: async (automation, issue) => {
      const estimator = options.github?.solvability;
      if (!estimator) return null;
      const owner = { userId: automation.created_by, orgId: automation.org_id };
      if (!(await settings.get(owner)).enable_solvability_analysis) return null;
      return estimator.estimate({ settings: await settings.agentSettings(owner.userId), ...issue, signal: AbortSignal.timeout(SOLVABILITY_TIMEOUT_MS) });
    },
  });
  reporter.subscribe(runEvents);
  const executor = jobs?.agent ? new RunExecutor(context, jobs, { ...options.executor, ...(options.queue ? { queue: options.queue } : {}) }) : null;
  // Who acts on which change, made here or heard from another process: each registers once.
  changes.on((change) => {
    if (change.type === 'automations.changed') index.invalidate(change.orgId, change.source);
    else if (change.type === 'webhooks.changed') webhooks.cache.invalidateOrg(change.orgId);
    else if (change.type === 'github-links.changed') githubOrgs.invalidateAll();
    else if (change.type === 'reset') {
      index.invalidateAll();
      webhooks.cache.invalidateAll();
      githubOrgs.invalidateAll();
    }
  });
  changes.on((change) => conversations.onChange(change));
  if (executor) {
    changes.on((change) => {
      if (change.type === 'run.cancelled') executor.cancel(change.runId);
      else if (change.type === 'conversation.control') void executor.onControl(change.conversationId);
      else if (change.type === 'runs.pending' || change.type === 'reset') executor.notify();
    });
  }
  let stopping = false;
  let stopped: Promise<void> | null = null;
  const drain = async (stopOptions: StopOptions = {}) => {
    stopping = true;
    await executor?.stop(stopOptions);
    // The answers to runs that ended are posted before the process goes.
    await runEvents.idle();
  };
  // The queue's gauges, read from the storage at each collection (a scrape), over every process.
  context.telemetry.metrics.observeQueue(async () => {
    const [queue, sandboxes] = await Promise.all([context.storage.runs.queueSummary(), context.storage.sandboxes.countByStatus()]);
    const oldest = queue.oldestPendingAt === null ? null : Date.parse(queue.oldestPendingAt);
    return {
      pending: queue.pending,
      oldestPendingAgeSeconds: oldest === null ? 0 : Math.max(0, (context.clock.now().getTime() - oldest) / 1000),
      runningByOrg: queue.runningByOrg,
      sandboxesByStatus: sandboxes,
    };
  });
  const maxEventBodyBytes = options.events?.maxBodyBytes ?? DEFAULT_EVENT_BODY_BYTES;
  // Who may command thread automations: asked of GitHub with the automation owner's token, kept for minutes.
  const trust = new ActorTrust(
    context.clock,
    async (ownerUserId, repository, login) => {
      const github = (await settings.agentSettings(ownerUserId)).providerTokens.github;
      if (!github?.token) throw new Error(`no GitHub token is stored for the automation's owner (${ownerUserId}) to ask with`);
      return createGitHubApi(github.token, github.host).roleOf(repositoryOf(repository), login);
    },
    // Bitbucket: the person's effective permission on the repository, asked with the owner's Bitbucket token.
    {
      bitbucket: createBitbucketRoleLookup({ settingsOf: (userId) => settings.agentSettings(userId) }),
      // GitLab: the member's access level on the project (groups' included), asked with the owner's GitLab token.
      gitlab: createGitLabRoleLookup({ settingsOf: (userId) => settings.agentSettings(userId) }),
      // Slack: the members of an automation's `slack_user_groups`, asked with the owner's Slack bot token.
      slackUserGroups: createSlackUserGroupLookup({ settingsOf: (userId) => settings.agentSettings(userId) }),
    },
  );
  // Failed checks on the agent's own pull requests get one comment offering the fix (the owner's setting).
  const starters = new ProactiveStarters(context, {
    settingsOf: (owner) => settings.get(owner),
    agentSettingsOf: (userId) => settings.agentSettings(userId),
    automationsOf: async (orgId) => (await index.get(orgId, GITHUB_SOURCE)).all.map((automation) => automation.record),
  });
  const recording = {
    dedupWindowSeconds: options.events?.dedupWindowSeconds ?? DEFAULT_DEDUP_WINDOW_SECONDS,
    triggerMarks,
    trust,
    delivered: (delivery: DeliveryRecord) => starters.delivered(delivery),
  };

  return {
    settings,
    secrets: new SecretsService(context),
    executor,
    runEvents,
    audit: context.audit,
    budgets: new BudgetsService(context),
    overview: new OverviewService(context),
    members: new MembersService(context),
    sandboxes: new SandboxesService(context, runtime),
    subscriptions: new SubscriptionsService(context, outboundEvents, { allowPrivateAddresses: outboundOptions.allowPrivateAddresses }),
    outbound: dispatcher,
    conversations,
    gitProviders: new GitProvidersService(context),
    apiKeys: new ApiKeysService(context),
    webhooks,
    automations,
    events: new EventsService(context, index, webhooks, {
      ...recording,
      maxBodyBytes: maxEventBodyBytes,
      signatureToleranceSeconds: options.events?.signatureToleranceSeconds ?? 300,
      githubWebhookSecrets: options.github?.webhookSecrets ?? [],
      resolveGithubOrgs: options.github?.resolveOrgs ?? githubOrgs.resolve,
    }),
    deliveries: new DeliveriesService(context, index, recording),
    githubLinks: new GithubLinksService(context),
    maxEventBodyBytes,
    storage: context.storage,
    publicUrl: context.publicUrl,
    authenticate: (credentials) => auth.authenticate(credentials),
    ready: () => context.storage.ping(),
    readiness: () => checkReadiness(context.storage, options.runtime ?? null, stopping),
    get stopping() {
      return stopping;
    },
    drain,
    start: async (startOptions = {}) => {
      await changes.start();
      reporter.start();
      if (startOptions.executeRuns !== false) await executor?.start();
      if (outboundOptions.send) dispatcher.start();
    },
    stop: async (stopOptions) => {
      // A later call's grace may end the drain under way sooner.
      const drained = drain(stopOptions);
      stopped ??= drained.then(async () => {
        reporter.stop();
        await outboundEvents.flush();
        await dispatcher.stop();
        await triggerMarks.flush();
        await changes.stop();
        await conversations.stop();
        await context.storage.close();
      });
      await Promise.all([drained, stopped]);
    },
  };
}
