/**
 * A child process run to its end without blocking: the build tests' builds and type-checks take
 * a minute or more, and a `spawnSync` that long blocks the test worker, whose reports to vitest
 * then time out ("Timeout calling onTaskUpdate"), failing the run though every test passed.
 */
import { spawn, type SpawnOptions } from 'node:child_process';

export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

export function runProcess(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => resolve({ status: null, stdout, stderr, error }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
