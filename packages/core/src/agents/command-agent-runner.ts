/**
 * The command agent runner: the agent is a shell command line run with `sh -c` inside the
 * sandbox, in its working directory. Its task, event and the owner's settings come in the
 * environment (and files); each stdout line becomes a conversation event — a JSON object line
 * as a structured event, any other line as agent output. Exit 0 completes the run; anything
 * else fails it with the end of stderr as the reason. Secret values are scrubbed from
 * everything it reports.
 * @module
 */
import type { AgentEvent, AgentOutcome, AgentRunner } from '../ports/agent-runner.js';
import type { SandboxFile } from '../ports/sandbox-runtime.js';
import { agentNoteDraft, agentOutputDraft } from '../schemas/agent-events.js';
import { agentLaunch } from './agent-environment.js';
import { LineSplitter, redact } from './line-splitter.js';

export interface CommandAgentRunnerOptions {
  /** The agent's command line, e.g. `node /opt/agent/run.mjs` or `openhands --headless`. */
  command: string;
  /** Used when a run gives none. Default 30 minutes. */
  defaultTimeoutMs?: number;
  /** How much of the end of stderr becomes the failure reason. Default 2,000 characters. */
  reasonChars?: number;
  /**
   * Written into the sandbox before each run, relative to its working directory: the agent's own
   * program, say, so that it runs in any sandbox image (`command: 'sh .agent-platform/agent.sh'`).
   */
  files?: SandboxFile[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function lineEvent(line: string, secrets: readonly string[]): AgentEvent | null {
  const clean = redact(line, secrets);
  if (clean.trim() === '') return null;
  if (clean.trimStart().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(clean);
      if (isObject(parsed)) return { type: 'record', event: agentNoteDraft(parsed) };
    } catch {
      // Not JSON after all: plain output.
    }
  }
  return { type: 'record', event: agentOutputDraft(clean) };
}

/**
 * @example
 * ```ts
 * const agent = createCommandAgentRunner({ command: 'node /opt/agents/demo-agent.mjs' });
 * for await (const event of agent.run({ runtime, sandboxId, conversationId, runId, instructions, eventPayloadJson, settings })) {
 *   console.log(event);
 * }
 * ```
 */
export function createCommandAgentRunner(options: CommandAgentRunnerOptions): AgentRunner {
  const reasonChars = options.reasonChars ?? 2000;
  return {
    async *run(input) {
      const sandbox = await input.runtime.inspect(input.sandboxId);
      const launch = agentLaunch(input, sandbox.workingDir);
      const stdout = new LineSplitter();
      let stderrTail = '';
      let outcome: AgentOutcome = { status: 'FAILED', reason: 'the agent ended without an exit status' };
      const exec = input.runtime.exec(input.sandboxId, {
        command: options.command,
        env: launch.env,
        files: [...(options.files ?? []), ...launch.files],
        timeoutMs: input.timeoutMs ?? options.defaultTimeoutMs ?? 30 * 60 * 1000,
        ...(input.signal ? { signal: input.signal } : {}),
      });
      for await (const event of exec) {
        if (event.type === 'stdout') {
          for (const line of stdout.push(event.data)) {
            const agentEvent = lineEvent(line, launch.secrets);
            if (agentEvent) yield agentEvent;
          }
        } else if (event.type === 'stderr') {
          stderrTail = (stderrTail + event.data).slice(-reasonChars * 2);
        } else {
          for (const line of stdout.flush()) {
            const agentEvent = lineEvent(line, launch.secrets);
            if (agentEvent) yield agentEvent;
          }
          const { result } = event;
          const tail = redact(stderrTail, launch.secrets).trim().slice(-reasonChars);
          if (result.cancelled) outcome = { status: 'CANCELLED', reason: 'cancelled' };
          else if (result.timedOut) outcome = { status: 'TIMED_OUT', reason: 'the agent ran past its time limit' };
          else if (result.exitCode === 0) outcome = { status: 'COMPLETED', reason: null };
          else outcome = { status: 'FAILED', reason: tail || `the agent exited with status ${result.exitCode ?? 'unknown'}` };
        }
      }
      yield { type: 'finished', outcome };
    },
  };
}
