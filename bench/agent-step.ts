/**
 * The built-in agent's own overhead per step: the fake LLM server (in a child
 * process, as a provider is elsewhere) answers at once with a no-op command (`true`), so a step is one model call over loopback HTTP through the AI
 * SDK, one ActionEvent, the command in the sandbox and one ObservationEvent. The figure is the
 * time per step minus the time of the bare sandbox exec, measured on the same runtime just
 * before, and minus a bare round trip to the fake LLM (plain `fetch` of a streamed answer: the
 * model's time, not the agent's). Two set-ups: the runner alone, and a whole run through the engine (memory storage,
 * every event stored). Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source agent-step.ts [steps]
 */
import { createLlmAgentRunner } from '@agent-platform/agent';
import { createAesGcmSecretBox, createAgentPlatform, emptyAgentSettings, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { percentile } from './support/stats.js';

const steps = Number(process.argv[2] ?? 200);
const KEY = 'sk-bench-0123456789';
const me = { userId: 'alice', orgId: 'acme' };

// The fake LLM runs in a child process, so its own work is not counted as the agent's.
const llmProcess = fork(fileURLToPath(new URL('./support/fake-llm-process.ts', import.meta.url)), {
  execArgv: ['--conditions=agent-platform-source', '--import', 'tsx'],
  env: { ...process.env, FAKE_LLM_KEY: KEY },
});
const llm = await new Promise<{ url: string }>((resolve) => llmProcess.once('message', (message) => resolve(message as { url: string })));

/** Milliseconds per bare `exec('true')`, p50 over `count`. */
async function bareExec(runtime: SandboxRuntime, sandboxId: string, count: number): Promise<number> {
  const times: number[] = [];
  for (let n = 0; n < count; n++) {
    const began = performance.now();
    for await (const _event of runtime.exec(sandboxId, { command: 'true' })) {
      // drain
    }
    times.push(performance.now() - began);
  }
  return percentile(times, 50);
}

/**
 * Milliseconds per bare round trip to the fake LLM (a streamed chat completion read to its end
 * with plain `fetch`, no SDK): the model's share of a step, which is not the agent's.
 */
async function bareModelCall(count: number): Promise<number> {
  const times: number[] = [];
  const body = JSON.stringify({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'loop' }] });
  for (let n = 0; n < count; n++) {
    const began = performance.now();
    const response = await fetch(`${llm.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body,
    });
    await response.text();
    times.push(performance.now() - began);
  }
  return percentile(times, 50);
}

/** The runner alone: milliseconds per step, as the p50 of the gaps between successive ActionEvents. */
async function runnerAlone(runtime: SandboxRuntime, sandboxId: string): Promise<number> {
  const runner = createLlmAgentRunner();
  const settings = { ...emptyAgentSettings(), llmModel: 'openai/gpt-4o', llmApiKey: KEY, llmBaseUrl: `${llm.url}/v1`, maxIterations: steps };
  const gaps: number[] = [];
  let last = 0;
  for await (const event of runner.run({ runtime, sandboxId, conversationId: 'bench', runId: null, instructions: 'loop', eventPayloadJson: null, settings })) {
    if (event.type === 'record' && event.event.kind === 'ActionEvent') {
      const now = performance.now();
      if (last) gaps.push(now - last);
      last = now;
    }
  }
  return percentile(gaps.slice(5), 50);
}

/** A whole run through the engine: (completed − started) / steps. */
async function throughEngine(runtime: SandboxRuntime): Promise<number> {
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: Buffer.alloc(32, 5).toString('base64') } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createLlmAgentRunner(),
  });
  await platform.start();
  await platform.settings.store(me, { llm_model: 'openai/gpt-4o', llm_api_key: KEY, llm_base_url: `${llm.url}/v1`, max_iterations: steps });
  const automation = await platform.automations.create(me, { name: 'loop', trigger: { type: 'event', source: 'bench', on: 'x' }, instructions: 'loop' });
  const run = await platform.automations.dispatch(me, automation.id, {});
  let current = run;
  while (!['COMPLETED', 'FAILED', 'CANCELLED'].includes(current.status)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    current = await platform.automations.getRun(me, run.id);
  }
  const events = await platform.storage.conversations.listEvents(current.conversation_id!, { limit: 1000 });
  await platform.stop();
  if (current.error_detail !== `max iterations reached (${steps})`) throw new Error(`unexpected end: ${current.status} ${current.error_detail}`);
  const actions = events.items.filter((event) => event.kind === 'ActionEvent').map((event) => Date.parse(event.created_at));
  // Per step from the stored events' timestamps (ms resolution), after a few warm-up steps.
  return (actions.at(-1)! - actions[5]!) / (actions.length - 6);
}

const runtime = createProcessRuntime();
const sandboxId = 'bench-agent-step';
await runtime.start({ sandboxId, specId: (await runtime.listSpecs())[0]!.id });
const exec = await bareExec(runtime, sandboxId, 100);
const model = await bareModelCall(100);
const alone = await runnerAlone(runtime, sandboxId);
const engine = await throughEngine(runtime);
await runtime.close();
llmProcess.disconnect();
// Overhead = step − bare exec − bare model round trip: what the agent itself adds.
console.log(
  `agent-step (${steps} steps, process runtime, fake LLM in a child process): bare exec p50 ${exec.toFixed(2)} ms, bare model round trip p50 ${model.toFixed(2)} ms; ` +
    `runner step p50 ${alone.toFixed(2)} ms (agent overhead ${(alone - exec - model).toFixed(2)} ms); ` +
    `through the engine with memory storage ${engine.toFixed(2)} ms/step (agent overhead ${(engine - exec - model).toFixed(2)} ms)`,
);
