/**
 * What the platform posts in a Slack thread, made from the Markdown its comments are written in:
 * the text as mrkdwn, and the platform's mark as message metadata. Slack has no hidden comments,
 * so the run marker (`<!-- agent-platform run … -->`) goes where no one sees it but an app reads
 * it back: the message's metadata (`event_type` {@link SLACK_METADATA_EVENT}, the marker in
 * `event_payload.marker`), returned by `conversations.replies` with `include_all_metadata` — how a
 * run finds the message it posted when it lost its `ts`. Every message the platform posts carries
 * it (the agent's replies too), as every GitHub comment carries the hidden marker.
 *
 * An approval request also gets Block Kit buttons, Approve and Reject, whose `action_id`s the
 * inbound side reads as `/approve` and `/reject`; their text replaces the line that tells GitHub
 * users to reply with those commands (in Slack a message starting with `/` is a slash command).
 * @module
 */
import { PLATFORM_MARKER } from '../github/platform-marker.js';
import { SLACK_APPROVE_ACTION, SLACK_REJECT_ACTION, slackApprovalValue } from '../inbound/slack.js';
import type { SlackBlock, SlackMessageInput } from './slack-api.js';
import { markdownToMrkdwn } from './slack-mrkdwn.js';

/** The `event_type` of the metadata on every message the platform posts. */
export const SLACK_METADATA_EVENT = 'agent_platform';

/** Slack cuts a message's text at 40,000 characters; the platform cuts well before, and says so. */
const MAX_TEXT = 38_000;
/** A section block's text is at most 3,000 characters. */
const MAX_SECTION = 3_000;
/** A message holds at most 50 blocks; the approval's sections leave room for its buttons. */
const MAX_SECTIONS = 45;

/** The platform's mark in a Markdown body (the run marker, or the bare mark), `''` for none. */
function markerOf(markdown: string): string {
  const at = markdown.indexOf(PLATFORM_MARKER);
  if (at < 0) return '';
  const end = markdown.indexOf('-->', at);
  return end < 0 ? PLATFORM_MARKER : markdown.slice(at, end + 3);
}

function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}\n… (cut: ${text.length - MAX_TEXT} more characters)`;
}

/** A Markdown body as a Slack message with the platform's mark (the body's marker, or the bare mark). */
export function slackMessage(markdown: string): SlackMessageInput {
  return {
    text: cut(markdownToMrkdwn(markdown)),
    metadata: { event_type: SLACK_METADATA_EVENT, event_payload: { marker: markerOf(markdown) || `${PLATFORM_MARKER} -->` } },
  };
}

/** The action an approval request's buttons answer. */
export interface HeldRef {
  runId: string;
  actionId: string;
}

/** What an approval button carries: the run and the held action it answers (`<run id> <action id>`), which is all a click answers. */
export const approvalButtonValue = (held: HeldRef): string => slackApprovalValue(held.runId, held.actionId);

/** `text` in section blocks of at most {@link MAX_SECTION} characters, cut at line ends where it can be. */
function sections(text: string): SlackBlock[] {
  const blocks: SlackBlock[] = [];
  let rest = text;
  while (rest.length > 0 && blocks.length < MAX_SECTIONS) {
    let piece = rest.slice(0, MAX_SECTION);
    if (rest.length > MAX_SECTION) {
      const lineEnd = piece.lastIndexOf('\n');
      if (lineEnd > MAX_SECTION / 2) piece = piece.slice(0, lineEnd);
    }
    rest = rest.slice(piece.length).replace(/^\n/, '');
    if (piece.trim()) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: piece } });
  }
  return blocks;
}

/**
 * An approval request (the held comment's Markdown) as a Slack message with Approve and Reject
 * buttons; the line telling people to reply `/approve` or `/reject` is left out.
 */
export function approvalMessage(markdown: string, held: HeldRef): SlackMessageInput {
  const withoutCommands = markdown
    .split('\n')
    .filter((line) => !(line.includes('`/approve`') && line.includes('`/reject`')))
    .join('\n');
  const message = slackMessage(withoutCommands);
  const value = approvalButtonValue(held);
  return {
    ...message,
    blocks: [
      ...sections(message.text),
      {
        type: 'actions',
        block_id: `agent_platform_held_${held.actionId}`.slice(0, 255),
        elements: [
          { type: 'button', action_id: SLACK_APPROVE_ACTION, text: { type: 'plain_text', text: 'Approve', emoji: true }, value, style: 'primary' },
          { type: 'button', action_id: SLACK_REJECT_ACTION, text: { type: 'plain_text', text: 'Reject', emoji: true }, value, style: 'danger' },
        ],
      },
    ],
  };
}
