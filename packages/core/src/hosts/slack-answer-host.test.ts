/**
 * Slack on the answer-back port, with the real `@slack/web-api` against the Slack stand-in (which
 * checks every call against Slack's published Web API description): an app mention's thread,
 * 👀 on the message that asked, the run's message as a reply in the thread (mrkdwn, the marker in
 * its metadata), edited in place, found again by its marker (the app's own messages only), an
 * approval request with buttons, and Slack's refusals as clear `SlackError`s without the token.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSlackApi, type SlackApiServer } from '@agent-platform/testing/slack-api';
import { emptyAgentSettings } from '../agents/agent-environment.js';
import { runMarker } from '../github/outcome-comment.js';
import { SLACK_APPROVE_ACTION } from '../inbound/slack.js';
import type { AnswerChannel, AnswerHost, AnswerThread } from '../ports/answer-host.js';
import { createSlackApi, SlackError } from './slack-api.js';
import { createSlackAnswerHost } from './slack-answer-host.js';

const TOKEN = 'xoxb-1111-2222-slack-answer-host-test';
const CHANNEL = 'C0ENGINEERS';
const CAROL = 'U0CAROL0001';

let slack: SlackApiServer;
const host: AnswerHost = createSlackAnswerHost();

beforeAll(async () => {
  slack = await startSlackApi({ tokens: { [TOKEN]: {}, 'xoxb-no-reactions': { scopes: ['chat:write', 'channels:history'] } } });
  slack.addUser(CAROL, { name: 'carol' });
  slack.addChannel(CHANNEL, { name: 'engineers' });
});
afterAll(async () => {
  await slack?.close();
});
afterEach(() => {
  expect(slack.violations).toEqual([]);
  expect(JSON.stringify(slack.requests)).not.toContain(TOKEN);
});

const owner = (token: string | null = TOKEN) => {
  const settings = emptyAgentSettings();
  if (token) settings.providerTokens.slack = { token, host: slack.url };
  return { userId: 'alice', settings };
};

function threadOf(envelope: Record<string, unknown> | null, key = 'app_mention'): AnswerThread {
  const found = host.threadOf(key, envelope);
  if ('none' in found) throw new Error(found.none);
  return found.thread;
}

function channelFor(thread: AnswerThread, token: string | null = TOKEN): AnswerChannel {
  const channel = host.channel(thread, owner(token));
  if ('none' in channel) throw new Error(channel.none);
  return channel;
}

describe('the thread of a Slack event', () => {
  it('a mention that starts a thread: its own ts is the thread; one in a thread: the thread_ts', () => {
    const first = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> why does the build fail?`);
    const thread = threadOf(first.mention);
    expect(thread).toMatchObject({
      host: 'slack',
      label: `#${CHANNEL} (thread ${first.ts})`,
      repository: null,
      subject: null,
      locator: { team: slack.teamId, channel: CHANNEL, threadTs: first.ts, ts: first.ts },
    });
    const followUp = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> and the tests?`, { threadTs: first.ts });
    expect(threadOf(followUp.mention).locator).toEqual({ team: slack.teamId, channel: CHANNEL, threadTs: first.ts, ts: followUp.ts });
    expect(threadOf(followUp.message, 'message.channels').locator).toMatchObject({ threadTs: first.ts });
  });

  it('events that are no message have no thread', () => {
    expect(host.threadOf('reaction_added', { type: 'event_callback', team_id: slack.teamId, event: { type: 'reaction_added', item: {} } })).toMatchObject({
      none: expect.stringContaining('not a message'),
    });
    expect(host.threadOf(null, null)).toHaveProperty('none');
  });

  it('handles the Slack sources only', () => {
    expect(['slack', 'slack-eu', 'github', 'slacker', 'gitlab'].map((source) => host.handles(source))).toEqual([true, true, false, false, false]);
  });

  it('without a stored Slack token there is no channel, and the reason says what to store', () => {
    const thread = threadOf(slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> hi`).mention);
    expect(host.channel(thread, owner(null))).toEqual({ none: expect.stringContaining('slack provider token') });
  });
});

describe('answering in a Slack thread', () => {
  it("👀 on the message that asked, then the run's message as a reply, edited in place and found again by its marker", async () => {
    const asked = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> fix the flaky test`);
    const channel = channelFor(threadOf(asked.mention));
    await channel.acknowledge();
    await channel.acknowledge(); // again (a retried report): already there, no error
    expect(slack.reactions(CHANNEL, asked.ts)).toEqual({ eyes: [slack.bot.userId] });

    const since = new Date(Date.now() - 60_000).toISOString();
    const posted = await channel.post(`${runMarker('run_a')}\n👀 **Fixer** is on it.\n\n[Run \`run_a\`](https://agents.example.com/console/runs/run_a)`);
    expect(posted.url).toBe(`https://acme.slack.com/archives/${CHANNEL}/p${String(posted.id).replace('.', '')}?thread_ts=${asked.ts}&cid=${CHANNEL}`);
    const [, reply] = slack.thread(CHANNEL, asked.ts);
    expect(reply).toMatchObject({
      thread_ts: asked.ts,
      bot_id: slack.bot.botId,
      text: '👀 *Fixer* is on it.\n\n<https://agents.example.com/console/runs/run_a|Run `run_a`>',
      metadata: { event_type: 'agent_platform', event_payload: { marker: runMarker('run_a') } },
    });
    const postCall = slack.requests.find((request) => request.method === 'chat.postMessage');
    expect(postCall).toMatchObject({ encoding: 'form', auth: 'bearer', args: { unfurl_links: false, thread_ts: asked.ts } });

    const edited = await channel.edit(posted.id, `${runMarker('run_a')}\n**Fixer** ✅ completed.`);
    expect(edited).toEqual(posted);
    expect(slack.thread(CHANNEL, asked.ts)[1]?.text).toBe('*Fixer* ✅ completed.');
    expect(await channel.find(runMarker('run_a'), since)).toEqual(posted);
    expect(await channel.find(runMarker('run_other'), since)).toBeNull();
    // Only messages written since `since` are looked at.
    expect(await channel.find(runMarker('run_a'), new Date(Date.now() + 60_000).toISOString())).toBeNull();
  });

  it("another app's message with the same metadata is not the run's", async () => {
    const asked = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> look`);
    const channel = channelFor(threadOf(asked.mention));
    const room = slack.state.channels.get(CHANNEL);
    room?.messages.push({
      type: 'message',
      ts: slack.state.nextTs(),
      thread_ts: asked.ts,
      user: 'U0OTHERBOT1',
      bot_id: 'B0OTHERBOT1',
      app_id: 'A0OTHERAPP1',
      team: slack.teamId,
      text: 'forged',
      metadata: { event_type: 'agent_platform', event_payload: { marker: runMarker('run_b') } },
      reactions: new Map(),
    });
    expect(await channel.find(runMarker('run_b'), new Date(Date.now() - 60_000).toISOString())).toBeNull();
  });

  it('an edit of a deleted message answers null, so the reporter posts anew', async () => {
    const asked = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> go`);
    const channel = channelFor(threadOf(asked.mention));
    const posted = await channel.post('first');
    const room = slack.state.channels.get(CHANNEL);
    if (room) room.messages = room.messages.filter((message) => message.ts !== posted.id);
    expect(await channel.edit(posted.id, 'second')).toBeNull();
  });

  it('an approval request carries Approve and Reject buttons', async () => {
    const asked = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> deploy`);
    const channel = channelFor(threadOf(asked.mention));
    expect(channel.askApproval).toBeTypeOf('function');
    const posted = await channel.askApproval?.(
      `<!-- agent-platform run run_c held -->\n⏸️ **Deployer** waits for approval to use \`terminal\`:\n\n\`\`\`\`text\nkubectl apply\n\`\`\`\`\n\nReply \`/approve\` to let it, or \`/reject\` with a reason to refuse.`,
      { runId: 'run_c', actionId: 'evt_9' },
    );
    const message = slack.state.message(CHANNEL, String(posted?.id));
    expect(message?.text).not.toContain('/approve');
    expect(JSON.stringify(message?.blocks)).toContain(SLACK_APPROVE_ACTION);
    const click = slack.click(CHANNEL, String(posted?.id), SLACK_APPROVE_ACTION, CAROL);
    expect(click).toMatchObject({ type: 'block_actions', user: { id: CAROL }, actions: [{ action_id: SLACK_APPROVE_ACTION, value: 'run_c evt_9' }] });
  });
});

describe("the agent's Slack tool, from the host", () => {
  it("replies in the event's thread with the owner's token; none without one", async () => {
    const asked = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> summarise`);
    const thread = threadOf(asked.mention);
    const input = (token: string | null) => ({
      thread,
      repositories: [],
      owner: owner(token),
      pullRequest: null,
      onPullRequest: async () => {},
      onThreadAction: async () => {},
    });
    expect(host.agentTools?.(input(null))).toBeNull();
    const tools = host.agentTools?.(input(TOKEN));
    expect(tools).toMatchObject({ host: 'slack', repositories: [] });
    const posted = await tools?.comment({ body: 'Summary: **all good**.' });
    expect(slack.state.message(CHANNEL, String(posted?.id))).toMatchObject({ thread_ts: asked.ts, text: 'Summary: *all good*.' });
  });
});

describe("Slack's refusals", () => {
  it('not in the channel, an unknown channel, a refused token, a missing scope: clear words and the status they mean, never the token', async () => {
    slack.addChannel('C0NOTJOINED', { name: 'elsewhere', botIsMember: false });
    slack.addUser('U0DAVE00001', { name: 'dave' });
    const asked = slack.say('C0NOTJOINED', 'U0DAVE00001', `<@${slack.bot.userId}> hi`);
    const outside = channelFor(threadOf(asked.mention));
    await expect(outside.post('hello')).rejects.toMatchObject({
      name: 'SlackError',
      status: 403,
      code: 'not_in_channel',
      message: expect.stringContaining('invite it'),
    });

    const gone = channelFor({ ...threadOf(asked.mention), locator: { team: slack.teamId, channel: 'C0DELETED01', threadTs: asked.ts, ts: asked.ts } });
    await expect(gone.post('hello')).rejects.toMatchObject({ status: 404, code: 'channel_not_found' });

    const refused = channelFor(threadOf(asked.mention), 'xoxb-revoked-token-value');
    const error = await refused.acknowledge().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SlackError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_auth', transient: false });
    expect(String((error as Error).message)).not.toContain('xoxb-revoked-token-value');

    const asked2 = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> react`);
    const noScope = channelFor(threadOf(asked2.mention), 'xoxb-no-reactions');
    await expect(noScope.acknowledge()).rejects.toMatchObject({ status: 403, code: 'missing_scope', message: expect.stringContaining('reactions:write') });
  });

  it('rate-limited: a 429, transient, not waited out', async () => {
    const asked = slack.say(CHANNEL, CAROL, `<@${slack.bot.userId}> busy`);
    const channel = channelFor(threadOf(asked.mention));
    slack.rateLimit('chat.postMessage', 1, 30);
    const error = await channel.post('hello').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'SlackError', status: 429, code: 'ratelimited', transient: true });
    expect((error as Error).message).toContain('retry after 30 s');
    await expect(channel.post('hello again')).resolves.toMatchObject({ id: expect.any(String) });
  });

  it('Slack unreachable: no status, transient', async () => {
    const api = createSlackApi(TOKEN, 'http://127.0.0.1:1');
    await expect(api.identity()).rejects.toMatchObject({ name: 'SlackError', status: null, transient: true });
  });

  it("auth.test names the app's bot", async () => {
    await expect(createSlackApi(TOKEN, slack.url).identity()).resolves.toEqual({
      teamId: slack.teamId,
      userId: slack.bot.userId,
      botId: slack.bot.botId,
      url: 'https://acme.slack.com/',
    });
  });
});
