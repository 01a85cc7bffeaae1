/**
 * The server's log lines: JSON when stdout is not a terminal, one human-readable
 * line each with `AGENT_PLATFORM_LOG_FORMAT=pretty`; a delivery and its run's transitions are
 * logged, and no secret, signature or payload reaches the log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, formatLine, logFormatFrom } from './logger.js';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'logs-test-key-0123456789';
const WEBHOOK_SECRET = 'whsec_logs_test_secret_01';
const MARKER = 'PAYLOAD-MARKER-4c1d';

interface Server {
  child: ChildProcess;
  stdout: () => string;
  baseUrl: string;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** The server as a child process, stdout piped (so not a terminal). */
async function startServer(env: Record<string, string>): Promise<Server> {
  const inherited = { ...process.env };
  delete inherited.AGENT_PLATFORM_LOG_FORMAT;
  const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: {
      ...inherited,
      PORT: '0',
      HOST: '127.0.0.1',
      AGENT_PLATFORM_STORAGE: 'memory',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const baseUrl = await waitFor(
    () => /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(out)?.[1],
    () => `server did not start:\n${out}`,
  );
  return { child, stdout: () => out, baseUrl };
}

async function waitFor<T>(probe: () => T | undefined | null | false, failure: () => string, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(failure());
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A webhook, an automation on it, one matching delivery and one forged one. */
async function deliver(server: Server) {
  const call = (route: string, body: unknown) =>
    fetch(server.baseUrl + route, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await call('/api/automation/v1/webhooks', { name: 'hook', source: 'hook', webhook_secret: WEBHOOK_SECRET })).status).toBe(201);
  expect((await call('/api/automation/v1', { name: 'pings', trigger: { type: 'event', source: 'hook', on: 'ping' }, instructions: 'say hi' })).status).toBe(
    201,
  );
  const body = JSON.stringify({ type: 'ping', note: MARKER });
  const signature = createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
  const post = (sig: string) =>
    fetch(`${server.baseUrl}/api/automation/v1/events/acme/hook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': sig },
      body,
    });
  const accepted = (await (await post(signature)).json()) as { delivery_id: string; runs_created: string[] };
  expect((await post('0'.repeat(64))).status).toBe(401);
  return { accepted, signature };
}

describe('reference server logs', () => {
  it('writes JSON lines when stdout is not a terminal: the delivery, the refusal and the run', async () => {
    const server = await startServer({});
    const { accepted, signature } = await deliver(server);
    await waitFor(
      () => server.stdout().includes('"msg":"run completed"'),
      () => `no run line:\n${server.stdout()}`,
    );
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.msg === 'delivery matched')).toMatchObject({
      level: 30,
      kind: 'delivery',
      orgId: 'acme',
      source: 'hook',
      deliveryId: accepted.delivery_id,
      eventKey: 'ping',
      status: 'matched',
      matched: 1,
      runIds: accepted.runs_created,
    });
    expect(lines.find((line) => line.msg === 'delivery refused')).toMatchObject({ level: 40, source: 'hook', httpStatus: 401, reason: 'signature_mismatch' });
    const runLines = lines.filter((line) => line.kind === 'run').map((line) => [line.msg, line.from, line.to]);
    expect(runLines).toEqual([
      ['run started', 'PENDING', 'RUNNING'],
      ['run completed', 'RUNNING', 'COMPLETED'],
    ]);
    for (const secret of [KEY, WEBHOOK_SECRET, signature, MARKER]) expect(server.stdout()).not.toContain(secret);
  }, 60_000);

  it('writes one human-readable line per entry with AGENT_PLATFORM_LOG_FORMAT=pretty', async () => {
    const server = await startServer({ AGENT_PLATFORM_LOG_FORMAT: 'pretty' });
    const { accepted } = await deliver(server);
    await waitFor(
      () => server.stdout().includes('run completed'),
      () => `no run line:\n${server.stdout()}`,
    );
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.trim() !== '');
    for (const line of lines) expect(() => JSON.parse(line)).toThrow();
    const delivery = lines.find((line) => line.includes('delivery matched'));
    expect(delivery).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: delivery matched orgId=acme source=hook /);
    expect(delivery).toContain(`deliveryId=${accepted.delivery_id}`);
    expect(delivery).toContain(`runIds=${accepted.runs_created[0]}`);
    expect(lines.find((line) => line.includes('delivery refused'))).toMatch(
      /WARN: delivery refused orgId=acme source=hook status=refused httpStatus=401 reason=signature_mismatch/,
    );
    expect(lines.find((line) => line.includes('run completed'))).toMatch(
      /INFO: run completed runId=\S+ automationId=\S+ orgId=acme from=RUNNING to=COMPLETED attempt=1/,
    );
    expect(server.stdout()).not.toContain(MARKER);
  }, 60_000);
});

describe('createLogger', () => {
  it('chooses the format from AGENT_PLATFORM_LOG_FORMAT, else from the terminal', () => {
    expect(logFormatFrom(undefined, true)).toEqual({ format: 'pretty', invalid: null });
    expect(logFormatFrom('', false)).toEqual({ format: 'json', invalid: null });
    expect(logFormatFrom(' JSON ', true)).toEqual({ format: 'json', invalid: null });
    expect(logFormatFrom('pretty', false)).toEqual({ format: 'pretty', invalid: null });
    expect(logFormatFrom('yaml', false)).toEqual({ format: 'json', invalid: 'yaml' });
  });

  it('keeps redacting credentials in both formats', async () => {
    for (const format of ['json', 'pretty'] as const) {
      const destination = new PassThrough();
      let text = '';
      destination.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const logger = createLogger('info', { format, destination });
      logger.info({ req: { headers: { authorization: 'Bearer sekrit-0001' } }, webhook: { webhook_secret: 'whsec_sekrit' } }, 'request');
      await new Promise((resolve) => setImmediate(resolve));
      expect(text).toContain('request');
      expect(text).toContain('[redacted]');
      expect(text).not.toContain('sekrit');
    }
  });

  it('formats a pretty line as the message and key=value fields, quoting what is not one word', () => {
    const colors = { gray: (text: string) => text } as never;
    const line = formatLine(
      { level: 30, time: 1, pid: 1, hostname: 'h', kind: 'run', msg: 'run failed', runId: 'run_1', reason: 'exit 2\nstack', runIds: ['a', 'b'], none: [] },
      'msg',
      'INFO',
      { colors },
    );
    expect(line).toBe('run failed runId=run_1 reason="exit 2\\nstack" runIds=a,b none=[]');
  });
});
