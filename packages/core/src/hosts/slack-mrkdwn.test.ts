/**
 * Markdown as Slack mrkdwn: the platform's own comments (outcome, "on it", approval requests, in
 * any language) and what an agent writes read in Slack as they do on GitHub, nothing the agent
 * writes becomes a mention, and the hidden marker goes to the message's metadata.
 */
import { describe, expect, it } from 'vitest';
import { heldComment, onItComment, outcomeComment, runMarker } from '../github/outcome-comment.js';
import type { RunRecord } from '../schemas/run.js';
import { SLACK_APPROVE_ACTION, SLACK_REJECT_ACTION } from '../inbound/slack.js';
import { approvalMessage, slackMessage } from './slack-message.js';
import { markdownToMrkdwn } from './slack-mrkdwn.js';

describe('markdownToMrkdwn', () => {
  it('turns links, bold, italics, strikethrough, headings and lists into mrkdwn', () => {
    expect(markdownToMrkdwn('See [the run](https://agents.example.com/console/runs/r1) now')).toBe(
      'See <https://agents.example.com/console/runs/r1|the run> now',
    );
    expect(markdownToMrkdwn('**Triage** ✅ completed.')).toBe('*Triage* ✅ completed.');
    expect(markdownToMrkdwn('__bold__ and *it* and _it_ and ~~gone~~')).toBe('*bold* and _it_ and _it_ and ~gone~');
    expect(markdownToMrkdwn('## Summary\n- one\n  * two\n+ three')).toBe('*Summary*\n• one\n  • two\n• three');
    expect(markdownToMrkdwn('> quoted **words**')).toBe('>quoted *words*');
    expect(markdownToMrkdwn('a snake_case_name stays')).toBe('a snake_case_name stays');
    expect(markdownToMrkdwn('**[bold link](https://x.example/a?b=1&c=2)**')).toBe('*<https://x.example/a?b=1&amp;c=2|bold link>*');
    expect(markdownToMrkdwn('<https://x.example/>')).toBe('<https://x.example/>');
  });

  it('keeps code as code: inline spans and fenced blocks lose their language and their markup is not read', () => {
    expect(markdownToMrkdwn('Run `npm **test**` now')).toBe('Run `npm **test**` now');
    expect(markdownToMrkdwn('```ts\nconst a = b && c < d;\n**not bold**\n```')).toBe('```\nconst a = b &amp;&amp; c &lt; d;\n**not bold**\n```');
    // A longer fence (the platform's quoted output) holds a ``` of its own, which must not close Slack's block.
    expect(markdownToMrkdwn('````text\nbefore\n```\nafter\n````')).toBe('```\nbefore\n`\u200b``\nafter\n```');
  });

  it('escapes &, < and >, so nothing written becomes a mention, a channel ping or a link Slack makes', () => {
    const text = markdownToMrkdwn('ping <!channel> and <@U0123ABCD> & <https://evil.example|click> @here');
    expect(text).toBe('ping &lt;!channel&gt; and &lt;@U0123ABCD&gt; &amp; <https://evil.example%7Cclick> @here');
    expect(text).not.toMatch(/<[!@]/);
    // Slack's own `<url|text>` written by the agent is a Markdown autolink: the address shows, no text hides it.
  });

  it('links only web and mail addresses; for anything else its text stays', () => {
    expect(markdownToMrkdwn('[click](javascript:void)')).toBe('click');
    expect(markdownToMrkdwn('[a|b](https://x.example/p|q)')).toBe('<https://x.example/p%7Cq|a/b>');
  });

  it('drops HTML comments (the hidden markers Slack would show)', () => {
    expect(markdownToMrkdwn(`${runMarker('run_1')}\nhello`)).toBe('hello');
  });
});

const run = {
  id: 'run_slack_1',
  status: 'COMPLETED',
  attempt: 1,
  error_detail: null,
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: '2026-01-01T00:01:00.000Z',
} as unknown as RunRecord;

describe('the platform comments in Slack', () => {
  it('the outcome: mrkdwn text, the run marker in metadata only', () => {
    const body = outcomeComment(
      run,
      'Answer in Slack',
      { response: 'Done: see **PR** [#3](https://git.example/pr/3).' },
      'https://agents.example.com/console/runs/run_slack_1',
    );
    const message = slackMessage(body);
    expect(message.text).toBe(
      '*Answer in Slack* ✅ completed.\n\nDone: see *PR* <https://git.example/pr/3|#3>.\n\n<https://agents.example.com/console/runs/run_slack_1|Run `run_slack_1`>',
    );
    expect(message.text).not.toContain('<!--');
    expect(message.metadata).toEqual({ event_type: 'agent_platform', event_payload: { marker: runMarker('run_slack_1') } });
  });

  it('"on it" in the owner\'s language', () => {
    const message = slackMessage(onItComment(run, 'Tri', null, null, 'de'));
    expect(message.text).toBe('👀 *Tri* kümmert sich darum.\n\nLauf `run_slack_1`');
  });

  it("text the agent writes without a marker still carries the platform's mark", () => {
    expect(slackMessage('plain').metadata.event_payload.marker).toBe('<!-- agent-platform -->');
  });

  it('an approval request has Approve and Reject buttons naming the run and action, and no /approve instruction', () => {
    const body = heldComment(
      run,
      'Deployer',
      { toolName: 'terminal', summary: 'git push --force origin main', securityRisk: 'HIGH', securityReason: 'force push' },
      null,
      'fr',
    );
    const message = approvalMessage(body, { runId: 'run_slack_1', actionId: 'evt_42' });
    expect(message.text).not.toContain('/approve');
    expect(message.text).toContain('```\ngit push --force origin main\n```');
    const actions = message.blocks?.at(-1);
    expect(actions).toMatchObject({
      type: 'actions',
      elements: [
        { type: 'button', action_id: SLACK_APPROVE_ACTION, value: 'run_slack_1 evt_42', style: 'primary', text: { type: 'plain_text', text: 'Approve' } },
        { type: 'button', action_id: SLACK_REJECT_ACTION, value: 'run_slack_1 evt_42', style: 'danger', text: { type: 'plain_text', text: 'Reject' } },
      ],
    });
    const sections = (message.blocks ?? []).filter((block) => block.type === 'section');
    expect(sections.map((block) => (block.type === 'section' ? block.text.text : '')).join('\n')).toBe(message.text);
    expect(message.metadata.event_payload.marker).toBe('<!-- agent-platform run run_slack_1 held -->');
  });

  it('a long answer is cut within what Slack takes, and a long approval request split into sections of at most 3,000 characters', () => {
    const long = 'line of text\n'.repeat(5_000);
    expect(slackMessage(long).text.length).toBeLessThan(40_000);
    const message = approvalMessage(`${runMarker('r')}\n${'x'.repeat(2_000)}\n${'y'.repeat(2_500)}\n${'z'.repeat(100)}`, { runId: 'r', actionId: 'a' });
    const sections = (message.blocks ?? []).filter((block) => block.type === 'section');
    expect(sections.length).toBeGreaterThan(1);
    for (const block of sections) if (block.type === 'section') expect(block.text.text.length).toBeLessThanOrEqual(3_000);
  });
});
