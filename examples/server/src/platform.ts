import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, type AgentPlatform } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';

/** The engine on the server's embedded defaults: in-memory storage, seeded API keys. */
export async function createServerPlatform(config: ServerConfig, logger: Logger): Promise<AgentPlatform> {
  let secretKey = config.secretKey;
  if (!secretKey) {
    secretKey = generateSecretKey();
    logger.warn('AGENT_PLATFORM_SECRET_KEY is not set: using a generated development key; secrets stored now cannot be read after a restart');
  }
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k1: secretKey } }),
    publicUrl: config.publicUrl,
    github: { webhookSecrets: config.githubWebhookSecrets },
  });
  for (const link of config.githubLinks) await platform.githubLinks.link(link);
  if (config.githubWebhookSecrets.length === 0) {
    logger.info('AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET is not set: the GitHub events endpoint answers 404');
  }
  if (config.seededKeys.length === 0) {
    logger.warn('AGENT_PLATFORM_API_KEYS is not set: no API key can call the API (set e.g. AGENT_PLATFORM_API_KEYS=alice@acme:<a key of 16+ characters>)');
  }
  for (const seeded of config.seededKeys) {
    await platform.apiKeys.seed({ ...seeded, name: 'AGENT_PLATFORM_API_KEYS' });
    logger.info({ userId: seeded.userId, orgId: seeded.orgId }, 'seeded API key');
  }
  return platform;
}
