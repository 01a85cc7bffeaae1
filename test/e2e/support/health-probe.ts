/**
 * A liveness probe loop, as an orchestrator would run one, but tighter: one request at a time to
 * a health URL, a few milliseconds apart, timing each answer, until stopped. For checking that a
 * server stays responsive while something heavy goes on (hostile agents, floods). When the
 * server runs in this process, the report also says what held the event loop: its longest delay
 * and the longest garbage-collection pause meanwhile.
 * @module
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export interface ProbeReport {
  /** Requests answered 200. */
  answered: number;
  /** Requests that failed or were not answered 200. */
  failed: number;
  /** The slowest answer, in milliseconds. */
  maxMs: number;
  /** The 99th percentile answer time, in milliseconds. */
  p99Ms: number;
  /** The three slowest answers: when they were asked (ms after the start) and how long they took. */
  slowest: { atMs: number; ms: number }[];
  /** This process's longest event-loop delay meanwhile, in milliseconds. */
  loopDelayMaxMs: number;
  /** This process's longest garbage-collection pause meanwhile, in milliseconds. */
  gcMaxMs: number;
}

export interface HealthProbe {
  /** Stops after the request in flight; what was seen. */
  stop(): Promise<ProbeReport>;
}

export function probeHealth(url: string, options: { pauseMs?: number; timeoutMs?: number } = {}): HealthProbe {
  const pauseMs = options.pauseMs ?? 10;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const times: number[] = [];
  const asked: number[] = [];
  const start = performance.now();
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  let gcMax = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMax = Math.max(gcMax, entry.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  let failed = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const began = performance.now();
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
        await response.arrayBuffer();
        if (response.status !== 200) failed++;
      } catch {
        failed++;
      }
      times.push(performance.now() - began);
      asked.push(began - start);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      loopDelay.disable();
      gc.disconnect();
      const sorted = [...times].sort((a, b) => a - b);
      return {
        answered: times.length - failed,
        failed,
        maxMs: Math.round(sorted.at(-1) ?? 0),
        p99Ms: Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0),
        slowest: times
          .map((ms, index) => ({ atMs: Math.round(asked[index] ?? 0), ms: Math.round(ms) }))
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 3),
        loopDelayMaxMs: Math.round(loopDelay.max / 1e6),
        gcMaxMs: Math.round(gcMax),
      };
    },
  };
}
