/**
 * A server for the HTTP benchmarks, run as a child process so the load generator does not share
 * its event loop. `platform`: the reference Fastify app over memory storage with a seeded key;
 * `bare`: plain Fastify routes that only parse a JSON body and answer. Prints its port.
 */
import Fastify from 'fastify';
import { pino } from 'pino';
import { createFastifyApp } from '@agent-platform/example-server/app';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import { loadConfig } from '@agent-platform/example-server/config';

export const BENCH_KEY = 'bench-key-0123456789abcdef';

const mode = process.argv[2];
const logger = pino({ level: 'silent' });
/** The reference Fastify app over memory storage, with a seeded key and settings. */
async function platformApp() {
  const config = loadConfig({
    AGENT_PLATFORM_STORAGE: 'memory',
    AGENT_PLATFORM_API_KEYS: `alice@acme:${BENCH_KEY}`,
    AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
  });
  const { platform } = await createServerPlatform(config, logger);
  await platform.settings.store({ userId: 'alice', orgId: 'acme' }, { llm_model: 'm', llm_api_key: 'sk-bench' });
  return createFastifyApp(platform, logger);
}

/** Plain Fastify routes that only parse a JSON body and answer. */
function bareApp() {
  const app = Fastify({ logger: false });
  app.get('/api/settings', async () => ({ language: null, llm_model: 'm', llm_api_key: null }));
  app.post('/api/settings', async (request) => {
    JSON.stringify(request.body);
    return { message: 'Settings stored' };
  });
  return app;
}

const app = mode === 'platform' ? await platformApp() : bareApp();
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
