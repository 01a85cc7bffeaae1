/**
 * Starting and stopping the reference server as a user does: `pnpm start` in a terminal, then
 * Ctrl-C. A terminal's Ctrl-C signals the whole process group (pnpm and the server), and pnpm
 * passes the signal on as well: the server must take the copies as one interrupt, stop and exit
 * 0, so pnpm has no failure to report. (The start scripts `exec` node: a shell left between pnpm
 * and node dies of the Ctrl-C itself, and pnpm reports that as a failure whatever node does.) A start that cannot go on says why in one line,
 * without a stack, and exits 1.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../examples/server/src/config.js';
import { DATA_FILES, resolveSecretKey } from '../../examples/server/src/storage.js';
import { recordingLogger } from '../../examples/server/test-support/recording-logger.js';
import { root } from './support/reference-server.js';

const parent = mkdtempSync(path.join(tmpdir(), 'agent-platform-lifecycle-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

interface Started {
  pid: number;
  output: () => string;
  exit: Promise<number | null>;
  exited: () => boolean;
}

/** Runs `command` in a process group of its own, as a terminal runs a foreground job. */
function run(command: string, args: string[], env: Record<string, string>, cwd = root): Started {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let exited = false;
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      exited = true;
      resolve(signal ? 128 : code);
    }),
  );
  return { pid: child.pid!, output: () => output, exit, exited: () => exited };
}

async function ready(started: Started): Promise<void> {
  const deadline = Date.now() + 50_000;
  while (!/reference server ready/.test(started.output())) {
    if (started.exited() || Date.now() > deadline) throw new Error(`not ready:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `[command, leading args]` running pnpm itself, as a terminal does: the pnpm running the tests
 * if any, else the pinned one, found through npx (npx, run in between, would die of the Ctrl-C
 * itself, as npm does).
 */
async function pnpm(): Promise<[string, string[]]> {
  const execPath = process.env.npm_execpath;
  if (execPath && path.basename(execPath).startsWith('pnpm')) return /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath]] : [execPath, []];
  const found = await promisify(execFile)('npx', ['-y', '-p', 'pnpm@10.34.8', '-c', 'command -v pnpm']);
  return [process.execPath, [realpathSync(found.stdout.trim())]];
}

describe('stopping the reference server', () => {
  it('exits 0 on a Ctrl-C that reaches it several times (the node process `pnpm start` runs)', async () => {
    const server = run(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'examples/server/src/main.ts'], {});
    await ready(server);
    process.kill(-server.pid, 'SIGINT'); // the terminal: every process of the group
    process.kill(server.pid, 'SIGINT'); // pnpm passing it on
    process.kill(server.pid, 'SIGTERM'); // pnpm, given a second SIGINT of its own
    expect(await server.exit).toBe(0);
    expect(server.output()).toMatch(/"msg":"stopped"/);
  }, 60_000);

  it('with PORT=0, listens on a free port and names that port in its public URL (webhook URLs, run links)', async () => {
    const server = run(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'examples/server/src/main.ts'], {});
    await ready(server);
    const port = /listening at http:\/\/127\.0\.0\.1:(\d+)/i.exec(server.output())?.[1];
    expect(Number(port)).toBeGreaterThan(0);
    expect(server.output()).toContain(`the console is at http://localhost:${port}/console`);
    process.kill(server.pid, 'SIGTERM');
    expect(await server.exit).toBe(0);
  }, 60_000);

  it('exits 0 through `pnpm start`, which then reports no failure', async () => {
    const [command, args] = await pnpm();
    const server = run(command, [...args, 'start'], {});
    await ready(server);
    process.kill(-server.pid, 'SIGINT');
    expect(await server.exit).toBe(0);
    expect(server.output()).not.toMatch(/ELIFECYCLE|ERR_PNPM/);
  }, 60_000);
});

describe('a start that cannot go on', () => {
  const server = (env: Record<string, string>) =>
    run(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/main.ts'], env, path.join(root, 'examples/server'));

  it('prints a configuration error in one line, without a stack, and exits 1', async () => {
    const started = server({ PORT: 'not-a-port' });
    expect(await started.exit).toBe(1);
    const lines = started.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 60, msg: 'failed to start: PORT must be an integer from 0 to 65535, got "not-a-port"' });
  }, 30_000);

  it('says that AGENT_PLATFORM_SECRET_KEY does not open a data directory made with another key, and exits 1', async () => {
    const dataDir = path.join(parent, 'made-with-another-key');
    const made = (key: string) => loadConfig({ AGENT_PLATFORM_DATA_DIR: dataDir, AGENT_PLATFORM_SECRET_KEY: key });
    resolveSecretKey(made(Buffer.alloc(32, 1).toString('base64')), recordingLogger().logger);
    rmSync(path.join(dataDir, DATA_FILES.lock)); // this process's claim on the directory
    const other = Buffer.alloc(32, 2).toString('base64');
    const started = server({ AGENT_PLATFORM_STORAGE: '', AGENT_PLATFORM_DATA_DIR: dataDir, AGENT_PLATFORM_SECRET_KEY: other });
    expect(await started.exit).toBe(1);
    const output = started.output();
    expect(output).toContain(`failed to start: AGENT_PLATFORM_SECRET_KEY does not open the secrets stored in ${dataDir}: they were sealed with another key`);
    expect(output).not.toMatch(/\n\s+at /);
    expect(output).not.toContain(other);
  }, 30_000);
});
