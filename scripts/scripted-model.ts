/**
 * A stand-in model to watch the built-in agent work without a cloud key: the scripted fake LLM
 * of `@agent-platform/testing` (it speaks OpenAI's chat API on loopback), answering every task the
 * same way — one `terminal` command in the sandbox, then a final answer that says it came from
 * this script. No real model is called, and nothing it says is generated.
 *
 *   npx -y pnpm@10.34.8 scripted-model            # on 127.0.0.1:4010
 *   npx -y pnpm@10.34.8 scripted-model --port 4011
 *
 * It prints the settings to store for an owner (`llm_model`, `llm_base_url`, `llm_api_key`); the
 * owner's next run uses the built-in agent against it. It listens on the same port at every start
 * (4010, or `--port` / `AGENT_PLATFORM_SCRIPTED_MODEL_PORT`), so the stored `llm_base_url` still
 * holds after a restart. Ctrl-C stops it. With a local
 * OpenAI-compatible server (Ollama, vLLM) use that instead: see the README.
 */
import { parseArgs } from 'node:util';
import { startFakeLlmServer, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';

const MODEL = 'openai/scripted-demo';
const KEY = 'scripted-model-key';

/** A command on the first step of a task, then the final answer. */
function respond(request: RecordedLlmRequest) {
  const steps = (request.body.messages as { role: string }[]).filter((message) => message.role === 'assistant').length;
  if (steps === 0) {
    return {
      text: 'Looking at the sandbox first.',
      toolCalls: [{ name: 'terminal', arguments: { command: 'pwd && ls -la && echo "(run by the scripted model of @agent-platform/testing)"' } }],
    };
  }
  return { text: 'Done: I listed the sandbox. This is the scripted model of @agent-platform/testing — no real model was called.' };
}

const { values } = parseArgs({ options: { port: { type: 'string', default: process.env.AGENT_PLATFORM_SCRIPTED_MODEL_PORT ?? '4010' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`scripted-model: --port must be a port number (0 for any free one), got ${JSON.stringify(values.port)}`);
  process.exit(2);
}
const llm = await startFakeLlmServer({ apiKey: KEY, respond, port }).catch((error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  console.error(`scripted-model: 127.0.0.1:${port} is taken (another scripted model?): stop it, or start this one with --port <another>`);
  process.exit(1);
});
const settings = JSON.stringify({ llm_model: MODEL, llm_base_url: `${llm.url}/v1`, llm_api_key: KEY });
console.log(`The scripted model (not a real LLM) answers at ${llm.url}/v1 — Ctrl-C stops it.

Point an owner at it, in the shell where API is the reference server's address and KEY one of its
API keys (the README's walkthrough sets both):

  curl -s -X POST "\${API:-http://localhost:3000}/api/v1/settings" -H "X-Session-API-Key: $KEY" \\
    -H 'content-type: application/json' -d '${settings}'

Their next run uses the built-in agent: one command in the sandbox, then a final answer.
To go back: -d '{"llm_model": ""}'.`);
let answered = 0;
setInterval(() => {
  if (llm.requests.length === answered) return;
  answered = llm.requests.length;
  console.log(`${new Date().toISOString()} model calls so far: ${answered}`);
}, 1000);
process.once('SIGINT', () => void llm.close().then(() => process.exit(0)));
process.once('SIGTERM', () => void llm.close().then(() => process.exit(0)));
