/**
 * The scripted model every soak run talks to (the fake LLM server, OpenAI wire format, on
 * loopback). For each run it first answers with a `terminal` tool call whose command writes a
 * `start` line to the LEDGER, sleeps (`"long": true` in the event: longer than the lease), and
 * writes an `end` line — a second one after the first's result for an event with `"steps": 2` —
 * then with a final message (or, for an event marked `"fail": true`, a provider 401, which fails
 * the run). Which step a call is at is the number of assistant messages in its history.
 *
 * The tool call's id is a function of the run's task (its first user message: the automation's
 * instructions and the event's payload, unique per delivery) and of the step, so an attempt that
 * starts the run over asks for the same tool call again, and the ledger shows it executed twice;
 * an attempt that resumes from the run's stored events does not. A call the agent reports as
 * interrupted (its attempt died between asking for it and recording its result) is asked for again,
 * under a new id, as a model should when it cannot know whether it ran.
 * @module
 */
import { createHash } from 'node:crypto';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';

export const MODEL = 'openai/gpt-4o';
export const LLM_KEY = 'sk-soak-llm-key-0123456789abcdef';

/**
 * The command of a tool call: its ledger lines carry the run id (from the sandbox's environment),
 * the tool call's id, the shell's pid (so the soak can see a command killed before its `end`) and
 * the time in nanoseconds (GNU date).
 */
export function ledgerCommand(ledger: string, toolCallId: string, execSeconds: number): string {
  const line = (kind: string) => `echo "${kind} $AGENT_PLATFORM_RUN_ID ${toolCallId} $$ $(date +%s%N)" >> '${ledger}'`;
  return `${line('start')}; sleep ${execSeconds}; ${line('end')}`;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return JSON.stringify(content ?? '');
}

export interface SoakModel {
  llm: FakeLlmServer;
  /** Model calls answered, by kind. */
  readonly calls: { toolCall: number; final: number; failed: number; other: number };
  close(): Promise<void>;
}

/** What the agent answers for a tool call an interrupted attempt started but never saw end. */
const INTERRUPTED = 'was interrupted before its result was recorded';

/** A flag of the event's payload, as the task quotes it (`"long":true`, however the agent spaces or escapes it). */
const flag = (task: string, name: string, value: string) => new RegExp(`\\\\?"${name}\\\\?"\\s*:\\s*${value}`).test(task);

export async function startModel(ledger: string, times: { execSeconds: number; longExecSeconds: number }): Promise<SoakModel> {
  const calls = { toolCall: 0, final: 0, failed: 0, other: 0 };
  const respond = (request: RecordedLlmRequest): FakeLlmTurn => {
    const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
    const task = contentText(messages.find((message) => message.role === 'user')?.content);
    if (!task.includes('task:soak')) {
      calls.other++;
      return { text: 'nothing to do' };
    }
    const hash = createHash('sha256').update(task).digest('hex').slice(0, 16);
    const usage = { input: 500, output: 20 };
    // As a model told a call "was interrupted before its result was recorded" should: it checks
    // nothing else here, so it runs the command again (a new call: it may not have run at all).
    const interrupted = messages.filter((message) => message.role === 'tool' && contentText(message.content).includes(INTERRUPTED)).length;
    const step = messages.filter((message) => message.role === 'assistant').length - interrupted;
    if (step < (flag(task, 'steps', '2') ? 2 : 1)) {
      calls.toolCall++;
      const id = interrupted > 0 ? `call_${hash}_s${step}_r${interrupted}` : `call_${hash}_s${step}`;
      const seconds = flag(task, 'long', 'true') ? times.longExecSeconds : times.execSeconds;
      return { toolCalls: [{ id, name: 'terminal', arguments: { command: ledgerCommand(ledger, id, seconds) } }], usage };
    }
    if (flag(task, 'fail', 'true')) {
      calls.failed++;
      return { error: { status: 401 } };
    }
    calls.final++;
    return { text: 'Recorded in the ledger.', usage };
  };
  const llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
  return { llm, calls, close: () => llm.close() };
}
