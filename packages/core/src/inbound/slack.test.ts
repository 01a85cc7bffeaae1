import { describe, expect, it } from 'vitest';
import { compileExpression } from '../expressions/jmespath.js';
import {
  SLACK_APPROVE_ACTION,
  SLACK_EVENT_KEY_EXPR,
  SLACK_REJECT_ACTION,
  slackActor,
  slackDeliveryId,
  slackEventKey,
  slackPayloadText,
  slackThread,
  slackUrlVerification,
} from './slack.js';

// Payloads shaped as Slack's Events API sends them (the event_callback envelope, with
// `authorizations`) and as its interactivity requests carry them, trimmed to what is read.
const envelope = (event: Record<string, unknown>) => ({
  token: 'XXYYZZ',
  team_id: 'T0001',
  api_app_id: 'A0APP',
  event,
  type: 'event_callback',
  event_id: 'Ev08MFMKH6',
  event_time: 1700000000,
  authorizations: [{ enterprise_id: null, team_id: 'T0001', user_id: 'U0BOT', is_bot: true, is_enterprise_install: false }],
  is_ext_shared_channel: false,
  event_context: '4-eyJldCI6ImFwcF9tZW50aW9uIn0',
});
const mention = envelope({
  type: 'app_mention',
  user: 'U0ALICE',
  text: '<@U0BOT> the build on main is red, can you look?',
  ts: '1700000000.000200',
  channel: 'C0DEV',
  event_ts: '1700000000.000200',
  team: 'T0001',
});
const reply = envelope({
  type: 'app_mention',
  user: 'U0ALICE',
  text: 'thanks <@U0BOT> stop',
  ts: '1700000100.000300',
  thread_ts: '1700000000.000200',
  channel: 'C0DEV',
  event_ts: '1700000100.000300',
  team: 'T0001',
});
const message = (extra: Record<string, unknown>) =>
  envelope({ type: 'message', channel: 'C0DEV', user: 'U0ALICE', text: 'hi', ts: '1700000200.000100', channel_type: 'channel', ...extra });
const ownMessage = envelope({
  type: 'message',
  channel: 'C0DEV',
  user: 'U0BOT',
  bot_id: 'B0BOT',
  app_id: 'A0APP',
  text: 'On it: run r_1',
  ts: '1700000300.000100',
  thread_ts: '1700000000.000200',
  channel_type: 'channel',
  bot_profile: { id: 'B0BOT', app_id: 'A0APP', name: 'agent' },
});
const blockActions = {
  type: 'block_actions',
  user: { id: 'U0ALICE', username: 'alice', team_id: 'T0001' },
  api_app_id: 'A0APP',
  token: 'XXYYZZ',
  container: { type: 'message', message_ts: '1700000400.000100', channel_id: 'C0DEV', is_ephemeral: false, thread_ts: '1700000000.000200' },
  trigger_id: '12466734323.1395872398',
  team: { id: 'T0001', domain: 'acme' },
  channel: { id: 'C0DEV', name: 'dev' },
  message: { type: 'message', ts: '1700000400.000100', thread_ts: '1700000000.000200', text: 'Approve running `rm -rf build`?' },
  actions: [{ action_id: SLACK_APPROVE_ACTION, block_id: 'approval', value: 'run_1 evt_9', type: 'button', action_ts: '1700000410.1' }],
};

describe('Slack requests', () => {
  it('recognises the URL verification and its challenge', () => {
    expect(
      slackUrlVerification({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' }),
    ).toBe('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
    expect(slackUrlVerification(mention)).toBeNull();
    expect(slackUrlVerification({ type: 'url_verification' })).toBeNull();
  });

  it('names events by their type, messages by Slack’s subscription names, interactivity by its type', () => {
    const cases: [unknown, string][] = [
      [mention, 'app_mention'],
      [message({}), 'message.channels'],
      [message({ channel_type: 'group' }), 'message.groups'],
      [message({ channel_type: 'im' }), 'message.im'],
      [message({ channel_type: 'mpim' }), 'message.mpim'],
      [envelope({ type: 'reaction_added', user: 'U0ALICE', reaction: 'eyes', item: { type: 'message', channel: 'C0DEV', ts: '1.2' } }), 'reaction_added'],
      [blockActions, 'block_actions'],
      [{ type: 'app_rate_limited', team_id: 'T0001', minute_rate_limited: 1518467820, api_app_id: 'A0APP' }, 'app_rate_limited'],
    ];
    const expression = compileExpression(SLACK_EVENT_KEY_EXPR);
    for (const [payload, key] of cases) {
      expect(slackEventKey(payload)).toEqual({ ok: true, key });
      expect(expression.evaluate(payload), key).toBe(key);
    }
    expect(slackEventKey({ type: 'event_callback', event: {} })).toEqual({ ok: false, reason: 'the Slack event_callback has no event.type' });
    expect(slackEventKey({})).toEqual({ ok: false, reason: 'the Slack payload has no type' });
  });

  it('takes the delivery id from event_id (which a retry repeats); interactivity has none', () => {
    expect(slackDeliveryId(mention)).toBe('Ev08MFMKH6');
    expect(slackDeliveryId(blockActions)).toBeNull();
  });

  it('reads an interactivity request from its form’s payload field', () => {
    const form = `payload=${encodeURIComponent(JSON.stringify(blockActions))}`;
    expect(slackPayloadText({ 'content-type': 'application/x-www-form-urlencoded' }, form)).toBe(JSON.stringify(blockActions));
    expect(slackPayloadText({ 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, 'token=x')).toBeNull();
    expect(slackPayloadText({ 'content-type': 'application/json' }, '{"type":"event_callback"}')).toBe('{"type":"event_callback"}');
  });

  it('reads who mentioned the app, what they wrote, and how Slack wrote the mention', () => {
    expect(slackActor('app_mention', mention)).toEqual({
      host: 'slack',
      login: 'U0ALICE',
      id: 'U0ALICE',
      bot: false,
      platform: false,
      association: null,
      text: '<@U0BOT> the build on main is red, can you look?',
      comment: null,
      repository: null,
      mentionedAs: '<@U0BOT>',
      inWorkspace: true,
      channel: 'C0DEV',
    });
    // Without authorizations, an app_mention's first mention is the app's.
    const { authorizations: _dropped, ...bare } = mention;
    expect(slackActor('app_mention', bare).mentionedAs).toBe('<@U0BOT>');
  });

  it('recognises bots, and the platform’s own messages (its app, its bot user)', () => {
    expect(slackActor('message.channels', ownMessage)).toMatchObject({ bot: true, platform: true });
    const otherBot = message({ subtype: 'bot_message', bot_id: 'B0OTHER', user: undefined, text: 'deploy done' });
    expect(slackActor('message.channels', otherBot)).toMatchObject({ bot: true, platform: false, text: null });
    const otherApp = message({ bot_id: 'B0OTHER', bot_profile: { id: 'B0OTHER', app_id: 'A0OTHER' }, user: 'U0OTHERBOT' });
    expect(slackActor('message.channels', otherApp)).toMatchObject({ bot: true, platform: false });
    // An edit's envelope is not new words.
    expect(slackActor('message.channels', message({ subtype: 'message_changed' })).text).toBeNull();
  });

  it('tells a sender from another workspace of a shared channel', () => {
    const external = envelope({ ...mention.event, user: 'U0EXT', user_team: 'T0OTHER', team: 'T0OTHER' });
    expect(slackActor('app_mention', external).inWorkspace).toBe(false);
  });

  it('reads an approval button’s click as the command it is', () => {
    expect(slackActor('block_actions', blockActions)).toMatchObject({
      login: 'U0ALICE',
      bot: false,
      text: '/approve',
      inWorkspace: true,
      answers: 'evt_9',
      channel: 'C0DEV',
    });
    const unnamed = { ...blockActions, actions: [{ action_id: SLACK_APPROVE_ACTION, type: 'button', value: 'something else entirely' }] };
    expect(slackActor('block_actions', unnamed).answers).toBeNull();
    const reject = { ...blockActions, actions: [{ action_id: SLACK_REJECT_ACTION, type: 'button' }] };
    expect(slackActor('block_actions', reject).text).toBe('/reject');
    const other = { ...blockActions, actions: [{ action_id: 'something_else', type: 'button' }] };
    expect(slackActor('block_actions', other).text).toBeNull();
  });

  it('finds the thread: team, channel and the thread’s first message', () => {
    expect(slackThread('app_mention', mention)).toEqual({
      thread: {
        host: 'slack',
        key: 'slack:T0001/C0DEV/1700000000.000200',
        label: '#C0DEV',
        repository: null,
        at: { team: 'T0001', channel: 'C0DEV', thread_ts: '1700000000.000200', ts: '1700000000.000200' },
      },
    });
    // A reply in the thread, and a button on a message in it, are the same thread.
    expect(slackThread('app_mention', reply)).toMatchObject({ thread: { key: 'slack:T0001/C0DEV/1700000000.000200', at: { ts: '1700000100.000300' } } });
    expect(slackThread('block_actions', blockActions)).toMatchObject({ thread: { key: 'slack:T0001/C0DEV/1700000000.000200' } });
    expect(slackThread('app_rate_limited', { type: 'app_rate_limited', team_id: 'T0001' })).toEqual({
      none: 'a Slack app_rate_limited event is not a message in a channel',
    });
  });
});
