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

export async function startServer(dir: string, env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/main.ts'], {
    cwd: path.join(root, dir),
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output.join('')}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const listening = /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(output.join(''));
      if (listening?.[1]) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output.join('')}`)));
  });
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { child, output, baseUrl };
}

/** SIGTERM, then the exit code. */
export const stopServer = (running: RunningServer) =>
  new Promise<number | null>((resolve) => {
    if (running.child.exitCode !== null) return resolve(running.child.exitCode);
    running.child.once('exit', (code) => resolve(code));
    running.child.kill('SIGTERM');
  });
