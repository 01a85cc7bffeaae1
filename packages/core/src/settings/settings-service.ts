import { keyActor } from '../audit/audit-log.js';
import { notFound } from '../kernel/errors.js';
import type { Principal } from '../schemas/principal.js';
import {
  SETTINGS_SECRET_FIELDS,
  SETTINGS_STICKY_FIELDS,
  SETTINGS_VALUE_FIELDS,
  settingsInputSchema,
  type ParsedSettingsInput,
  type SettingsRecord,
  type SettingsValues,
  type SettingsView,
} from '../schemas/settings.js';
import { parseInput } from '../kernel/validation.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { maskMcpConfig, openMcpConfig, sealMcpConfig } from './mcp-secrets.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import type { ProviderTokensRecord } from '../schemas/provider-tokens.js';
import type { SettingsSchemaDocument, V1SettingsView } from '../schemas/openhands-settings.js';
import { agentSettingsSchemaDocument, conversationSettingsSchemaDocument, openHandsSettingsChanges, openHandsSettingsView } from './openhands-settings.js';
import type { AgentCatalog } from '../agents/agent-router.js';
import { checkAgentName, v1AgentLoc } from './agent-name.js';
import { BUILT_IN_SECURITY_ANALYZERS, checkSecurityAnalyzer, v1SecurityAnalyzerLoc } from '../security/analyzer-names.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import { checkOwnerImages, ownerImageSetting } from '../sandboxes/owner-image.js';

type CustomSecretsInput = NonNullable<ParsedSettingsInput['secrets_store']>['custom_secrets'];
type StoredCustomSecrets = NonNullable<SettingsRecord['custom_secrets']>;

/** A user's settings with every default applied: what a record starts from. */
export const defaultSettingsValues = (): SettingsValues => {
  const parsed = settingsInputSchema.parse({});
  return Object.fromEntries(SETTINGS_VALUE_FIELDS.map((field) => [field, parsed[field] ?? null])) as SettingsValues;
};

/** A new settings record holding only defaults. */
export function emptySettingsRecord(userId: string, now: string): SettingsRecord {
  return { user_id: userId, values: defaultSettingsValues(), secrets: {}, mcp_config: null, created_at: now, updated_at: now };
}

/**
 * Per-user settings. Storing replaces every field except secrets and the sticky
 * `llm_model` / `llm_base_url`, which keep their stored value when omitted or `null`;
 * `""` clears a secret.
 */
export class SettingsService {
  private readonly agents: AgentCatalog | null;
  /** The names the `security_analyzer` setting may take. */
  private readonly securityAnalyzers: readonly string[];
  /** The platform's sandbox runtime: the owner's sandbox image must be one it runs. */
  private readonly runtime: SandboxRuntime | null;

  /** `agents`: the names the `agent` setting may take (any, without). */
  constructor(
    private readonly context: ServiceContext,
    options: { agents?: AgentCatalog | null; runtime?: SandboxRuntime | null; securityAnalyzers?: readonly string[] } = {},
  ) {
    this.agents = options.agents ?? null;
    this.securityAnalyzers = options.securityAnalyzers ?? BUILT_IN_SECURITY_ANALYZERS;
    this.runtime = options.runtime ?? null;
  }

  /** The names the `agent` setting may take here, the default first (`GET /api/options/agents`); empty when any is kept. */
  agentNames(): string[] {
    return this.agents?.names() ?? [];
  }

  async store(principal: Principal, input: unknown): Promise<void> {
    // Only a missing body means "no fields": an explicit JSON null is a 422, not a reset.
    const parsed = parseInput(settingsInputSchema, input === undefined ? {} : input);
    checkAgentName(parsed.agent, this.agents, ['body', 'agent']);
    checkSecurityAnalyzer(parsed.security_analyzer, this.securityAnalyzers, ['body', 'security_analyzer']);
    await checkOwnerImages(this.runtime, parsed);
    await this.write(principal, parsed, null);
  }

  /**
   * Saves OpenHands' V1 body (`POST /api/v1/settings`): `agent_settings_diff`,
   * `conversation_settings_diff` and flat fields, a partial update — only the fields the body
   * names change, each by the rules of {@link store} (a secret or a sticky field sent `null`
   * keeps its value, `""` clears a secret). Validated with the same field schemas as `store`.
   */
  async saveOpenHands(principal: Principal, input: unknown): Promise<void> {
    const changes = openHandsSettingsChanges(input);
    checkAgentName(changes.agent, this.agents, v1AgentLoc(input));
    checkSecurityAnalyzer(changes.security_analyzer, this.securityAnalyzers, v1SecurityAnalyzerLoc(input));
    await checkOwnerImages(this.runtime, changes);
    await this.write(principal, changes, new Set(Object.keys(changes)));
  }

  /**
   * Writes validated settings over the stored record, in one transaction. With `named`, only
   * those fields change (a partial update); without, every value field and `mcp_config` is
   * replaced (an omitted one becomes its default). Secrets and custom secrets not sent are kept
   * either way.
   */
  private async write(principal: Principal, parsed: Partial<ParsedSettingsInput>, named: ReadonlySet<string> | null): Promise<void> {
    const sent = (field: string) => named === null || named.has(field);
    // Which fields the request named: recorded, never their values (keys and secrets among them).
    const fields = Object.keys(parsed).filter((field) => sent(field) && (parsed as Record<string, unknown>)[field] !== undefined);
    await this.context.storage.transaction(async (tx) => {
      const now = nowIso(this.context);
      const stored = (await tx.settings.get(principal.userId)) ?? emptySettingsRecord(principal.userId, now);
      const values = {} as Record<keyof SettingsValues, unknown>;
      for (const field of SETTINGS_VALUE_FIELDS) {
        if (!sent(field)) {
          values[field] = stored.values[field];
          continue;
        }
        const next = parsed[field];
        const sticky = (SETTINGS_STICKY_FIELDS as readonly string[]).includes(field);
        values[field] = next == null && sticky ? stored.values[field] : (next ?? null);
      }
      const secrets = { ...stored.secrets };
      for (const field of SETTINGS_SECRET_FIELDS) {
        const next = parsed[field];
        if (next === '') delete secrets[field];
        else if (next != null) secrets[field] = this.context.secrets.seal(next);
      }
      const mcpConfig = !sent('mcp_config')
        ? stored.mcp_config
        : parsed.mcp_config
          ? sealMcpConfig(parsed.mcp_config, stored.mcp_config, this.context.secrets)
          : null;
      const customSecrets = this.customSecrets(parsed.secrets_store?.custom_secrets, stored.custom_secrets ?? {});
      await tx.settings.put({ ...stored, values: values as SettingsValues, secrets, mcp_config: mcpConfig, custom_secrets: customSecrets, updated_at: now });
    });
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'settings.updated',
      target: { type: 'user', id: principal.userId },
      details: { fields },
    });
  }

  /** The custom secrets to store: the sent set (sealed), a member without a value keeping the stored one. */
  private customSecrets(sent: CustomSecretsInput, stored: StoredCustomSecrets): StoredCustomSecrets {
    if (sent == null) return stored;
    const next: StoredCustomSecrets = {};
    for (const [name, member] of Object.entries(sent)) {
      const value = typeof member === 'string' ? member : (member.secret ?? '');
      const description = typeof member === 'string' ? (stored[name]?.description ?? null) : (member.description ?? stored[name]?.description ?? null);
      if (value !== '') next[name] = { secret: this.context.secrets.seal(value), description };
      else if (stored[name]) next[name] = { secret: stored[name].secret, description };
    }
    return next;
  }

  /** The settings with secrets masked; 404 when the user has stored neither settings nor tokens. */
  async get(principal: Principal): Promise<SettingsView> {
    const view = await this.viewOf(principal);
    if (!view) throw notFound('Settings');
    return view;
  }

  /**
   * `GET /api/v1/settings`: the settings as {@link get} shows them, with OpenHands' nested
   * `agent_settings` (never the API key) and `conversation_settings`; the defaults when nothing
   * is stored yet (OpenHands clients read settings first).
   */
  async openHandsView(principal: Principal): Promise<V1SettingsView> {
    const view = (await this.viewOf(principal)) ?? this.maskedView(emptySettingsRecord(principal.userId, nowIso(this.context)), null);
    return openHandsSettingsView(view);
  }

  /** The JSON Schema of `agent_settings_diff` (`GET /api/v1/settings/agent-schema`). */
  agentSettingsSchema(): SettingsSchemaDocument {
    return agentSettingsSchemaDocument();
  }

  /** The JSON Schema of `conversation_settings_diff` (`GET /api/v1/settings/conversation-schema`). */
  conversationSettingsSchema(): SettingsSchemaDocument {
    return conversationSettingsSchemaDocument();
  }

  /** The masked view; `null` when the user has stored neither settings nor tokens. */
  private async viewOf(principal: Principal): Promise<SettingsView | null> {
    const storage = this.context.storage;
    const [record, tokens] = await Promise.all([storage.settings.get(principal.userId), storage.providerTokens.get(principal.userId)]);
    if (!record && !tokens) return null;
    return this.maskedView(record ?? emptySettingsRecord(principal.userId, nowIso(this.context)), tokens);
  }

  private maskedView(base: SettingsRecord, tokens: ProviderTokensRecord | null): SettingsView {
    const providerTokensSet: Record<string, string | null> = {};
    for (const [provider, token] of Object.entries(tokens?.tokens ?? {})) {
      if (token) providerTokensSet[provider] = token.host;
    }
    // Object.assign, not a spread: spreading a 20-field record and adding nine more is several
    // times slower in V8, and this is on every GET.
    return Object.assign({}, base.values, {
      llm_api_key: null,
      search_api_key: null,
      sandbox_api_key: null,
      llm_api_key_set: base.secrets.llm_api_key !== undefined,
      search_api_key_set: base.secrets.search_api_key !== undefined,
      sandbox_api_key_set: base.secrets.sandbox_api_key !== undefined,
      mcp_config: base.mcp_config ? maskMcpConfig(base.mcp_config) : null,
      provider_tokens_set: providerTokensSet,
      custom_secrets: Object.entries(base.custom_secrets ?? {}).map(([name, { description }]) => ({ name, description })),
    });
  }

  /**
   * The user's settings with every secret opened, for an agent about to run on their behalf.
   * Never returned over HTTP; call it only right before a run.
   */
  async agentSettings(userId: string): Promise<AgentSettings> {
    const storage = this.context.storage;
    const box = this.context.secrets;
    const [record, tokens] = await Promise.all([storage.settings.get(userId), storage.providerTokens.get(userId)]);
    const values = record?.values;
    const providerTokens: AgentSettings['providerTokens'] = {};
    for (const [provider, token] of Object.entries(tokens?.tokens ?? {})) {
      if (token) providerTokens[provider as keyof typeof providerTokens] = { token: box.open(token.token), host: token.host };
    }
    const customSecrets: Record<string, string> = {};
    for (const [name, { secret }] of Object.entries(record?.custom_secrets ?? {})) customSecrets[name] = box.open(secret);
    return {
      agent: values?.agent ?? null,
      llmModel: values?.llm_model ?? null,
      llmApiKey: record?.secrets.llm_api_key ? box.open(record.secrets.llm_api_key) : null,
      llmBaseUrl: values?.llm_base_url ?? null,
      providerTokens,
      gitUserName: values?.git_user_name ?? null,
      gitUserEmail: values?.git_user_email ?? null,
      mcpConfig: record?.mcp_config ? openMcpConfig(record.mcp_config, box) : null,
      maxIterations: values?.max_iterations ?? null,
      maxBudgetPerTask: values?.max_budget_per_task ?? null,
      confirmationMode: values?.confirmation_mode ?? null,
      enableDefaultCondenser: values?.enable_default_condenser ?? true,
      customSecrets,
      securityAnalyzer: values?.security_analyzer ?? null,
      searchApiKey: record?.secrets.search_api_key ? box.open(record.secrets.search_api_key) : null,
      language: values?.language ?? null,
      sandboxImage: ownerImageSetting(values)?.image ?? null,
      sandboxApiKey: record?.secrets.sandbox_api_key ? box.open(record.secrets.sandbox_api_key) : null,
    };
  }
}
