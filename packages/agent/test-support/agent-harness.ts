/**
 * Runs the built-in agent directly (no platform) in a process-runtime sandbox against the fake
 * LLM server, and collects what it reports.
 * @module
 */
import { emptyAgentSettings, type AgentEvent, type AgentOutcome, type AgentRunInput, type AgentSettings, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmServerOptions } from '@agent-platform/testing/fake-llm';
import { createLlmAgentRunner, type LlmAgentRunnerOptions } from '../src/llm-agent-runner.js';

export const LLM_KEY = 'sk-harness-llm-key-0123456789';

export interface AgentRunResult {
  events: AgentEvent[];
  records: Extract<AgentEvent, { type: 'record' }>[];
  outcome: AgentOutcome;
}

export class AgentHarness {
  runtime: SandboxRuntime = createProcessRuntime();
  llm!: FakeLlmServer;
  private count = 0;

  async startLlm(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
    await this.llm?.close();
    this.llm = await startFakeLlmServer({ apiKey: LLM_KEY, ...options });
    return this.llm;
  }

  settings(overrides: Partial<AgentSettings> = {}): AgentSettings {
    return { ...emptyAgentSettings(), llmModel: 'openai/gpt-4o', llmApiKey: LLM_KEY, llmBaseUrl: `${this.llm.url}/v1`, ...overrides };
  }

  async sandbox(): Promise<string> {
    const sandboxId = `sbx-agent-${process.pid}-${++this.count}`;
    await this.runtime.start({ sandboxId, specId: (await this.runtime.listSpecs())[0]!.id });
    return sandboxId;
  }

  async run(
    input: Partial<AgentRunInput> & { settings?: AgentSettings },
    options: LlmAgentRunnerOptions = {},
    onEvent?: (event: AgentEvent) => void,
  ): Promise<AgentRunResult> {
    const sandboxId = input.sandboxId ?? (await this.sandbox());
    const runner = createLlmAgentRunner({ maxRetries: 2, ...options });
    const events: AgentEvent[] = [];
    for await (const event of runner.run({
      runtime: this.runtime,
      sandboxId,
      conversationId: 'conv-test',
      runId: null,
      instructions: 'Do the task.',
      eventPayloadJson: null,
      ...input,
      settings: input.settings ?? this.settings(),
    })) {
      events.push(event);
      onEvent?.(event);
    }
    const finished = events.at(-1);
    if (finished?.type !== 'finished') throw new Error(`the agent did not finish: ${JSON.stringify(events.at(-1))}`);
    return { events, records: events.filter((event): event is Extract<AgentEvent, { type: 'record' }> => event.type === 'record'), outcome: finished.outcome };
  }

  async close(): Promise<void> {
    await this.llm?.close();
    await this.runtime.close();
  }
}

/** The text of the tool results the model was sent in a request. */
export function toolResultsSeen(body: any): string[] {
  return (body.messages as any[]).filter((message) => message.role === 'tool').map((message) => String(message.content));
}
