/**
 * Answering in Slack: a Slack app's events reach a `slack` source (signed with its signing
 * secret, as the Slack stand-in signs them), a mention of the app starts a run of the built-in
 * agent (driven by a scripted model), and the run answers in the Slack thread through the Slack
 * stand-in (which checks every Web API call against Slack's published description): 👀 on the
 * mention, one reply that says "on it" and becomes the outcome; a later mention in the same
 * thread continues the conversation; in confirmation mode the held action is posted with
 * Approve and Reject buttons, a click from outside the workspace is refused and one from a
 * member releases it. A mention from someone the automation does not trust — a guest from
 * another workspace, or, once the automation names `slack_channels` and `slack_user_groups`, a
 * mention in another channel or by someone outside the groups (asked of Slack) — starts nothing.
 */
import { createSlackAnswerHost, type AgentPlatform, type Delivery, type Run, type SandboxRuntime } from '@agent-platform/core';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startSlackApi, type SlackApiServer, type SlackMessageRecord } from '@agent-platform/testing/slack-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alice, reportedRun, startEngine } from './support/engine-platform.js';
import { until } from './support/polling.js';
import { call, latestAsk, stepOf } from './support/scripted-steps.js';

const BOT_TOKEN = 'xoxb-e2e-slack-answers-0042';
const SIGNING_SECRET = 'e2e-slack-signing-secret-9f8e7d';
const LLM_KEY = 'sk-e2e-slack-llm-4040';
const CHANNEL = 'C0ENGINEERS';
const CAROL = 'U0CAROL0001';
/** Of the workspace, but not of the on-call user group. */
const DAVE = 'U0DAVE00001';
const RANDOM = 'C0RANDOM001';
const ONCALL = 'S0ONCALL001';
/** A guest from another workspace, in a shared channel. */
const GUEST = 'U0GUEST0001';

/** Whether the model, on a follow-up, was shown the first exchange. */
const followUpsSawHistory: boolean[] = [];

/**
 * The model: a first request answers at once; a follow-up (its last user message says so) notes
 * whether the first answer is in the history; "careful" work runs a command first (held in
 * confirmation mode).
 */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const { asked, step, all } = latestAsk(request);
  if (asked.includes('twice')) {
    return stepOf(
      [call('terminal', { command: 'echo step one' }), call('terminal', { command: 'echo step two' }), call('finish', { message: 'Both steps done.' })],
      step,
    );
  }
  if (asked.includes('careful')) {
    return stepOf([call('terminal', { command: 'echo deployed' }), call('finish', { message: 'Deployed with care.' })], step);
  }
  if (asked.includes('post a summary')) {
    return stepOf(
      [
        call('slack_reply', { body: 'Summary: **3 flaky tests**, see [the report](https://ci.example/r/1).' }),
        call('finish', { message: 'Posted the summary.' }),
      ],
      step,
    );
  }
  if (asked.includes('Follow-up from')) {
    if (step === 0) followUpsSawHistory.push(all.includes('The build fails on **Node 18**'));
    return call('finish', { message: 'The tests pass on Node 20.' });
  }
  return call('finish', { message: 'The build fails on **Node 18**: see [the log](https://ci.example/build/7).' });
}

let slack: SlackApiServer;
let llm: FakeLlmServer;
let runtime: SandboxRuntime;
let platform: AgentPlatform;
let automationId: string;

beforeAll(async () => {
  slack = await startSlackApi({ tokens: { [BOT_TOKEN]: {} } });
  slack.addUser(CAROL, { name: 'carol' });
  slack.addUser(GUEST, { name: 'guest', team: 'T0ELSEWHERE' });
  slack.addUser(DAVE, { name: 'dave' });
  slack.addChannel(CHANNEL, { name: 'engineers' });
  slack.addChannel(RANDOM, { name: 'random' });
  slack.addUserGroup(ONCALL, [CAROL], { handle: 'oncall' });
  llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
  ({ platform, runtime } = await startEngine({ answerHosts: [createSlackAnswerHost()] }));
  await storeSettings(false);
  await platform.gitProviders.store(alice, { provider_tokens: { slack: { token: BOT_TOKEN, host: slack.url } } });
  await platform.webhooks.register(alice, { name: 'Agent app', kind: 'slack', source: 'slack', webhook_secret: SIGNING_SECRET });
  const automation = await platform.automations.create(alice, {
    name: 'Agent in Slack',
    trigger: { type: 'event', source: 'slack', mention: '@agent' },
    instructions: 'Answer what the message asks.',
  });
  expect(automation).toMatchObject({ report_to_github: true });
  automationId = automation.id;
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  await runtime?.close();
  await llm?.close();
  await slack?.close();
});

afterEach(() => {
  expect(slack.violations).toEqual([]);
  expect(JSON.stringify(slack.requests)).not.toContain(BOT_TOKEN);
});

const storeSettings = (confirmationMode: boolean) =>
  platform.settings.store(alice, { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1`, confirmation_mode: confirmationMode });

let lastDeliveryId: string | null = null;

/** Sends a request to the Slack source as Slack does: signed with the app's signing secret. */
async function deliver(payload: Record<string, unknown>) {
  const request = slack.signed(SIGNING_SECRET, payload);
  const answer = (await platform.events.ingest(alice.orgId, 'slack', { headers: request.headers, body: new TextEncoder().encode(request.body) })) as {
    delivery_id?: string;
    runs_created: string[];
  };
  lastDeliveryId = answer.delivery_id ?? null;
  return answer;
}

const lastDelivery = (): Promise<Delivery> => platform.deliveries.get(alice, lastDeliveryId ?? '');

/** `user` mentions the app in `channel` (in `threadTs`'s thread when given). */
async function mention(user: string, text: string, threadTs?: string, channel = CHANNEL) {
  const said = slack.say(channel, user, `<@${slack.bot.userId}> ${text}`, threadTs ? { threadTs } : {});
  return { ts: said.ts, delivered: await deliver(said.mention ?? {}) };
}

const runOf = (id: string): Promise<Run> => platform.automations.getRun(alice, id);

/** The run once it ended and its outcome was posted. */
const reported = (id: string): Promise<Run> => reportedRun(platform, id);

/** The app's replies in a thread. */
const replies = (threadTs: string): SlackMessageRecord[] => slack.thread(CHANNEL, threadTs).filter((message) => message.bot_id === slack.bot.botId);

describe('Slack', () => {
  it("answers Slack's URL verification with its challenge, once the signature holds", async () => {
    const challenge = 'c3po-r2d2-challenge';
    const request = slack.signed(SIGNING_SECRET, { token: 'x', challenge, type: 'url_verification' });
    // What the events endpoint answers the sender (`ingest` gives the delivery's result alone).
    await expect(platform.events.answer(alice.orgId, 'slack', { headers: request.headers, body: new TextEncoder().encode(request.body) })).resolves.toEqual({
      challenge,
    });
    const forged = slack.signed('not-the-signing-secret', { token: 'x', challenge, type: 'url_verification' });
    await expect(platform.events.answer(alice.orgId, 'slack', { headers: forged.headers, body: new TextEncoder().encode(forged.body) })).rejects.toMatchObject({
      status: 401,
    });
  });

  let threadTs: string;
  let firstRun: Run;

  it('a mention: 👀 on it, then one reply in the thread that says "on it" and becomes the outcome', async () => {
    const { ts, delivered } = await mention(CAROL, 'why does the build fail?');
    threadTs = ts;
    expect(delivered.runs_created).toHaveLength(1);
    const runId = delivered.runs_created[0] ?? '';
    await until(() => replies(threadTs).length === 1);
    expect(slack.reactions(CHANNEL, ts)).toEqual({ eyes: [slack.bot.userId] });
    firstRun = await reported(runId);
    expect(firstRun).toMatchObject({ status: 'COMPLETED', thread_key: `slack:${slack.teamId}/${CHANNEL}/${threadTs}` });
    const [answer] = replies(threadTs);
    expect(answer?.text).toBe(
      `*Agent in Slack* ✅ completed.\n\nThe build fails on *Node 18*: see <https://ci.example/build/7|the log>.\n\n<https://agents.example.com/console/runs/${runId}|Run \`${runId}\`>`,
    );
    expect(answer?.edited).toBeDefined();
    expect(answer?.metadata).toEqual({ event_type: 'agent_platform', event_payload: { marker: `<!-- agent-platform run ${runId} -->` } });
    expect(firstRun.report).toMatchObject({ target: `#${CHANNEL} (thread ${threadTs})`, reaction: 'added', comment_id: answer?.ts, error: null });
    expect(firstRun.report?.comment_url).toBe(
      `https://acme.slack.com/archives/${CHANNEL}/p${answer?.ts.replace('.', '')}?thread_ts=${threadTs}&cid=${CHANNEL}`,
    );
  }, 60_000);

  it('a later mention in the same thread continues the conversation, with its own reply', async () => {
    const { delivered } = await mention(CAROL, 'and the tests?', threadTs);
    const run = await reported(delivered.runs_created[0] ?? '');
    expect(run).toMatchObject({ status: 'COMPLETED', conversation_id: firstRun.conversation_id, thread_key: firstRun.thread_key });
    expect(followUpsSawHistory.at(-1)).toBe(true);
    expect(replies(threadTs)).toHaveLength(2);
    expect(replies(threadTs)[1]?.text).toContain('The tests pass on Node 20.');
    expect(replies(threadTs)[1]?.text).not.toContain('Node 18');
  }, 60_000);

  it('the agent replies in the thread with its slack_reply tool', async () => {
    const { ts, delivered } = await mention(CAROL, 'post a summary of the flaky tests');
    const run = await reported(delivered.runs_created[0] ?? '');
    expect(run.status).toBe('COMPLETED');
    const texts = replies(ts).map((message) => message.text);
    expect(texts).toHaveLength(2);
    expect(texts).toContain('Summary: *3 flaky tests*, see <https://ci.example/r/1|the report>.');
    expect(texts.find((text) => text.includes('✅ completed'))).toContain('Posted the summary.');
    // The agent's reply carries the platform's mark too.
    expect(replies(ts).every((message) => message.metadata?.event_type === 'agent_platform')).toBe(true);
  }, 60_000);

  it("the app's own replies never command it", async () => {
    const own = replies(threadTs)[0];
    const echo = {
      token: 'x',
      team_id: slack.teamId,
      api_app_id: slack.bot.appId,
      type: 'event_callback',
      event_id: 'Ev0OWNECHO01',
      event_time: 1,
      authorizations: [{ team_id: slack.teamId, user_id: slack.bot.userId, is_bot: true }],
      event: {
        type: 'message',
        channel_type: 'channel',
        channel: CHANNEL,
        user: slack.bot.userId,
        bot_id: slack.bot.botId,
        app_id: slack.bot.appId,
        text: `${own?.text} <@${slack.bot.userId}>`,
        ts: own?.ts,
        thread_ts: threadTs,
      },
    };
    expect((await deliver(echo)).runs_created).toEqual([]);
  });

  it("in confirmation mode the held action comes with buttons: a click from outside the workspace is refused, a member's releases it", async () => {
    await storeSettings(true);
    try {
      const { ts, delivered } = await mention(CAROL, 'deploy, careful');
      const runId = delivered.runs_created[0] ?? '';
      await until(() => replies(ts).some((message) => Array.isArray(message.blocks)));
      const asking = replies(ts).find((message) => Array.isArray(message.blocks));
      expect(asking?.text).toContain('waits for approval to use `terminal`');
      expect(asking?.text).toContain('echo deployed');
      expect(asking?.text).not.toContain('/approve');
      expect(JSON.stringify(asking?.blocks)).toContain('"action_id":"agent_platform_approve"');
      expect((await runOf(runId)).status).toBe('RUNNING');

      // A guest of a shared channel (another workspace) clicks Approve: refused, still held.
      expect((await deliver(slack.click(CHANNEL, asking?.ts ?? '', 'agent_platform_approve', GUEST))).runs_created).toEqual([]);
      expect((await lastDelivery()).outcomes[0]).toMatchObject({ reason: 'actor_refused', error: expect.stringContaining('not in the Slack workspace') });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await runOf(runId)).status).toBe('RUNNING');

      // A member of the workspace clicks Approve: the action runs, the run completes.
      expect((await deliver(slack.click(CHANNEL, asking?.ts ?? '', 'agent_platform_approve', CAROL))).runs_created).toEqual([]);
      expect((await lastDelivery()).outcomes[0]).toMatchObject({ matched: true, reason: 'thread_command' });
      const run = await reported(runId);
      expect(run.status).toBe('COMPLETED');
      expect(replies(ts)[0]?.text).toContain('Deployed with care.');
      const approvals = await platform.audit.list({ ...alice, role: 'owner' }, { limit: 100, after: 0, action: 'action.approved' });
      expect(approvals.entries).toMatchObject([{ actor: { kind: 'thread', id: CAROL }, target: { type: 'run', id: runId } }]);
    } finally {
      await storeSettings(false);
    }
  }, 90_000);

  it('a click on an older approval request answers nothing held now', async () => {
    await storeSettings(true);
    try {
      const { ts, delivered } = await mention(CAROL, 'run it twice');
      const runId = delivered.runs_created[0] ?? '';
      const asking = () => replies(ts).filter((message) => Array.isArray(message.blocks));
      await until(() => asking().length === 1);
      const first = asking()[0]?.ts ?? '';
      expect(asking()[0]?.text).toContain('echo step one');
      await deliver(slack.click(CHANNEL, first, 'agent_platform_approve', CAROL));
      await until(() => asking().length === 2);
      const second = asking()[1]?.ts ?? '';
      expect(asking()[1]?.text).toContain('echo step two');

      // The first request's button again: it named step one, so step two stays held.
      await deliver(slack.click(CHANNEL, first, 'agent_platform_approve', CAROL));
      expect((await lastDelivery()).outcomes[0]).toMatchObject({ matched: true, reason: 'thread_command' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await runOf(runId)).status).toBe('RUNNING');
      const conversation = await platform.conversations.get(alice, (await runOf(runId)).conversation_id ?? '');
      expect(conversation).toMatchObject({ execution_status: 'waiting_for_confirmation' });

      await deliver(slack.click(CHANNEL, second, 'agent_platform_reject', CAROL));
      const run = await reported(runId);
      expect(run.status).toBe('COMPLETED');
      const rejections = await platform.audit.list({ ...alice, role: 'owner' }, { limit: 100, after: 0, action: 'action.rejected' });
      expect(rejections.entries).toMatchObject([{ actor: { kind: 'thread', id: CAROL }, target: { type: 'run', id: runId } }]);
    } finally {
      await storeSettings(false);
    }
  }, 90_000);
  it('a mention from a guest of another workspace starts nothing: no run, no 👀, no reply, and the delivery says why', async () => {
    const { ts, delivered } = await mention(GUEST, 'delete the staging database');
    expect(delivered.runs_created).toEqual([]);
    expect((await lastDelivery()).outcomes).toMatchObject([
      { automation_id: automationId, matched: false, reason: 'actor_refused', error: expect.stringContaining(`@${GUEST} is not in the Slack workspace`) },
    ]);
    expect(slack.reactions(CHANNEL, ts)).toEqual({});
    expect(replies(ts)).toEqual([]);
  });

  it('narrowed to a channel and a user group: a mention elsewhere, or by someone outside the group, starts nothing; a member in the channel runs', async () => {
    await platform.automations.update(alice, automationId, { slack_channels: [CHANNEL], slack_user_groups: [ONCALL] });
    try {
      const asked = () => slack.requests.filter((request) => request.method === 'usergroups.users.list');
      const elsewhere = await mention(CAROL, 'status please', undefined, RANDOM);
      expect(elsewhere.delivered.runs_created).toEqual([]);
      expect((await lastDelivery()).outcomes[0]).toMatchObject({
        matched: false,
        reason: 'actor_refused',
        error: `the command was written in channel ${RANDOM}; this automation takes commands only in the channels of slack_channels (${CHANNEL})`,
      });
      expect(slack.thread(RANDOM, elsewhere.ts).filter((message) => message.bot_id === slack.bot.botId)).toEqual([]);

      const outsider = await mention(DAVE, 'status please');
      expect(outsider.delivered.runs_created).toEqual([]);
      expect((await lastDelivery()).outcomes[0]).toMatchObject({
        reason: 'actor_refused',
        error: `@${DAVE} is in none of the Slack user groups this automation takes commands from (slack_user_groups: ${ONCALL})`,
      });
      expect(slack.reactions(CHANNEL, outsider.ts)).toEqual({});
      expect(replies(outsider.ts)).toEqual([]);

      const member = await mention(CAROL, 'status please');
      expect(member.delivered.runs_created).toHaveLength(1);
      expect(await reported(member.delivered.runs_created[0] ?? '')).toMatchObject({ status: 'COMPLETED' });
      expect(replies(member.ts)).toHaveLength(1);
      // The group's members were asked of Slack with the owner's bot token, once (kept for minutes).
      expect(asked().map((request) => [request.args.usergroup, request.ok, request.auth])).toEqual([[ONCALL, true, 'bearer']]);
    } finally {
      await platform.automations.update(alice, automationId, { slack_channels: null, slack_user_groups: null });
    }
  }, 60_000);
});
