/**
 * The run page's story (app/transcript/): ANSI colours as classes, a line diff, the Markdown
 * reader's tree (raw HTML and `javascript:` links stay text), a run's events as a transcript, and
 * its timeline, whose stages add up to the run's duration.
 */
import type { ConversationEvent, Run } from '@agent-platform/client';
import { describe, expect, it } from 'vitest';
import { ansiLines, stripAnsi } from '../app/transcript/ansi.js';
import { diffLines } from '../app/transcript/diff.js';
import { parseInline, parseMarkdown } from '../app/transcript/markdown.js';
import { answerOf, storyOf } from '../app/transcript/story.js';
import { formatDuration, runTimeline } from '../app/transcript/timeline.js';

describe('ANSI output', () => {
  it('keeps lines, turns colours and weight into classes, and drops other escapes', () => {
    const lines = ansiLines('\x1b[1;31mred bold\x1b[0m plain\n\x1b[32mgreen\x1b[39m back\x1b]0;title\x07\n\x1b[2Kdone');
    expect(lines).toEqual([
      [
        { text: 'red bold', classes: 'ansi-fg-1 ansi-bold' },
        { text: ' plain', classes: '' },
      ],
      [
        { text: 'green', classes: 'ansi-fg-2' },
        { text: ' back', classes: '' },
      ],
      [{ text: 'done', classes: '' }],
    ]);
  });

  it('bright and 256 colours, a carriage return’s overwrite, and an empty line', () => {
    expect(ansiLines('\x1b[91ma\x1b[38;5;4mb\x1b[38;2;1;2;3mc')).toEqual([
      [
        { text: 'a', classes: 'ansi-fg-9' },
        { text: 'b', classes: 'ansi-fg-4' },
        { text: 'c', classes: '' },
      ],
    ]);
    expect(ansiLines('10%\r50%\r100%\n\nend').map((line) => line.map((span) => span.text).join(''))).toEqual(['100%', '', 'end']);
    expect(stripAnsi('\x1b[31mred\x1b[0m')).toBe('red');
  });
});

describe('a line diff', () => {
  it('keeps common lines as context and marks what went and came', () => {
    expect(diffLines('a\nb\nc\n', 'a\nB\nc\nd')).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
      { op: '+', text: 'd' },
    ]);
    expect(diffLines('', 'new\nfile')).toEqual([
      { op: '+', text: 'new' },
      { op: '+', text: 'file' },
    ]);
  });

  it('shows texts too long to compare as removed, then added', () => {
    const many = (prefix: string) => Array.from({ length: 600 }, (_, index) => `${prefix}${index}`).join('\n');
    const diff = diffLines(many('a'), many('b'));
    expect(diff).toHaveLength(1200);
    expect(diff[599]).toEqual({ op: '-', text: 'a599' });
    expect(diff[600]).toEqual({ op: '+', text: 'b0' });
  });
});

describe('the Markdown reader', () => {
  it('reads headings, lists, code, quotes and inline marks', () => {
    expect(parseMarkdown('# Title\n\nSome **bold** and *it* and `x<y`.\n\n- one\n- two\n\n1. first\n\n```ts\nconst a = 1;\n```\n> quoted\n\n---')).toEqual([
      { t: 'h', level: 1, c: [{ t: 'text', v: 'Title' }] },
      {
        t: 'p',
        c: [
          { t: 'text', v: 'Some ' },
          { t: 'strong', c: [{ t: 'text', v: 'bold' }] },
          { t: 'text', v: ' and ' },
          { t: 'em', c: [{ t: 'text', v: 'it' }] },
          { t: 'text', v: ' and ' },
          { t: 'code', v: 'x<y' },
          { t: 'text', v: '.' },
        ],
      },
      { t: 'ul', start: 1, items: [[{ t: 'p', c: [{ t: 'text', v: 'one' }] }], [{ t: 'p', c: [{ t: 'text', v: 'two' }] }]] },
      { t: 'ol', start: 1, items: [[{ t: 'p', c: [{ t: 'text', v: 'first' }] }]] },
      { t: 'pre', lang: 'ts', v: 'const a = 1;' },
      { t: 'quote', c: [{ t: 'p', c: [{ t: 'text', v: 'quoted' }] }] },
      { t: 'hr' },
    ]);
  });

  it('keeps raw HTML as text and links only to the web or mail', () => {
    expect(parseMarkdown('<script>alert(1)</script><img src=x onerror=alert(2)>')).toEqual([
      { t: 'p', c: [{ t: 'text', v: '<script>alert(1)</script><img src=x onerror=alert(2)>' }] },
    ]);
    expect(parseInline('[ok](https://example.com/a) [bad](javascript:alert(1)) [data](data:text/html,x) <https://x.example>')).toEqual([
      { t: 'link', href: 'https://example.com/a', c: [{ t: 'text', v: 'ok' }] },
      { t: 'text', v: ' [bad](javascript:alert(1)) [data](data:text/html,x) ' },
      { t: 'link', href: 'https://x.example', c: [{ t: 'text', v: 'https://x.example' }] },
    ]);
    expect(parseInline('a\\*b\\* snake_case_name\nnext')).toEqual([{ t: 'text', v: 'a*b* snake_case_name' }, { t: 'br' }, { t: 'text', v: 'next' }]);
  });
});

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + seconds * 1000).toISOString();
let seq = 0;
const event = (kind: string, seconds: number, data: Record<string, unknown> | null, extra: Partial<ConversationEvent> = {}): ConversationEvent =>
  ({
    id: `evt_${seq}`,
    conversation_id: 'conv_1',
    seq: seq++,
    kind,
    source: 'agent',
    message: null,
    data,
    created_at: at(seconds),
    ...extra,
  }) as ConversationEvent;
const metrics = (calls: number, input: number, output: number, cost: number) => ({
  model_name: 'openai/gpt-4o',
  accumulated_cost: cost,
  cost_known: true,
  max_budget_per_task: null,
  accumulated_token_usage: { prompt_tokens: input, completion_tokens: output, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
  llm_calls: calls,
});
const action = (seconds: number, id: string, response: string, toolName: string, actionData: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  event('ActionEvent', seconds, {
    thought: [{ type: 'text', text: `thinking about ${id}` }],
    reasoning_content: null,
    action: actionData,
    tool_name: toolName,
    tool_call_id: id,
    tool_call: { id, type: 'function', function: { name: toolName, arguments: '{}' } },
    llm_response_id: response,
    security_risk: 'UNKNOWN',
    summary: toolName === 'terminal' ? `$ ${actionData.command}` : `${actionData.command} ${actionData.path}`,
    metrics: null,
    ...extra,
  });
const observation = (seconds: number, id: string, toolName: string, text: string, extra: Record<string, unknown> = {}) =>
  event(
    'ObservationEvent',
    seconds,
    { tool_name: toolName, tool_call_id: id, action_id: 'x', observation: { kind: 'TerminalObservation', content: [{ type: 'text', text }], ...extra } },
    { source: 'environment' },
  );

/** A run: queued 2 s, a sandbox, a command, an edit held for approval, an answer, its comment. */
function scenario() {
  seq = 0;
  const events = [
    event(
      'MessageEvent',
      5,
      { llm_message: { role: 'user', content: [{ type: 'text', text: 'Fix **it**' }] }, activated_microagents: [], extended_content: [] },
      { source: 'user' },
    ),
    event('agent_event', 5, { type: 'job_stages', stages: [{ stage: 'sandbox', started_at: at(2.5), ended_at: at(4) }] }, { source: 'system' }),
    action(7, 'call_1', 'resp_1', 'terminal', { kind: 'TerminalAction', command: 'ls' }, { metrics: metrics(1, 1000, 50, 0.003) }),
    observation(8, 'call_1', 'terminal', 'a\nb\n\n[exit code 0]', { exit_code: 0 }),
    action(
      10,
      'call_2',
      'resp_2',
      'file_editor',
      { kind: 'FileEditorAction', command: 'str_replace', path: 'a.txt', old_str: 'x\ny', new_str: 'x\nz' },
      { security_risk: 'HIGH', metrics: metrics(2, 2500, 90, 0.007) },
    ),
    event('ConversationStateUpdateEvent', 10, { key: 'execution_status', value: 'waiting_for_confirmation' }, { source: 'environment' }),
    event('ConversationStateUpdateEvent', 14, { key: 'execution_status', value: 'running' }, { source: 'environment' }),
    observation(15, 'call_2', 'file_editor', 'Edited a.txt'),
    event('MessageEvent', 17, {
      llm_message: { role: 'assistant', content: [{ type: 'text', text: 'Done: `a.txt`' }] },
      activated_microagents: [],
      extended_content: [],
    }),
    event('ConversationStateUpdateEvent', 18, { key: 'execution_status', value: 'finished' }, { source: 'environment' }),
    event('status', 18, { status: 'COMPLETED', reason: null }, { source: 'system' }),
  ];
  const run = {
    id: 'run_1',
    status: 'COMPLETED',
    created_at: at(0),
    started_at: at(2),
    completed_at: at(19),
    metrics: metrics(3, 4000, 130, 0.011),
    report: { target: 'acme/app#1', reaction: 'added', comment_id: 1, comment_url: 'https://github.example/c/1', error: null, updated_at: at(21) },
  } as unknown as Run;
  return { run, events };
}

describe('a run’s transcript', () => {
  it('reads as the task, model steps with their usage, a command with its output, an approved edit as a diff, and the answer', () => {
    const { run, events } = scenario();
    const story = storyOf(events, run.metrics ?? null);
    expect(story.map((entry) => entry.type)).toEqual(['message', 'note', 'step', 'command', 'step', 'edit', 'step', 'message', 'end']);
    expect(story[0]).toMatchObject({ from: 'task', text: 'Fix **it**' });
    expect(story[2]).toMatchObject({ index: 1, thought: 'thinking about call_1', usage: { input: 1000, output: 50, cost: 0.003 } });
    // The exit code the tool adds for the model is shown apart.
    expect(story[3]).toMatchObject({ command: 'ls', result: 'a\nb', exitCode: 0, approval: null });
    expect(story[4]).toMatchObject({ index: 2, usage: { input: 1500, output: 40 } });
    expect(story[5]).toMatchObject({
      path: 'a.txt',
      approval: { state: 'approved' },
      diff: [
        { op: ' ', text: 'x' },
        { op: '-', text: 'y' },
        { op: '+', text: 'z' },
      ],
    });
    // The answer's call carried no snapshot: its usage is the run's end less the last one.
    expect(story[6]).toMatchObject({ index: 3, usage: { input: 1500, output: 40 } });
    expect((story[6] as { usage: { cost: number } }).usage.cost).toBeCloseTo(0.004, 6);
    expect(story[7]).toMatchObject({ from: 'agent', text: 'Done: `a.txt`' });
    expect(answerOf(events)).toBe('Done: `a.txt`');
  });

  it('a held action waits, and a rejection says why', () => {
    const { events } = scenario();
    const held = storyOf(events.slice(0, 6));
    expect(held.at(-1)).toMatchObject({ type: 'edit', approval: { state: 'waiting' }, result: null });
    const rejected = storyOf([
      ...events.slice(0, 6),
      event(
        'UserRejectObservation',
        12,
        { tool_name: 'file_editor', tool_call_id: 'call_2', rejection_reason: 'not main', action_id: 'x' },
        { source: 'user' },
      ),
    ]);
    expect(rejected.at(-1)).toMatchObject({ type: 'edit', approval: { state: 'rejected', reason: 'not main' } });
  });
});

describe('a run’s timeline', () => {
  it('lists its stages in order, adding up to the run’s duration, the answer on the host after it', () => {
    const { run, events } = scenario();
    const timeline = runTimeline(run, events, Date.parse(at(100)));
    expect(timeline.stages.map((stage) => [stage.label, stage.ms])).toEqual([
      ['Queued', 2000],
      ['Claimed: the attempt prepared', 500],
      ['Sandbox started', 1500],
      ['Conversation opened with the task', 1000],
      ['Model call 1', 2000],
      ['Tool: $ ls', 1000],
      ['Model call 2', 2000],
      ['Waiting for approval: approved', 4000],
      ['Tool: str_replace a.txt', 1000],
      ['Model call 3: the answer', 2000],
      ['Closing: the sandbox removed, the outcome recorded', 1000],
      ['Run finished', 1000],
    ]);
    expect(timeline.ms).toBe(19_000);
    expect(timeline.stages.reduce((sum, stage) => sum + stage.ms, 0)).toBe(timeline.ms);
    expect(timeline.after).toMatchObject({ label: 'Answer posted on acme/app#1', ms: 2000 });
  });

  it('keeps the job’s first stages before the conversation’s first message when they share a millisecond (a fast runtime)', () => {
    const { run, events } = scenario();
    // The sandbox started in the very millisecond the task was written, and the claim in the run's own.
    const tied = events.map((item) =>
      item.kind === 'agent_event' ? { ...item, data: { type: 'job_stages', stages: [{ stage: 'sandbox', started_at: at(2), ended_at: at(5) }] } } : item,
    );
    const labels = runTimeline(run, tied, Date.parse(at(100))).stages.map((stage) => stage.label);
    expect(labels.slice(0, 4)).toEqual(['Queued', 'Claimed: the attempt prepared', 'Sandbox started', 'Conversation opened with the task']);
  });

  it('while the run goes, ends now with what is under way', () => {
    const { run, events } = scenario();
    const running = { ...run, status: 'RUNNING', completed_at: null, report: null } as Run;
    const timeline = runTimeline(running, events.slice(0, 6), Date.parse(at(12)));
    expect(timeline.ms).toBe(12_000);
    expect(timeline.stages.at(-1)).toMatchObject({ label: 'Waiting for approval', live: true, ms: 2000 });
    expect(timeline.stages.reduce((sum, stage) => sum + stage.ms, 0)).toBe(12_000);
    const queued = runTimeline({ ...running, status: 'PENDING', started_at: null } as Run, [], Date.parse(at(3)));
    expect(queued.stages).toEqual([{ label: 'Queued', kind: 'wait', start: Date.parse(at(0)), end: Date.parse(at(3)), ms: 3000, live: true }]);
  });

  it('writes durations for people', () => {
    expect([350, 4200, 12_400, 185_000, 3_720_000].map(formatDuration)).toEqual(['350 ms', '4.2 s', '12 s', '3 min 5 s', '1 h 2 min']);
  });
});
