/** A run's story as a conversation (story.ts): messages in Markdown, model steps with their cost, terminal blocks, diffs, approvals. */
import type { ComponentChildren } from 'preact';
import { ActionRisk } from '../action-risk.js';
import { Badge, Time } from '../components.js';
import { formatNumber, formatUsd } from '../format.js';
import type { DiffLine } from './diff.js';
import { Markdown } from './markdown-view.js';
import type { Approval, StepUsage, StoryEntry } from './story.js';
import { TerminalBlock, TerminalOutput } from './terminal.js';

const WHO = { task: 'Task', user: 'Message', agent: 'Agent' } as const;

function Head({ title, at, children }: { title: ComponentChildren; at: string; children?: ComponentChildren }) {
  return (
    <div class="story-head">
      <h3>{title}</h3>
      <Time value={at} />
      {children}
    </div>
  );
}

function Usage({ usage }: { usage: StepUsage | null }) {
  if (!usage) return null;
  return (
    <span class="step-usage">
      {usage.model} · {formatNumber(usage.input)} tokens in · {formatNumber(usage.output)} out · {usage.costKnown ? formatUsd(usage.cost) : 'cost unknown'}
    </span>
  );
}

function ApprovalNote({ approval }: { approval: Approval | null }) {
  if (!approval) return null;
  if (approval.state === 'waiting') return <p class="approval waiting">Held for approval: waiting for an answer.</p>;
  if (approval.state === 'approved') return <p class="approval approved">Held for approval: approved.</p>;
  return <p class="approval rejected">Held for approval: rejected{approval.reason ? ` (${approval.reason})` : ''}.</p>;
}

function Diff({ lines, label }: { lines: DiffLine[]; label: string }) {
  const added = lines.filter((line) => line.op === '+').length;
  const removed = lines.filter((line) => line.op === '-').length;
  return (
    <figure class="diff" aria-label={`${label}: ${added} lines added, ${removed} removed`}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: long lines scroll in the block; keyboard users focus it to scroll it (WCAG 2.1.1) */}
      <pre tabIndex={0}>
        {lines.map((line, index) => (
          <span key={index} class={line.op === '+' ? 'diff-add' : line.op === '-' ? 'diff-del' : 'diff-same'}>
            <span class="diff-op">{line.op}</span>
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  );
}

function Entry({ entry }: { entry: StoryEntry }) {
  switch (entry.type) {
    case 'message':
      return (
        <>
          <Head title={WHO[entry.from]} at={entry.at} />
          <Markdown text={entry.text} />
        </>
      );
    case 'step':
      return (
        <>
          <Head title={`Model call ${entry.index}`} at={entry.at}>
            <Usage usage={entry.usage} />
          </Head>
          {entry.thought && <Markdown text={entry.thought} />}
        </>
      );
    case 'command':
      return (
        <>
          <Head title="Command" at={entry.at}>
            <ActionRisk event={entry.action} withReason />
          </Head>
          <ApprovalNote approval={entry.approval} />
          <TerminalBlock command={entry.command} output={entry.approval?.state === 'rejected' ? '' : entry.result} exitCode={entry.exitCode} />
        </>
      );
    case 'edit':
      return (
        <>
          <Head
            title={
              <>
                Edit <code>{entry.path}</code>
              </>
            }
            at={entry.at}
          >
            <ActionRisk event={entry.action} withReason />
          </Head>
          <ApprovalNote approval={entry.approval} />
          <Diff lines={entry.diff} label={`${entry.command} ${entry.path}`} />
          {entry.failed && entry.result && <TerminalOutput text={entry.result} />}
        </>
      );
    case 'tool':
      return (
        <>
          <Head
            title={
              <>
                Tool <code>{entry.tool}</code>
              </>
            }
            at={entry.at}
          >
            <ActionRisk event={entry.action} withReason />
          </Head>
          <p class="tool-summary">{entry.summary}</p>
          <ApprovalNote approval={entry.approval} />
          {entry.result === null ? <p class="muted">Running…</p> : entry.result !== '' && <TerminalOutput text={entry.result} />}
        </>
      );
    case 'output':
      return (
        <>
          <Head title="Agent output" at={entry.at} />
          <TerminalOutput text={entry.lines.join('\n')} />
        </>
      );
    case 'note':
      return (
        <p class="story-note">
          <Time value={entry.at} /> {entry.text}
        </p>
      );
    case 'end':
      return (
        <p class="story-end">
          <Time value={entry.at} /> The agent ended <Badge value={entry.status} />
          {entry.reason ? `: ${entry.reason}` : ''}
        </p>
      );
  }
}

/** The story, live: new entries are announced (a log region). */
export function Transcript({ entries }: { entries: StoryEntry[] }) {
  if (entries.length === 0) return <p class="muted">Nothing yet: the transcript starts when the run's conversation opens.</p>;
  return (
    <div role="log" aria-label="Transcript">
      <ol class="transcript">
        {entries.map((entry) => (
          <li key={entry.id} class={`story story-${entry.type}${entry.type === 'message' ? ` story-${entry.from}` : ''}`}>
            <Entry entry={entry} />
          </li>
        ))}
      </ol>
    </div>
  );
}
