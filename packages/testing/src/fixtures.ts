/**
 * Record builders for storage tests. Every builder returns a record that passes the matching
 * record schema of `@agent-platform/core`, with fresh ids so tests can share one backend
 * (a database reused across tests) without stepping on each other.
 * @module
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type {
  OutboundMessageRecord,
  SubscriptionRecord,
  ApiKeyRecord,
  AppConversationRecord,
  AutomationRecord,
  ConversationEvent,
  DedupClaim,
  DeliveryRecord,
  GithubLinkRecord,
  ProviderTokensRecord,
  RunRecord,
  SandboxRecord,
  SettingsRecord,
  SettingsValues,
  StartTaskRecord,
  StoredTrigger,
  WebhookRecord,
} from '@agent-platform/core';

// Ids carry a per-process prefix so records from earlier runs against a persistent backend never collide.
const RUN = randomUUID().slice(0, 8);
/** The same for numeric keys (GitHub installation ids): fixed width, so `${RUN_DIGITS}${n}` never repeats. */
const RUN_DIGITS = String(randomInt(100_000_000, 1_000_000_000));
let sequence = 0;

/** A fresh id, unique within and across runs: `${prefix}_<run>_<n>`. */
export function uniqueId(prefix = 'id'): string {
  sequence += 1;
  return `${prefix}_${RUN}_${sequence}`;
}

const EPOCH = Date.UTC(2025, 0, 1);

/** An ISO-8601 UTC timestamp `seconds` after 2025-01-01, to order records deterministically. */
export function fixtureTime(seconds = 0): string {
  return new Date(EPOCH + seconds * 1000).toISOString();
}

/** A stand-in for a `SecretBox`-sealed value; adapters store it as an opaque string. */
function sealed(label: string): string {
  return `sealed:v1:${label}:${randomBytes(6).toString('hex')}`;
}

export type SettingsRecordOverrides = Partial<Omit<SettingsRecord, 'values'>> & {
  /** Merged over the default values, so a test names only the fields it cares about. */
  values?: Partial<SettingsValues>;
};

/** A settings record with every value set and a nested `mcp_config`, to exercise deep copies. */
export function makeSettingsRecord(overrides: SettingsRecordOverrides = {}): SettingsRecord {
  const { values, ...rest } = overrides;
  return {
    user_id: uniqueId('user'),
    values: {
      language: 'en',
      agent: 'CodeActAgent',
      max_iterations: 100,
      security_analyzer: null,
      confirmation_mode: false,
      llm_model: 'anthropic/claude-sonnet-4',
      llm_base_url: null,
      remote_runtime_resource_factor: 1,
      enable_default_condenser: true,
      enable_sound_notifications: false,
      enable_proactive_conversation_starters: true,
      enable_solvability_analysis: true,
      user_consents_to_analytics: null,
      sandbox_base_container_image: null,
      sandbox_runtime_container_image: null,
      max_budget_per_task: 5.5,
      email: 'dev@example.com',
      email_verified: true,
      git_user_name: 'Dev',
      git_user_email: 'dev@example.com',
      ...values,
    },
    secrets: { llm_api_key: sealed('llm') },
    mcp_config: {
      sse_servers: [{ url: 'https://mcp.example.com/sse', api_key: sealed('sse') }],
      stdio_servers: [{ name: 'fs', command: 'npx', args: ['-y', 'mcp-fs'], env: { FS_TOKEN: sealed('env') } }],
      shttp_servers: [],
    },
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    ...rest,
  };
}

/** A provider-token record holding one GitHub token. */
export function makeProviderTokensRecord(overrides: Partial<ProviderTokensRecord> = {}): ProviderTokensRecord {
  return {
    user_id: uniqueId('user'),
    tokens: { github: { token: sealed('github'), host: null, user_id: null } },
    updated_at: fixtureTime(0),
    ...overrides,
  };
}

/** An API-key record with a random 64-hex-digit `key_hash`, so two builds never share a hash. */
export function makeApiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: uniqueId('key'),
    user_id: uniqueId('user'),
    org_id: uniqueId('org'),
    name: 'API key',
    prefix: 'ap_live_abc',
    key_hash: randomBytes(32).toString('hex'),
    created_at: fixtureTime(0),
    last_used_at: null,
    ...overrides,
  };
}

/** A webhook record with a source that is unique (and valid) for each build. */
export function makeWebhookRecord(overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: uniqueId('wh'),
    org_id: uniqueId('org'),
    created_by: uniqueId('user'),
    name: 'Deploy events',
    source: `source-${RUN}-${(sequence += 1)}`,
    event_key_expr: 'type',
    event_key_header: null,
    signature_header: 'X-Signature-256',
    signature_scheme: 'hmac-sha256',
    delivery_id_header: null,
    enabled: true,
    secret: sealed('webhook'),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    ...overrides,
  };
}

export type AutomationRecordOverrides = Partial<Omit<AutomationRecord, 'trigger'>> & {
  /** Merged over the default trigger, so a test names only the fields it cares about. */
  trigger?: Partial<StoredTrigger>;
};

/** An enabled automation on `github` events, with an array of patterns to exercise deep copies. */
export function makeAutomationRecord(overrides: AutomationRecordOverrides = {}): AutomationRecord {
  const { trigger, ...rest } = overrides;
  return {
    id: uniqueId('auto'),
    org_id: uniqueId('org'),
    created_by: uniqueId('user'),
    name: 'Review pull requests',
    enabled: true,
    trigger: {
      type: 'event',
      source: 'github',
      on: ['pull_request.opened', 'pull_request.synchronize'],
      filter: "payload.pull_request.draft == `false`",
      ...trigger,
    },
    instructions: 'Review the pull request and leave comments.',
    sandbox_spec_id: null,
    llm_model: 'anthropic/claude-sonnet-4',
    selected_repository: 'acme/widgets',
    timeout_seconds: 1800,
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    last_triggered_at: null,
    ...rest,
  };
}

/** A PENDING run of an event delivery. */
export function makeRunRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: uniqueId('run'),
    org_id: uniqueId('org'),
    automation_id: uniqueId('auto'),
    delivery_id: uniqueId('dlv'),
    trigger: 'event',
    event_key: 'pull_request.opened',
    status: 'PENDING',
    attempt: 0,
    conversation_id: null,
    sandbox_id: null,
    error_detail: null,
    created_by: null,
    created_at: fixtureTime(0),
    started_at: null,
    completed_at: null,
    dispatch_payload_json: null,
    ...overrides,
  };
}

/** A matched `github` delivery with one outcome and one run, and a fresh dedup key. */
export function makeDeliveryRecord(overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  const providerDeliveryId = randomUUID();
  const runId = uniqueId('run');
  return {
    id: uniqueId('dlv'),
    org_id: uniqueId('org'),
    source: 'github',
    provider_delivery_id: providerDeliveryId,
    event_key: 'pull_request.opened',
    status: 'matched',
    detail: null,
    outcomes: [
      {
        automation_id: uniqueId('auto'),
        automation_name: 'Review pull requests',
        matched: true,
        reason: 'matched',
        error: null,
        run_id: runId,
      },
    ],
    runs_created: [runId],
    replay_of: null,
    received_at: fixtureTime(0),
    payload_json: JSON.stringify({ action: 'opened', pull_request: { number: 1, draft: false } }),
    dedup_key: `id:${providerDeliveryId}`,
    ...overrides,
  };
}

/**
 * A link of an account (a fresh lower-case login) to an org; with `kind: 'installation'`, a
 * fresh numeric installation id.
 */
export function makeGithubLinkRecord(overrides: Partial<GithubLinkRecord> = {}): GithubLinkRecord {
  const kind = overrides.kind ?? 'account';
  return {
    kind,
    key: kind === 'installation' ? `${RUN_DIGITS}${(sequence += 1)}` : `login-${RUN}-${(sequence += 1)}`,
    org_id: uniqueId('org'),
    created_at: fixtureTime(0),
    ...overrides,
  };
}

/** A RUNNING `process` sandbox with a sealed session key and one exposed URL. */
export function makeSandboxRecord(overrides: Partial<SandboxRecord> = {}): SandboxRecord {
  return {
    id: uniqueId('sbx'),
    created_by_user_id: uniqueId('user'),
    org_id: uniqueId('org'),
    sandbox_spec_id: 'default',
    status: 'RUNNING',
    runtime: 'process',
    session_api_key: sealed('session'),
    exposed_urls: [{ name: 'AGENT_SERVER', url: 'http://127.0.0.1:8000', port: 8000 }],
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    ...overrides,
  };
}

/** A running GUI conversation on a repository, with a PR number to exercise deep copies. */
export function makeConversationRecord(overrides: Partial<AppConversationRecord> = {}): AppConversationRecord {
  return {
    id: uniqueId('conv'),
    created_by_user_id: uniqueId('user'),
    org_id: uniqueId('org'),
    sandbox_id: uniqueId('sbx'),
    selected_repository: 'acme/widgets',
    selected_branch: 'main',
    git_provider: 'github',
    title: 'Fix the flaky test',
    trigger: 'gui',
    pr_number: [42],
    llm_model: 'anthropic/claude-sonnet-4',
    sandbox_status: 'RUNNING',
    execution_status: 'running',
    run_id: null,
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    ...overrides,
  };
}

/**
 * An agent event with structured `data` (nested, to exercise deep copies), at `seq` 0. Pass it
 * to `conversations.appendEvents`, which ignores `seq` and numbers events itself.
 */
export function makeConversationEvent(overrides: Partial<ConversationEvent> = {}): ConversationEvent {
  return {
    id: uniqueId('evt'),
    conversation_id: uniqueId('conv'),
    seq: 0,
    kind: 'agent_event',
    source: 'agent',
    message: null,
    data: { type: 'tool_call', tool: 'bash', args: { command: 'ls' }, lines: ['a', 'b'] },
    created_at: fixtureTime(0),
    ...overrides,
  };
}

/** A start task waiting for its sandbox, with a nested request to exercise deep copies. */
export function makeStartTaskRecord(overrides: Partial<StartTaskRecord> = {}): StartTaskRecord {
  return {
    id: uniqueId('task'),
    created_by_user_id: uniqueId('user'),
    org_id: uniqueId('org'),
    status: 'WAITING_FOR_SANDBOX',
    detail: null,
    app_conversation_id: null,
    sandbox_id: null,
    request: { selected_repository: 'acme/widgets', initial_message: { content: [{ type: 'text', text: 'Hi' }] } },
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    ...overrides,
  };
}

/** The dedup claim a delivery's ingest makes: its key, live for an hour after `fixtureTime(0)`. */
export function makeDedupClaim(delivery: DeliveryRecord, overrides: Partial<DedupClaim> = {}): DedupClaim {
  return {
    orgId: delivery.org_id,
    source: delivery.source,
    key: delivery.dedup_key,
    deliveryId: delivery.id,
    expiresAt: fixtureTime(3600),
    now: fixtureTime(0),
    ...overrides,
  };
}

/** An enabled subscription to run outcomes, its secret sealed. */
export function makeSubscriptionRecord(overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  return {
    id: uniqueId('sub'),
    org_id: uniqueId('org'),
    url: 'https://hooks.example.com/agent-platform',
    event_types: ['run.completed', 'run.failed'],
    description: null,
    enabled: true,
    disabled_reason: null,
    consecutive_failures: 0,
    failing_since: null,
    last_success_at: null,
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    secret_encrypted: `sealed:v1:whsec:${randomBytes(6).toString('hex')}`,
    ...overrides,
  };
}

/** A pending `run.completed` message not yet tried, due at its creation, held by nobody. */
export function makeOutboundMessageRecord(overrides: Partial<OutboundMessageRecord> = {}): OutboundMessageRecord {
  return {
    id: uniqueId('msg'),
    org_id: uniqueId('org'),
    subscription_id: uniqueId('sub'),
    event_type: 'run.completed',
    payload: { type: 'run.completed', timestamp: fixtureTime(0), data: { id: uniqueId('run'), status: 'COMPLETED' } },
    status: 'pending',
    attempt: 0,
    next_attempt_at: fixtureTime(0),
    detail: null,
    attempts: [],
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    lease_owner: null,
    lease_expires_at: null,
    ...overrides,
  };
}
