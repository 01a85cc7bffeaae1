/**
 * The agent's Slack tool (`slack_reply`): a reply in the run's own thread, marked as the
 * platform's, with the owner's bot token — bad input refused by field, no thread refused, Slack's
 * refusals as `PlatformError`s without the token — against the Slack stand-in.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSlackApi, type SlackApiServer } from '@agent-platform/testing/slack-api';
import { PlatformError } from '../kernel/errors.js';
import { createSlackAgentTools, slackToolScope } from './slack-tools.js';

const TOKEN = 'xoxb-3333-4444-slack-tools-test';
const CHANNEL = 'C0SUPPORT01';
const ERIN = 'U0ERIN00001';
const isSlack = (source: string) => source === 'slack';

let slack: SlackApiServer;
beforeAll(async () => {
  slack = await startSlackApi({ tokens: { [TOKEN]: {} } });
  slack.addUser(ERIN, { name: 'erin' });
  slack.addChannel(CHANNEL, { name: 'support' });
});
afterAll(async () => {
  await slack?.close();
});
afterEach(() => {
  expect(slack.violations).toEqual([]);
});

const credentials = () => ({ token: TOKEN, host: slack.url });

describe('slack_reply', () => {
  it("replies in the run's thread, in mrkdwn, with the platform's mark", async () => {
    const asked = slack.say(CHANNEL, ERIN, `<@${slack.bot.userId}> summarise the incident`);
    const scope = slackToolScope('slack', 'app_mention', JSON.stringify(asked.mention), isSlack);
    expect(scope.thread).toEqual({ team: slack.teamId, channel: CHANNEL, threadTs: asked.ts });
    const replies: unknown[] = [];
    const tools = createSlackAgentTools({ ...scope, onReply: async (reply) => void replies.push(reply) }, credentials());
    expect(tools).toMatchObject({ host: 'slack', repositories: [], thread: null });
    expect(tools.addLabels).toBeUndefined();
    expect(tools.createPullRequest).toBeUndefined();
    const posted = await tools.comment({ body: 'The **database** ran out of connections; see [the graph](https://grafana.example/d/1).' });
    const reply = slack.state.message(CHANNEL, String(posted.id));
    expect(reply).toMatchObject({
      thread_ts: asked.ts,
      text: 'The *database* ran out of connections; see <https://grafana.example/d/1|the graph>.',
      metadata: { event_type: 'agent_platform', event_payload: { marker: '<!-- agent-platform -->' } },
    });
    expect(replies).toEqual([{ channel: CHANNEL, threadTs: asked.ts, url: posted.url }]);
  });

  it('refuses what a Slack reply does not take, an empty body, and a run with no Slack thread', async () => {
    const asked = slack.say(CHANNEL, ERIN, `<@${slack.bot.userId}> hi`);
    const tools = createSlackAgentTools(slackToolScope('slack', 'app_mention', JSON.stringify(asked.mention), isSlack), credentials());
    await expect(tools.comment({ repository: 'acme/app', body: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ loc: ['repository'] }] });
    await expect(tools.comment({ number: 3, body: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ loc: ['number'] }] });
    await expect(tools.comment({ body: '  ' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ loc: ['body'] }] });
    await expect(tools.comment({ body: 'x'.repeat(40_001) })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    for (const scope of [
      slackToolScope('github', 'issue_comment', '{}', isSlack),
      slackToolScope('slack', 'reaction_added', '{}', isSlack),
      slackToolScope('slack', 'app_mention', 'not json', isSlack),
    ]) {
      expect(scope.thread).toBeNull();
      await expect(createSlackAgentTools(scope, credentials()).comment({ body: 'x' })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('no thread'),
      });
    }
  });

  it("Slack's refusal is a PlatformError with Slack's words and never the token", async () => {
    slack.addChannel('C0LEFTALONE', { name: 'left', botIsMember: false });
    const asked = slack.say('C0LEFTALONE', ERIN, `<@${slack.bot.userId}> hi`);
    const tools = createSlackAgentTools(slackToolScope('slack', 'app_mention', JSON.stringify(asked.mention), isSlack), credentials());
    const error = await tools.comment({ body: 'hello' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('not_in_channel') });
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });
});
