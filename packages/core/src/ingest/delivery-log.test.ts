import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  generateSecretKey,
  signatureHeaders,
  signGithub,
  type AgentPlatform,
  type Logger,
  type LogLevel,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';

const alice = { userId: 'alice', orgId: 'acme' };
const SECRET = 'hook-secret-0123456789';
const GITHUB_SECRET = 'github-secret-0123456789';
/** Written into every payload: no log line may carry it. */
const MARKER = 'PAYLOAD-MARKER-7f3a';

interface Line {
  level: LogLevel;
  obj: Record<string, unknown>;
  msg: string | undefined;
}

/** Keeps every line; writes only at `threshold` and above, as pino would. */
function recordingLogger(threshold: LogLevel = 'debug') {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  const lines: Line[] = [];
  const at = (level: LogLevel) => (obj: object, msg?: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    isLevelEnabled: (level) => order.indexOf(level) >= order.indexOf(threshold),
  };
  return { logger, lines };
}

let platform: AgentPlatform | null = null;
afterEach(async () => {
  await platform?.stop();
  platform = null;
});

async function setup(logger: Logger, options: { maxBodyBytes?: number } = {}) {
  platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    logger,
    github: { webhookSecrets: [GITHUB_SECRET] },
    events: options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {},
  });
  await platform.webhooks.register(alice, { name: 'hook', source: 'hook', webhook_secret: SECRET });
  await platform.githubLinks.link({ orgId: 'acme', account: 'codertocat' });
  return platform;
}

const signed = (payload: unknown, extra: Record<string, string> = {}) => {
  const body = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  return { body, headers: { ...signatureHeaders({ scheme: 'hmac-sha256', secret: SECRET, body, now: new Date() }), ...extra } };
};

/** The one line a request logged; also checks it holds no secret, signature or payload text. */
function onlyLine(lines: Line[], ...forbidden: string[]): Line {
  expect(lines).toHaveLength(1);
  const text = JSON.stringify(lines[0]);
  for (const word of [MARKER, SECRET, GITHUB_SECRET, ...forbidden]) expect(text).not.toContain(word);
  const line = lines[0] as Line;
  lines.length = 0;
  return line;
}

describe('delivery log lines', () => {
  it('logs each accepted delivery once at info: matched, unmatched, ignored, duplicate, replayed', async () => {
    const { logger, lines } = recordingLogger();
    const p = await setup(logger);
    const automation = await p.automations.create(alice, { name: 'pings', trigger: { type: 'event', source: 'hook', on: 'ping' }, instructions: 'go' });

    const first = signed({ type: 'ping', note: MARKER }, { 'webhook-id': 'evt-1' });
    const matched = await p.events.ingest('acme', 'hook', first);
    expect(onlyLine(lines, first.headers['x-signature-256'] as string)).toEqual({
      level: 'info',
      msg: 'delivery matched',
      obj: {
        kind: 'delivery',
        orgId: 'acme',
        source: 'hook',
        deliveryId: matched.delivery_id,
        providerDeliveryId: 'evt-1',
        eventKey: 'ping',
        status: 'matched',
        matched: 1,
        runIds: matched.runs_created,
      },
    });
    expect(matched.runs_created).toHaveLength(1);

    await p.events.ingest('acme', 'hook', signed({ type: 'pong', note: MARKER }));
    expect(onlyLine(lines)).toMatchObject({ level: 'info', msg: 'delivery unmatched', obj: { status: 'unmatched', eventKey: 'pong', matched: 0, runIds: [] } });

    await p.events.ingest('acme', 'hook', signed({ kind: MARKER }));
    expect(onlyLine(lines)).toMatchObject({
      level: 'info',
      msg: 'delivery ignored',
      obj: { status: 'ignored', eventKey: null, matched: 0, detail: 'event_key_expr "type" gave null, not an event name' },
    });

    await p.events.ingest('acme', 'hook', first);
    expect(onlyLine(lines)).toMatchObject({
      level: 'info',
      msg: 'delivery duplicate',
      obj: { status: 'duplicate', providerDeliveryId: 'evt-1', matched: 0, runIds: [], duplicateOf: matched.delivery_id },
    });

    const replayed = await p.deliveries.replay(alice, matched.delivery_id as string);
    expect(onlyLine(lines)).toMatchObject({
      msg: 'delivery matched',
      obj: { status: 'matched', replayOf: matched.delivery_id, runIds: replayed.runs_created },
    });
    expect(automation.id).toEqual(expect.any(String));
  });

  it('logs each refusal once at warn with its reason and status, never the signature or the body', async () => {
    const { logger, lines } = recordingLogger();
    const p = await setup(logger, { maxBodyBytes: 300 });
    const refused = async (orgId: string, source: string, request: { body: Buffer; headers: Record<string, string> }) => {
      await expect(p.events.ingest(orgId, source, request)).rejects.toThrow();
      return onlyLine(lines, ...Object.values(request.headers).filter((value) => value.length > 20));
    };

    expect(await refused('acme', 'nope', signed({ type: MARKER }))).toEqual({
      level: 'warn',
      msg: 'delivery refused',
      obj: {
        kind: 'delivery',
        orgId: 'acme',
        source: 'nope',
        status: 'refused',
        httpStatus: 404,
        reason: 'unknown_source',
        detail: 'Unknown or disabled webhook source',
      },
    });
    expect((await refused('acme', 'hook', { body: Buffer.from(JSON.stringify({ type: MARKER })), headers: {} })).obj).toEqual({
      kind: 'delivery',
      orgId: 'acme',
      source: 'hook',
      status: 'refused',
      httpStatus: 401,
      reason: 'missing_signature',
      detail: 'Missing X-Signature-256 header',
    });
    const forged = { body: Buffer.from(JSON.stringify({ type: MARKER })), headers: { 'x-signature-256': 'ab'.repeat(32) } };
    expect((await refused('acme', 'hook', forged)).obj).toMatchObject({
      httpStatus: 401,
      reason: 'signature_mismatch',
      detail: 'X-Signature-256 does not match the request body',
    });
    expect((await refused('acme', 'hook', { ...forged, headers: { 'x-signature-256': 'not-hex' } })).obj).toMatchObject({
      httpStatus: 401,
      reason: 'malformed_signature',
    });
    expect((await refused('acme', 'hook', signed({ type: 'ping', pad: `${MARKER}${'x'.repeat(400)}` }))).obj).toMatchObject({
      httpStatus: 413,
      reason: 'payload_too_large',
      detail: 'Request body is larger than the limit of 300 bytes',
    });
    // A JSON parser's message quotes the body: the line keeps the reason only.
    expect((await refused('acme', 'hook', signed(`{"type": "${MARKER}`))).obj).toEqual({
      kind: 'delivery',
      orgId: 'acme',
      source: 'hook',
      status: 'refused',
      httpStatus: 400,
      reason: 'malformed_json',
    });
    const invalidUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
    expect(
      (
        await refused('acme', 'hook', {
          body: invalidUtf8,
          headers: signatureHeaders({ scheme: 'hmac-sha256', secret: SECRET, body: invalidUtf8, now: new Date() }),
        })
      ).obj,
    ).toMatchObject({
      httpStatus: 400,
      reason: 'invalid_utf8',
    });
    expect((await refused('acme', 'hook', signed('['.repeat(129) + ']'.repeat(129)))).obj).toMatchObject({
      httpStatus: 400,
      reason: 'json_too_deep',
      detail: 'Request body JSON is nested deeper than 128 levels',
    });
  });

  it('logs GitHub deliveries: one line per org reached, the unrouted and the refused', async () => {
    const { logger, lines } = recordingLogger();
    const p = await setup(logger);
    const github = (payload: unknown, extra: Record<string, string> = {}) => {
      const body = Buffer.from(JSON.stringify(payload));
      return { body, headers: { 'x-github-event': 'issues', 'x-github-delivery': 'gh-1', 'x-hub-signature-256': signGithub(GITHUB_SECRET, body), ...extra } };
    };
    const linked = github({ action: 'opened', issue: { title: MARKER }, repository: { owner: { login: 'Codertocat' } } });
    const result = await p.events.ingestGithub(linked);
    expect(onlyLine(lines, linked.headers['x-hub-signature-256'])).toMatchObject({
      level: 'info',
      msg: 'delivery unmatched',
      obj: { orgId: 'acme', source: 'github', deliveryId: result.delivery_id, providerDeliveryId: 'gh-1', eventKey: 'issues.opened', status: 'unmatched' },
    });

    await p.events.ingestGithub(
      github({ action: 'closed', issue: { title: MARKER }, repository: { owner: { login: 'someone-else' } } }, { 'x-github-delivery': 'gh-2' }),
    );
    expect(onlyLine(lines)).toMatchObject({
      level: 'info',
      obj: { orgId: null, source: 'github', providerDeliveryId: 'gh-2', eventKey: 'issues.closed', status: 'unrouted', matched: 0 },
    });

    const forged = { ...linked, headers: { ...linked.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } };
    await expect(p.events.ingestGithub(forged)).rejects.toThrow();
    expect(onlyLine(lines)).toMatchObject({ level: 'warn', obj: { orgId: null, source: 'github', httpStatus: 401, reason: 'signature_mismatch' } });

    await expect(p.events.ingestGithub(github({ action: 'opened' }, { 'x-github-event': '' }))).rejects.toThrow();
    expect(onlyLine(lines)).toMatchObject({ level: 'warn', obj: { httpStatus: 400, reason: 'bad_github_event', detail: 'X-GitHub-Event header is required' } });
  });

  it('builds no line when the level is off', async () => {
    const { logger, lines } = recordingLogger('error');
    const p = await setup(logger);
    await p.events.ingest('acme', 'hook', signed({ type: 'ping' }));
    await expect(p.events.ingest('acme', 'nope', signed({ type: 'ping' }))).rejects.toThrow();
    expect(lines).toEqual([]);
  });
});
