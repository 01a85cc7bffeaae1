/**
 * `createAgentPlatform`: wires the ports into the engine's services.
 * @module
 */
import { TriggerMarks } from './ingest/trigger-marks.js';
import { createStoredApiKeyAuthenticator } from './auth/stored-api-key-authenticator.js';
import type { Authenticator, Credentials } from './ports/authenticator.js';
import { systemClock, type Clock } from './ports/clock.js';
import { randomIdGenerator, type IdGenerator } from './ports/id-generator.js';
import { noopLogger, type Logger } from './ports/logger.js';
import type { SecretBox } from './ports/secret-box.js';
import type { StorageAdapter } from './ports/storage.js';
import type { Principal } from './schemas/principal.js';
import { ApiKeysService } from './services/api-keys-service.js';
import type { ServiceContext } from './services/context.js';
import { GitProvidersService } from './services/git-providers-service.js';
import { SettingsService } from './services/settings-service.js';
import { SecretsService } from './services/secrets-service.js';
import { WebhooksService } from './services/webhooks-service.js';
import { AutomationIndex, type AutomationIndexOptions } from './automations/automation-index.js';
import { AutomationsService } from './services/automations-service.js';
import { DeliveriesService } from './services/deliveries-service.js';
import { GithubLinksService, storedLinksResolver } from './services/github-links-service.js';
import { EventsService } from './ingest/events-service.js';
import type { GithubOrgResolver } from './ingest/github-delivery.js';
import { RunExecutor, type RunExecutorOptions } from './runs/run-executor.js';
import type { SandboxRuntime } from './ports/sandbox-runtime.js';
import type { AgentRunner } from './ports/agent-runner.js';
import { createAgentPlatformTools } from './agents/platform-tools.js';
import { SandboxesService } from './services/sandboxes-service.js';
import { ConversationsService } from './services/conversations-service.js';
import type { RunQueue } from './ports/run-queue.js';
import { ChangeListenerLoop } from './runs/change-listener.js';
import { OutboundEvents } from './outbound/outbound-events.js';
import { OutboundDispatcher } from './outbound/dispatcher.js';
import { resolveOutboundOptions, type OutboundOptions } from './outbound/options.js';
import { SubscriptionsService } from './services/subscriptions-service.js';

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
   * Where the engine logs one line per inbound delivery and one per run transition (DESIGN §15).
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
  };
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
  /** Where executors claim PENDING runs. Default: the storage's own (`storage.runQueue`). */
  queue?: RunQueue;
  /** Concurrency, retries and time limits of the run executor. */
  executor?: Omit<RunExecutorOptions, 'runtime' | 'agent' | 'queue'>;
  /** Outbound events to subscribers (DESIGN §16): address policy, retries, disabling. */
  outbound?: OutboundOptions;
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
  /** Outbound-event subscribers, their messages and attempts (DESIGN §16). */
  readonly subscriptions: SubscriptionsService;
  /** Sends stored outbound messages (from `start()` on, unless `outbound.send` is false). */
  readonly outbound: OutboundDispatcher;
  /** Sandboxes (V1); answers 503 without a `runtime`. */
  readonly sandboxes: SandboxesService;
  /** Executes PENDING runs; `null` without a `runtime` and an `agent`. */
  readonly executor: RunExecutor | null;
  /** Largest inbound event body accepted, in bytes (HTTP bindings read up to it). */
  readonly maxEventBodyBytes: number;
  readonly storage: StorageAdapter;
  readonly publicUrl: string;
  /** The principal the credentials act for, or `null`. */
  authenticate(credentials: Credentials): Promise<Principal | null>;
  /** Resolves when the platform can serve (storage reachable); throws otherwise. */
  ready(): Promise<void>;
  /**
   * Starts background work: listening for changes made by other processes sharing the storage
   * (automations, cancels, new runs) and, unless told not to, executing runs.
   */
  start(options?: StartOptions): Promise<void>;
  /** Stops background work and closes the storage adapter. */
  stop(): Promise<void>;
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
  let executor: RunExecutor | null = null;
  let conversationsRef: ConversationsService | null = null;
  const context: ServiceContext = {
    storage: options.storage,
    secrets: options.secrets,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? randomIdGenerator,
    logger: options.logger ?? noopLogger,
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    webhookSecretGraceSeconds: grace,
    async announce(change) {
      // This process acts at once; the others hear of it through the feed.
      if (change.type === 'runs.pending') executor?.notify();
      if (change.type === 'run.cancelled') executor?.cancel(change.runId);
      // Live streams in this process read on at once, started or not; others hear of it below.
      if (change.type === 'conversation.events' || change.type === 'conversation.control') conversationsRef?.onChange(change);
      await options.storage.changes.publish(change).catch(() => {
        // Best effort: executors poll, and the matching index expires, behind the feed.
      });
    },
  };
  const outboundOptions = resolveOutboundOptions(options.outbound);
  const outboundEvents = new OutboundEvents(context);
  context.outbound = outboundEvents;
  const dispatcher = new OutboundDispatcher(context, outboundEvents, outboundOptions);
  outboundEvents.onPending = () => dispatcher.notify();
  const triggerMarks = new TriggerMarks(options.storage);
  context.triggerMarks = triggerMarks;
  const auth = options.auth ?? createStoredApiKeyAuthenticator({ storage: context.storage, clock: context.clock });
  const index = new AutomationIndex(context.storage, context.clock, options.matching);
  const webhooks = new WebhooksService(context);
  const automations = new AutomationsService(context, index);
  context.agentTools = (owner) => createAgentPlatformTools(automations, webhooks, owner);
  const settings = new SettingsService(context);
  const conversations = new ConversationsService(context, settings, options.runtime ?? null, options.agent ?? null, {
    timeoutSeconds: options.executor?.defaultTimeoutSeconds ?? 1800,
  });
  conversationsRef = conversations;
  if (options.runtime && options.agent) {
    executor = new RunExecutor(context, settings, {
      ...options.executor,
      runtime: options.runtime,
      agent: options.agent,
      ...(options.queue ? { queue: options.queue } : {}),
    });
  }
  const listener = new ChangeListenerLoop(context.storage, (change) => {
    if (change.type === 'automations.changed') index.invalidate(change.orgId, change.source);
    else if (change.type === 'webhooks.changed') webhooks.cache.invalidateOrg(change.orgId);
    else if (change.type === 'reset') {
      index.invalidateAll();
      webhooks.cache.invalidateAll();
    }
    if (change.type === 'conversation.events' || change.type === 'conversation.control') conversations.onChange(change);
    else if (change.type === 'run.cancelled') executor?.cancel(change.runId);
    else executor?.notify();
    if (change.type === 'reset') conversations.onChange(change);
  });
  const maxEventBodyBytes = options.events?.maxBodyBytes ?? DEFAULT_EVENT_BODY_BYTES;
  const dedupWindowSeconds = options.events?.dedupWindowSeconds ?? DEFAULT_DEDUP_WINDOW_SECONDS;

  return {
    settings,
    secrets: new SecretsService(context),
    executor,
    sandboxes: new SandboxesService(context, options.runtime ?? null),
    subscriptions: new SubscriptionsService(context, outboundEvents, { allowPrivateAddresses: outboundOptions.allowPrivateAddresses }),
    outbound: dispatcher,
    conversations,
    gitProviders: new GitProvidersService(context),
    apiKeys: new ApiKeysService(context),
    webhooks,
    automations,
    events: new EventsService(context, index, webhooks, {
      maxBodyBytes: maxEventBodyBytes,
      dedupWindowSeconds,
      signatureToleranceSeconds: options.events?.signatureToleranceSeconds ?? 300,
      githubWebhookSecrets: options.github?.webhookSecrets ?? [],
      resolveGithubOrgs: options.github?.resolveOrgs ?? storedLinksResolver(context.storage),
    }),
    deliveries: new DeliveriesService(context, index, dedupWindowSeconds),
    githubLinks: new GithubLinksService(context),
    maxEventBodyBytes,
    storage: context.storage,
    publicUrl: context.publicUrl,
    authenticate: (credentials) => auth.authenticate(credentials),
    ready: () => context.storage.ping(),
    start: async (startOptions = {}) => {
      await listener.start();
      if (startOptions.executeRuns !== false) await executor?.start();
      if (outboundOptions.send) dispatcher.start();
    },
    stop: async () => {
      await executor?.stop();
      await outboundEvents.flush();
      await dispatcher.stop();
      await triggerMarks.flush();
      await listener.stop();
      await conversations.stop();
      await context.storage.close();
    },
  };
}
