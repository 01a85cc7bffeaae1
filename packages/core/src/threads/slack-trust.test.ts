/**
 * Who may command the agent from Slack, narrowed by an automation's `slack_channels` and
 * `slack_user_groups`: a command written in another channel, or by someone in none of the groups
 * (asked of the Slack stand-in with the owner's bot token through the real `@slack/web-api`, kept
 * for minutes), is refused with words that say why — whatever `allowed_actors` says — and a group
 * Slack cannot tell about refuses (fail closed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackApi, type SlackApiServer } from '@agent-platform/testing/slack-api';
import { createSlackApi } from '../hosts/slack-api.js';
import { approvalMessage } from '../hosts/slack-message.js';
import { createSlackUserGroupLookup } from '../hosts/slack-user-groups.js';
import { SLACK_APPROVE_ACTION } from '../inbound/slack.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import type { AutomationRecord } from '../schemas/automation.js';
import { automationCreateInputSchema, automationUpdateInputSchema } from '../schemas/automation.js';
import { ActorTrust, needsTrust } from './actor-trust.js';
import { actorOf } from './inbound-hosts.js';

const TOKEN = 'xoxb-slack-trust-test-3141';
const ENGINEERS = 'C0ENGINEERS';
const RANDOM = 'C0RANDOM001';
const ALICE = 'U0ALICE0001';
const BOB = 'U0BOB000001';
const ONCALL = 'S0ONCALL001';

let slack: SlackApiServer;
beforeAll(async () => {
  slack = await startSlackApi({ tokens: { [TOKEN]: {} } });
  slack.addUser(ALICE, { name: 'alice' });
  slack.addUser(BOB, { name: 'bob' });
  slack.addChannel(ENGINEERS, { name: 'engineers' });
  slack.addChannel(RANDOM, { name: 'random' });
  slack.addUserGroup(ONCALL, [ALICE], { handle: 'oncall' });
});
afterAll(async () => {
  await slack?.close();
});

const settings = (token: string | null): AgentSettings => ({ providerTokens: token ? { slack: { token, host: slack.url } } : {} }) as unknown as AgentSettings;

type Narrowing = Pick<AutomationRecord, 'created_by' | 'allowed_actors' | 'slack_channels' | 'slack_user_groups'>;
const automation = (narrowing: Partial<Narrowing> = {}): Narrowing => ({ created_by: 'owner', allowed_actors: null, ...narrowing });

/** `user`'s mention of the app in `channel`, as the actor the platform reads from Slack's event. */
function mentionBy(user: string, channel = ENGINEERS) {
  const said = slack.say(channel, user, `<@${slack.bot.userId}> deploy`);
  return actorOf('slack', 'app_mention', said.mention);
}

/** A clock that moves when told. */
function clock() {
  let now = Date.parse('2026-11-29T10:00:00Z');
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

const usergroupCalls = () => slack.requests.filter((request) => request.method === 'usergroups.users.list');

describe('Slack: channels and user groups narrow who may command the agent', () => {
  it('slack_channels: a command written in another channel is refused, whatever allowed_actors says', async () => {
    const trust = new ActorTrust(clock(), null);
    const only = automation({ slack_channels: [ENGINEERS] });
    expect(await trust.decide(only, {}, mentionBy(BOB))).toEqual({ trusted: true, actor: BOB });
    expect(await trust.decide(only, {}, mentionBy(BOB, RANDOM))).toEqual({
      trusted: false,
      actor: BOB,
      why: `the command was written in channel ${RANDOM}; this automation takes commands only in the channels of slack_channels (${ENGINEERS})`,
    });
    expect(await trust.decide({ ...only, allowed_actors: 'anyone' }, {}, mentionBy(BOB, RANDOM))).toMatchObject({ trusted: false });
    expect(await trust.decide({ ...only, allowed_actors: [BOB] }, {}, mentionBy(BOB, RANDOM))).toMatchObject({ trusted: false });
    // A click on an approval button is read in the channel of the message it is on.
    const asked = slack.say(RANDOM, ALICE, 'held');
    const posted = await createSlackApi(TOKEN, slack.url).postReply(RANDOM, asked.ts, approvalMessage('May I?', { runId: 'run_1', actionId: 'evt_1' }));
    const click = actorOf('slack', 'block_actions', slack.click(RANDOM, posted.ts, SLACK_APPROVE_ACTION, BOB));
    expect(click).toMatchObject({ text: '/approve', channel: RANDOM });
    expect(await trust.decide(only, {}, click)).toMatchObject({ trusted: false, why: expect.stringContaining(`written in channel ${RANDOM}`) });
  });

  it("slack_user_groups: members of a group are asked of Slack with the owner's bot token, kept for minutes; others are refused", async () => {
    const time = clock();
    const trust = new ActorTrust(time, null, { slackUserGroups: createSlackUserGroupLookup({ settingsOf: async () => settings(TOKEN) }) });
    const oncall = automation({ slack_user_groups: [ONCALL] });
    const before = usergroupCalls().length;
    expect(await trust.decide(oncall, {}, mentionBy(ALICE))).toEqual({ trusted: true, actor: ALICE });
    expect(await trust.decide(oncall, {}, mentionBy(BOB))).toEqual({
      trusted: false,
      actor: BOB,
      why: `@${BOB} is in none of the Slack user groups this automation takes commands from (slack_user_groups: ${ONCALL})`,
    });
    // One question for both: the members are kept for minutes.
    expect(usergroupCalls().length - before).toBe(1);
    expect(usergroupCalls().at(-1)).toMatchObject({ args: { usergroup: ONCALL }, ok: true, auth: 'bearer' });
    // Bob joins the group: counted once what Slack said is older than the cache's minutes.
    slack.addUserGroup(ONCALL, [ALICE, BOB], { handle: 'oncall' });
    expect(await trust.decide(oncall, {}, mentionBy(BOB))).toMatchObject({ trusted: false });
    time.advance(6 * 60_000);
    expect(await trust.decide(oncall, {}, mentionBy(BOB))).toEqual({ trusted: true, actor: BOB });
    expect(usergroupCalls().length - before).toBe(2);
    // Both narrowings at once: the group's member, in the wrong channel.
    expect(await trust.decide({ ...oncall, slack_channels: [ENGINEERS] }, {}, mentionBy(ALICE, RANDOM))).toMatchObject({ trusted: false });
    expect(slack.violations).toEqual([]);
  });

  it('fails closed: an unknown group, no token, no way to ask Slack — each refused with why', async () => {
    const lookup = createSlackUserGroupLookup({ settingsOf: async (userId) => settings(userId === 'owner' ? TOKEN : null) });
    const trust = new ActorTrust(clock(), null, { slackUserGroups: lookup });
    expect(await trust.decide(automation({ slack_user_groups: ['S0NOSUCH001'] }), {}, mentionBy(ALICE))).toMatchObject({
      trusted: false,
      why: expect.stringContaining('could not ask Slack for the members of S0NOSUCH001: Slack answered no_such_subteam: the Slack user group was not found'),
    });
    // A group that cannot be read does not hide one that can.
    expect(await trust.decide(automation({ slack_user_groups: ['S0NOSUCH001', ONCALL] }), {}, mentionBy(ALICE))).toEqual({ trusted: true, actor: ALICE });
    expect(await trust.decide({ ...automation({ slack_user_groups: [ONCALL] }), created_by: 'someone' }, {}, mentionBy(ALICE))).toMatchObject({
      trusted: false,
      why: expect.stringContaining("no Slack bot token is stored for the automation's owner (someone)"),
    });
    const unconfigured = new ActorTrust(clock(), null);
    expect(await unconfigured.decide(automation({ slack_user_groups: [ONCALL] }), {}, mentionBy(ALICE))).toMatchObject({
      trusted: false,
      why: expect.stringContaining('no way to ask Slack is configured'),
    });
    expect(JSON.stringify(slack.requests)).not.toContain(TOKEN);
  });

  it('count on every Slack event of the automation, and never outside Slack', () => {
    const trigger = (source: string) => ({ type: 'event' as const, source, on: ['reaction_added'], filter: null, mention: null });
    expect(needsTrust({ trigger: trigger('slack'), allowed_actors: null }, 'reaction_added')).toBe(false);
    expect(needsTrust({ trigger: trigger('slack'), allowed_actors: null, slack_channels: [ENGINEERS] }, 'reaction_added')).toBe(true);
    expect(needsTrust({ trigger: trigger('slack-eng'), allowed_actors: null, slack_user_groups: [ONCALL] }, 'reaction_added')).toBe(true);
    expect(needsTrust({ trigger: trigger('linear'), allowed_actors: null, slack_channels: [ENGINEERS] }, 'reaction_added')).toBe(false);
  });

  it('are ids in the automation: a channel name or a group handle is refused with what to give instead', () => {
    const base = { name: 'x', trigger: { type: 'event', source: 'slack', mention: '@agent' }, instructions: 'x' };
    expect(automationCreateInputSchema.safeParse({ ...base, slack_channels: [ENGINEERS], slack_user_groups: [ONCALL] }).success).toBe(true);
    const named = automationCreateInputSchema.safeParse({ ...base, slack_channels: ['#engineers'] });
    expect(named.error?.issues[0]).toMatchObject({ path: ['slack_channels', 0], message: expect.stringContaining("a channel's name is not one") });
    expect(automationCreateInputSchema.safeParse({ ...base, slack_user_groups: ['@oncall'] }).error?.issues[0]?.path).toEqual(['slack_user_groups', 0]);
    expect(automationCreateInputSchema.safeParse({ ...base, slack_channels: [] }).success).toBe(false);
    // Strict input: a misspelt field is refused, not ignored.
    expect(automationCreateInputSchema.safeParse({ ...base, slack_channel: [ENGINEERS] }).success).toBe(false);
    // `null` on an update removes the narrowing.
    expect(automationUpdateInputSchema.parse({ slack_channels: null, slack_user_groups: null })).toEqual({ slack_channels: null, slack_user_groups: null });
  });
});
