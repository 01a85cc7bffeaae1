import { keyActor } from '../audit/audit-log.js';
import type { Principal } from '../schemas/principal.js';
import { providerTokensInputSchema, unsetProviderTokensInputSchema, type ProviderTokensRecord, type StoredProviderToken } from '../schemas/provider-tokens.js';
import { parseInput } from '../kernel/validation.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { sealMcpConfig } from './mcp-secrets.js';
import { emptySettingsRecord } from './settings-service.js';

/**
 * Git-provider tokens, one map per user. Storing merges: each provider named in the
 * body is set, the others stay. An entry with an empty token keeps the stored token and takes
 * the new host; with no stored token it is skipped, since a host alone cannot be used.
 */
export class GitProvidersService {
  constructor(private readonly context: ServiceContext) {}

  async store(principal: Principal, input: unknown): Promise<void> {
    const parsed = parseInput(providerTokensInputSchema, input === undefined ? {} : input);
    const { secrets } = this.context;
    await this.context.storage.transaction(async (tx) => {
      const now = nowIso(this.context);
      const stored = await tx.providerTokens.get(principal.userId);
      const tokens: ProviderTokensRecord['tokens'] = { ...stored?.tokens };
      for (const [provider, entry] of Object.entries(parsed.provider_tokens)) {
        if (!entry) continue;
        const previous: StoredProviderToken | undefined = tokens[provider as keyof typeof tokens];
        const host = entry.host !== undefined ? entry.host?.trim() || null : (previous?.host ?? null);
        const userId = entry.user_id !== undefined ? entry.user_id : (previous?.user_id ?? null);
        if (entry.token) {
          tokens[provider as keyof typeof tokens] = { token: secrets.seal(entry.token), host, user_id: userId };
        } else if (previous) {
          tokens[provider as keyof typeof tokens] = { ...previous, host, user_id: userId };
        }
      }
      await tx.providerTokens.put({ user_id: principal.userId, tokens, updated_at: now });
      if (parsed.mcp_config) {
        const settings = (await tx.settings.get(principal.userId)) ?? emptySettingsRecord(principal.userId, now);
        const mcpConfig = sealMcpConfig(parsed.mcp_config, settings.mcp_config, secrets);
        await tx.settings.put({ ...settings, mcp_config: mcpConfig, updated_at: now });
      }
    });
    // Which providers, never their tokens.
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'git_tokens.updated',
      target: { type: 'user', id: principal.userId },
      details: { providers: Object.keys(parsed.provider_tokens), mcp_config: Boolean(parsed.mcp_config) },
    });
  }

  /** Removes every stored token, or only those of the providers named. */
  async unset(principal: Principal, input: unknown): Promise<void> {
    const parsed = parseInput(unsetProviderTokensInputSchema, input === undefined ? {} : input);
    await this.context.storage.transaction(async (tx) => {
      if (!parsed.providers) {
        await tx.providerTokens.delete(principal.userId);
        return;
      }
      const stored = await tx.providerTokens.get(principal.userId);
      if (!stored) return;
      const tokens = { ...stored.tokens };
      for (const provider of parsed.providers) delete tokens[provider];
      await tx.providerTokens.put({ ...stored, tokens, updated_at: nowIso(this.context) });
    });
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'git_tokens.removed',
      target: { type: 'user', id: principal.userId },
      details: { providers: parsed.providers ?? 'all' },
    });
  }
}
