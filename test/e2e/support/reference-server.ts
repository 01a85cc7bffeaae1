/**
 * Runs a reference server as a user would: a child process configured by environment, on a free
 * loopback port. Its output is kept for checks (no secret in the logs, say).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface RunningServer {
  child: ChildProcess;
  output: string[];
  baseUrl: string;
}

/**
 * Storage is in memory unless `env` chooses (`DATABASE_URL`, `AGENT_PLATFORM_STORAGE`), so tests
 * never write into the repository's default data directory.
 */
export async function startServer(dir: string, env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/main.ts'], {
    cwd: path.join(root, dir),
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...storageDefault(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const baseUrl = await new Promise<string>((resolve, reject) => {
    // A hang, not a speed check: a PGlite server's first start (initdb in WASM, every migration)
    // took over 30 s on a 2-core machine running the rest of the suite beside it.
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output.join('')}`)), 90_000);
    let started = false;
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      // Looked for until found only: the server logs every request, and joining the whole output
      // again for each later chunk made a long, busy run's test process quadratic in its log.
      if (started) return;
      const listening = /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(output.join(''));
      if (listening?.[1]) {
        started = true;
        clearTimeout(timer);
        resolve(listening[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output.join('')}`)));
  });
  // `onData` stays attached and keeps collecting the output after startup.
  return { child, output, baseUrl };
}

/** SIGTERM, then the exit code. */
export const stopServer = (running: RunningServer) =>
  new Promise<number | null>((resolve) => {
    if (running.child.exitCode !== null) return resolve(running.child.exitCode);
    running.child.once('exit', (code) => resolve(code));
    running.child.kill('SIGTERM');
  });

/** A worker-only process (`src/worker.ts`); resolves once it says it is ready. */
export async function startWorker(dir: string, env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/worker.ts'], {
    cwd: path.join(root, dir),
    env: { ...process.env, ...storageDefault(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output.join('')}`)), 30_000);
    let ready = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      // Until found only (see startServer).
      if (ready) return;
      if (/worker ready/.test(output.join(''))) {
        ready = true;
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output.join('')}`)));
  });
  return { child, output, baseUrl: '' };
}

function storageDefault(env: Record<string, string>): Record<string, string> {
  return env.DATABASE_URL || env.AGENT_PLATFORM_STORAGE ? {} : { AGENT_PLATFORM_STORAGE: 'memory' };
}
