/**
 * The real HTTP handler, in process: the engine over memory storage and the process runtime,
 * served by `createFetchHandler`, which the client takes as its `fetch`. No socket, same bytes.
 * Users alice and bob share org `acme`; mallory is in org `evil`.
 */
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type AgentPlatform,
  type AgentPlatformOptions,
} from '@agent-platform/core';
import { createFetchHandler } from '@agent-platform/http';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createClient, type ClientOptions } from '../src/index.js';

export const KEYS = {
  alice: 'alice-client-key-0123456789',
  bob: 'bob-client-key-0123456789',
  mallory: 'mallory-client-key-0123456789',
} as const;

export const GITHUB_SECRET = 'github-client-test-secret';
export const BASE_URL = 'https://agents.example.com';

/** Prints its task and a structured event; fails when the task says `fail`, waits on `sleep`. */
export const TEST_AGENT = [
  'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"',
  `echo '{"kind":"tool_call","tool":"ls"}'`,
  'case "$AGENT_PLATFORM_INSTRUCTIONS" in *fail*) echo "quota exceeded" >&2; exit 4;; *sleep*) sleep 30;; esac',
].join('; ');

export interface InProcessService {
  platform: AgentPlatform;
  /** Every request the client sent, in order. */
  requests: Request[];
  fetch: typeof globalThis.fetch;
  client(as?: keyof typeof KEYS | null, options?: Partial<ClientOptions>): ReturnType<typeof createClient>;
  close(): Promise<void>;
}

export async function startInProcess(options: Partial<AgentPlatformOptions> = {}): Promise<InProcessService> {
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { test: generateSecretKey() } }),
    publicUrl: BASE_URL,
    runtime,
    agent: createCommandAgentRunner({ command: TEST_AGENT }),
    github: { webhookSecrets: [GITHUB_SECRET] },
    ...options,
  });
  await platform.apiKeys.seed({ userId: 'alice', orgId: 'acme', key: KEYS.alice });
  await platform.apiKeys.seed({ userId: 'bob', orgId: 'acme', key: KEYS.bob });
  await platform.apiKeys.seed({ userId: 'mallory', orgId: 'evil', key: KEYS.mallory });
  await platform.start();
  const handler = createFetchHandler(platform);
  const requests: Request[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    requests.push(request.clone());
    return handler(request);
  };
  return {
    platform,
    requests,
    fetch,
    client: (as = 'alice', extra = {}) => createClient({ baseUrl: BASE_URL, fetch, ...(as ? { apiKey: KEYS[as] } : {}), ...extra }),
    async close() {
      await platform.stop();
      await runtime.close();
    },
  };
}
