/**
 * A Slack Web API stand-in for tests on 127.0.0.1, served under `/api/` as `slack.com/api/` is
 * (so a client is pointed at it the way it would be at Slack: its API URL). Every call is checked
 * against Slack's published description of the method (`spec.ts`): the method is one Slack has,
 * each argument is one it takes (or one `@slack/web-api` types where the description predates
 * it), of its type, the required ones given; the bot token comes as `Authorization: Bearer`; the
 * body is form-encoded or JSON, as the client sends it. Every answer is checked against the
 * method's response schema before it is sent. Whatever does not conform lands in `violations`,
 * which a test asserts is empty. Answers are Slack's: HTTP 200 with `ok`, `error` for refusals,
 * and HTTP 429 with `Retry-After` while a method is rate-limited.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../http-support/read-body.js';
import { blockActions, eventEnvelope, messageEvent, signedSlackRequest, type SlackRequest } from './events.js';
import { METHOD_HANDLERS, type Answer, type MethodArguments } from './methods.js';
import { checkAnswer, METHODS, type MethodSpec } from './spec.js';
import { createState, type SlackBot, type SlackMessageRecord, type SlackState } from './state.js';

const API_ROOT = '/api/';

/** The scopes a bot token has unless a test says otherwise: what the platform's Slack app asks for. */
export const DEFAULT_SCOPES = ['app_mentions:read', 'chat:write', 'reactions:write', 'channels:history', 'groups:history', 'usergroups:read'] as const;

export interface SlackApiOptions {
  /** Accepted bot tokens (`xoxb-…`) → their scopes (default {@link DEFAULT_SCOPES}). Absent: any Bearer token is the bot's. */
  tokens?: Record<string, { scopes?: readonly string[] }>;
  /** The workspace's id. Default `T0AGENTS01`. */
  teamId?: string;
  /** The workspace's subdomain. Default `acme`. */
  domain?: string;
  /** The app's bot user, bot and app ids. */
  bot?: Partial<SlackBot>;
}

export type SlackViolationKind = 'method' | 'argument' | 'body' | 'auth' | 'answer';

/** Something that does not match Slack's description — a test asserts there are none. */
export interface SlackViolation {
  kind: SlackViolationKind;
  method: string;
  problems: string[];
}

export interface RecordedSlackRequest {
  method: string;
  /** How the arguments came: a form body, a JSON body, or the query string alone. */
  encoding: 'form' | 'json' | 'query';
  /** The arguments, typed, without any token. */
  args: MethodArguments;
  status: number;
  ok: boolean;
  /** Slack's error code of a refusal. */
  error: string | null;
  /** How the token came — never the token. */
  auth: 'bearer' | 'argument' | null;
}

export interface SlackApiServer {
  /** The origin, `http://127.0.0.1:<port>`: a Slack token's `host` in tests. */
  url: string;
  /** The Web API root, `http://127.0.0.1:<port>/api/` — `@slack/web-api`'s `slackApiUrl`. */
  apiUrl: string;
  teamId: string;
  bot: SlackBot;
  requests: RecordedSlackRequest[];
  violations: SlackViolation[];
  state: SlackState;
  /** Adds a person (`U…`) of the workspace, or of `team` (a guest from another workspace in a shared channel). */
  addUser(id: string, setup?: { name?: string; team?: string }): void;
  /** Adds a user group (`S…`) with these members (user ids); a disabled one lists them only with `include_disabled`. */
  addUserGroup(id: string, members: string[], setup?: { handle?: string; enabled?: boolean }): void;
  /** Adds a channel (`C…`; private ones `G…` or `C…` with `private`), with the bot in it unless `botIsMember` is false. */
  addChannel(id: string, setup?: { name?: string; private?: boolean; members?: string[]; botIsMember?: boolean }): void;
  /** The bot leaves the channel (posting there answers `not_in_channel`). */
  removeBot(channel: string): void;
  /**
   * `user` writes `text` in `channel` (in the thread of `threadTs`, when given): the message is
   * stored, and the Events API envelopes Slack sends for it are returned — `app_mention` (when
   * it mentions the app, `<@bot>`) and `message`.
   */
  say(
    channel: string,
    user: string,
    text: string,
    setup?: { threadTs?: string },
  ): { ts: string; mention: Record<string, unknown> | null; message: Record<string, unknown> };
  /** `user` clicks the button `actionId` on the app's message `ts`: the `block_actions` request Slack sends. */
  click(channel: string, ts: string, actionId: string, user: string): Record<string, unknown>;
  /** `payload` as Slack sends it to a Request URL, signed with `signingSecret`. */
  signed(signingSecret: string, payload: Record<string, unknown>, options?: { timestamp?: number; retry?: number }): SlackRequest;
  /** A thread: its first message and its replies, oldest first. */
  thread(channel: string, threadTs: string): SlackMessageRecord[];
  /** The reactions on a message: emoji name → who reacted. */
  reactions(channel: string, ts: string): Record<string, string[]>;
  /** The next `times` calls of `method` answer HTTP 429 (`ratelimited`) with `Retry-After: retryAfter`. */
  rateLimit(method: string, times?: number, retryAfter?: number): void;
  close(): Promise<void>;
}

const asBoolean = (text: string): boolean | undefined => (text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : undefined);

/** An argument's value typed as the description says, or the problem with it. */
function typed(spec: MethodSpec, name: string, value: unknown, fromText: boolean): { value: unknown } | { problem: string } {
  const argument = spec.arguments.get(name);
  if (!argument) return { problem: `${name} is not an argument of ${spec.name}` };
  const what = `${name} (${argument.type}, per ${argument.from})`;
  switch (argument.type) {
    case 'boolean': {
      const parsed = typeof value === 'boolean' ? value : typeof value === 'string' ? asBoolean(value) : undefined;
      return parsed === undefined ? { problem: `${what} is ${JSON.stringify(value)}` } : { value: parsed };
    }
    case 'integer':
    case 'number': {
      const parsed = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      const ok = Number.isFinite(parsed) && (argument.type === 'number' || Number.isInteger(parsed));
      if (!ok) return { problem: `${what} is ${JSON.stringify(value)}` };
      // A timestamp (`ts`, `oldest`) is a number to Slack's description but keeps its text: 1700000000.000100 is not 1700000000.0001.
      return { value: argument.type === 'number' && typeof value === 'string' ? value : parsed };
    }
    case 'json': {
      if (!fromText) return typeof value === 'object' && value !== null ? { value } : { problem: `${what} is not an object or list` };
      try {
        const parsed: unknown = JSON.parse(String(value));
        return typeof parsed === 'object' && parsed !== null ? { value: parsed } : { problem: `${what} is not JSON of an object or list` };
      } catch {
        return { problem: `${what} is not JSON` };
      }
    }
    default:
      return typeof value === 'string' || (!fromText && typeof value === 'number')
        ? { value: String(value) }
        : { problem: `${what} is ${JSON.stringify(value)}` };
  }
}

/**
 * Starts the stand-in.
 *
 * @example
 * ```ts
 * const slack = await startSlackApi({ tokens: { 'xoxb-test': {} } });
 * slack.addChannel('C0GENERAL01', { name: 'general' });
 * const client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl });
 * await client.chat.postMessage({ channel: 'C0GENERAL01', text: 'hello' });
 * expect(slack.violations).toEqual([]);
 * ```
 */
export async function startSlackApi(options: SlackApiOptions = {}): Promise<SlackApiServer> {
  const teamId = options.teamId ?? 'T0AGENTS01';
  const bot: SlackBot = { userId: 'U0AGENTBOT1', botId: 'B0AGENTBOT1', appId: 'A0AGENTAPP1', ...options.bot };
  const state = createState({ teamId, domain: options.domain ?? 'acme', bot });
  const tokens = options.tokens ? new Map(Object.entries(options.tokens).map(([token, setup]) => [token, new Set(setup.scopes ?? DEFAULT_SCOPES)])) : null;
  const requests: RecordedSlackRequest[] = [];
  const violations: SlackViolation[] = [];
  const limited = new Map<string, { times: number; retryAfter: number }>();

  const send = (res: ServerResponse, status: number, answer: Answer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(answer));
  };

  async function handle(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    const spec = METHODS.get(name);
    const handler = METHOD_HANDLERS[name];
    const raw = await readBody(req);
    if (!spec || !handler) {
      violations.push({
        kind: 'method',
        method: name,
        problems: [spec ? `the stand-in does not answer ${name}` : `${name} is not a method of Slack's description`],
      });
      return send(res, 200, { ok: false, error: 'unknown_method' });
    }
    const problems: string[] = [];
    const given: Array<[string, unknown, boolean]> = [];
    const url = new URL(req.url ?? '/', 'http://stand-in');
    for (const [key, value] of url.searchParams) given.push([key, value, true]);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    let encoding: RecordedSlackRequest['encoding'] = 'query';
    if (raw.length > 0) {
      if (contentType === 'application/x-www-form-urlencoded') {
        encoding = 'form';
        for (const [key, value] of new URLSearchParams(raw)) given.push([key, value, true]);
      } else if (contentType === 'application/json') {
        encoding = 'json';
        try {
          const parsed: unknown = JSON.parse(raw);
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
          for (const [key, value] of Object.entries(parsed)) given.push([key, value, false]);
        } catch {
          violations.push({ kind: 'body', method: name, problems: ['the JSON body is not a JSON object'] });
          return send(res, 200, { ok: false, error: 'invalid_json' });
        }
      } else {
        violations.push({ kind: 'body', method: name, problems: [`a body of ${contentType || 'no content type'}: Slack takes form-encoded or JSON bodies`] });
        return send(res, 200, { ok: false, error: 'invalid_form_data' });
      }
    }
    const args: MethodArguments = {};
    let argumentToken: string | null = null;
    for (const [key, value, fromText] of given) {
      if (key === 'token') {
        argumentToken = String(value);
        continue;
      }
      const result = typed(spec, key, value, fromText);
      if ('problem' in result) problems.push(result.problem);
      else args[key] = result.value;
    }
    for (const argument of spec.arguments.values()) if (argument.required && args[argument.name] === undefined) problems.push(`${argument.name} is required`);
    if (problems.length > 0) violations.push({ kind: 'argument', method: name, problems });

    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
    if (encoding === 'json' && !bearer) violations.push({ kind: 'auth', method: name, problems: ['a JSON body needs the token in an Authorization header'] });
    const token = bearer ?? argumentToken;
    const record = (status: number, answer: Answer) => {
      requests.push({
        method: name,
        encoding,
        args,
        status,
        ok: answer.ok,
        error: typeof answer.error === 'string' ? answer.error : null,
        auth: bearer ? 'bearer' : argumentToken ? 'argument' : null,
      });
    };
    const answerWith = (answer: Answer, status = 200, headers: Record<string, string> = {}) => {
      const answerProblems = checkAnswer(name, answer);
      if (answerProblems.length > 0) violations.push({ kind: 'answer', method: name, problems: answerProblems });
      record(status, answer);
      send(res, status, answer, headers);
    };
    if (!token) return answerWith({ ok: false, error: 'not_authed' });
    const scopes = tokens ? tokens.get(token) : new Set<string>(DEFAULT_SCOPES);
    if (!scopes) return answerWith({ ok: false, error: 'invalid_auth' });
    const limit = limited.get(name);
    if (limit && limit.times > 0) {
      limit.times -= 1;
      return answerWith({ ok: false, error: 'ratelimited' }, 429, { 'retry-after': String(limit.retryAfter) });
    }
    if (problems.length > 0) return answerWith({ ok: false, error: 'invalid_arguments' });
    answerWith(handler({ state, scopes }, args));
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!path.startsWith(API_ROOT) || (req.method !== 'POST' && req.method !== 'GET')) {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    handle(req, res, decodeURIComponent(path.slice(API_ROOT.length))).catch((error: Error) => {
      violations.push({ kind: 'answer', method: path, problems: [`stand-in failed: ${error.stack ?? error.message}`] });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('stand-in failed\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const channelOf = (id: string) => {
    const channel = state.channels.get(id);
    if (!channel) throw new Error(`no channel ${id} in the stand-in`);
    return channel;
  };
  const messageOf = (channel: string, ts: string) => {
    const message = state.message(channel, ts);
    if (!message) throw new Error(`no message ${ts} in ${channel}`);
    return message;
  };

  return {
    url: origin,
    apiUrl: `${origin}${API_ROOT}`,
    teamId,
    bot,
    requests,
    violations,
    state,
    addUser(id, setup = {}) {
      state.users.set(id, { id, name: setup.name ?? id.toLowerCase(), team: setup.team ?? teamId });
    },
    addUserGroup(id, members, setup = {}) {
      state.userGroups.set(id, { id, handle: setup.handle ?? id.toLowerCase(), users: [...members], enabled: setup.enabled ?? true });
    },
    addChannel(id, setup = {}) {
      const members = new Set(setup.members ?? []);
      if (setup.botIsMember !== false) members.add(bot.userId);
      state.channels.set(id, { id, name: setup.name ?? id.toLowerCase(), private: setup.private ?? false, members, messages: [] });
    },
    removeBot(channel) {
      channelOf(channel).members.delete(bot.userId);
    },
    say(channel, user, text, setup = {}) {
      const room = channelOf(channel);
      if (!state.users.has(user)) throw new Error(`no user ${user} in the stand-in: addUser first`);
      const parent = setup.threadTs ? messageOf(channel, setup.threadTs) : null;
      const root = parent ? (parent.thread_ts ?? parent.ts) : undefined;
      const message: SlackMessageRecord = {
        type: 'message',
        ts: state.nextTs(),
        ...(root ? { thread_ts: root } : {}),
        user,
        text,
        team: state.users.get(user)?.team ?? teamId,
        reactions: new Map(),
      };
      if (parent && root) messageOf(channel, root).thread_ts = root;
      room.members.add(user);
      room.messages.push(message);
      const mentions = text.includes(`<@${bot.userId}>`);
      return {
        ts: message.ts,
        mention: mentions ? eventEnvelope(state, messageEvent(state, 'app_mention', channel, message)) : null,
        message: eventEnvelope(state, messageEvent(state, 'message', channel, message)),
      };
    },
    click: (channel, ts, actionId, user) => blockActions(state, channel, messageOf(channel, ts), actionId, user),
    signed: (signingSecret, payload, signOptions) => signedSlackRequest(signingSecret, payload, signOptions),
    thread(channel, threadTs) {
      return channelOf(channel).messages.filter((message) => message.ts === threadTs || message.thread_ts === threadTs);
    },
    reactions(channel, ts) {
      return Object.fromEntries([...messageOf(channel, ts).reactions].map(([name, users]) => [name, [...users]]));
    },
    rateLimit(method, times = 1, retryAfter = 1) {
      limited.set(method, { times, retryAfter });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
