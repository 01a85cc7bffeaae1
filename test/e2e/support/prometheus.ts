/**
 * A real Prometheus server (Debian's package; CI installs it with scripts/prometheus-setup.sh)
 * scraping loopback targets every second, on a free loopback port with its data in a temporary
 * directory, and a caller of its HTTP query API.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const PROMETHEUS_BIN = process.env.AGENT_PLATFORM_PROMETHEUS ?? '/usr/bin/prometheus';

/**
 * Whether the Prometheus binary is here. In CI a missing one throws (the test must fail, not
 * skip: `.ci/run` installs it); elsewhere the test is skipped with a note.
 */
export function prometheusAvailable(): boolean {
  if (existsSync(PROMETHEUS_BIN)) return true;
  if (process.env.CI === 'true') throw new Error(`no Prometheus at ${PROMETHEUS_BIN} (run scripts/prometheus-setup.sh)`);
  console.warn(`skipping: no Prometheus at ${PROMETHEUS_BIN} (scripts/prometheus-setup.sh installs it)`);
  return false;
}

/** One series of an instant query's answer. */
export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RunningPrometheus {
  url: string;
  /** The config file's text, as written. */
  config: string;
  /** An instant query (`/api/v1/query`). */
  query(expression: string): Promise<Sample[]>;
  /** The scrape targets' health (`/api/v1/targets`), for failure messages. */
  targets(): Promise<{ scrapeUrl: string; health: string; lastError: string }[]>;
  output: string[];
  stop(): Promise<void>;
}

/** A port free now on loopback (the OS's pick, released for Prometheus to take). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A scrape config for `targets` (`host:port`), `/metrics` every second. */
export function scrapeConfig(targets: string[]): string {
  return [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: agent-platform',
    '    metrics_path: /metrics',
    '    static_configs:',
    `      - targets: [${targets.map((target) => `'${target}'`).join(', ')}]`,
    '',
  ].join('\n');
}

export async function startPrometheus(targets: string[]): Promise<RunningPrometheus> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-platform-prometheus-'));
  const config = scrapeConfig(targets);
  writeFileSync(path.join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}:\n${output.join('')}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not get ready:\n${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const api = async (route: string) => {
    const response = await fetch(`${url}${route}`);
    const body = (await response.json()) as { status: string; data: any; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${route}: ${body.error ?? response.status}`);
    return body.data;
  };
  return {
    url,
    config,
    output,
    stop,
    query: async (expression) => (await api(`/api/v1/query?query=${encodeURIComponent(expression)}`)).result as Sample[],
    targets: async () => (await api('/api/v1/targets')).activeTargets,
  };
}
