/**
 * A stand-in model to watch the built-in agent work without a cloud key: the scripted fake LLM
 * of `@agent-platform/testing` (it speaks OpenAI's chat API on loopback), answering every task the
 * same way — one `terminal` command in the sandbox, then a final answer that says it came from
 * this script. No real model is called, and nothing it says is generated.
 *
 *   npx -y pnpm@10.34.8 scripted-model
 *
 * It prints the settings to store for an owner (`llm_model`, `llm_base_url`, `llm_api_key`); the
 * owner's next run uses the built-in agent against it. Ctrl-C stops it. With a local
 * OpenAI-compatible server (Ollama, vLLM) use that instead: see the README.
 */
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

const llm = await startFakeLlmServer({ apiKey: KEY, respond });
const settings = JSON.stringify({ llm_model: MODEL, llm_base_url: `${llm.url}/v1`, llm_api_key: KEY });
console.log(`The scripted model (not a real LLM) answers at ${llm.url}/v1 — Ctrl-C stops it.

Point an owner at it (with the reference server on :3000 and KEY one of its API keys):

  curl -s -X POST http://localhost:3000/api/v1/settings -H "X-Session-API-Key: $KEY" \\
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
