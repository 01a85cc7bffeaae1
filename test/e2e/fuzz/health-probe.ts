/**
 * Probes `GET /health` every 200 ms on its own connections while the fuzzer runs, and keeps
 * every probe slower than the limit (or failed), so a request that blocks the server's event
 * loop is caught even though it is answered in the end.
 * @module
 */
import { sendRaw } from './raw-http.js';

export interface SlowProbe {
  startedAt: number;
  endedAt: number;
  ms: number;
  outcome: string;
  /** Set once a fuzzed request running at the same time has taken the blame. */
  attributed: boolean;
}

export class HealthProbe {
  readonly slow: SlowProbe[] = [];
  probes = 0;
  maxMs = 0;
  private running = false;
  private current: Promise<void> | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly limitMs = 1000,
    private readonly intervalMs = 200,
  ) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        this.current = this.probe();
        await this.current;
        this.current = null;
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Waits for a probe under way (at most `capMs`): its outcome then counts for the request just answered. */
  async settle(capMs = 6000): Promise<void> {
    if (this.current) await Promise.race([this.current, new Promise((resolve) => setTimeout(resolve, capMs))]);
  }

  /** Slow probes that overlapped [from, to] and were not blamed on a request yet; marks them. */
  take(from: number, to: number): SlowProbe[] {
    const found = this.slow.filter((probe) => !probe.attributed && probe.startedAt <= to && probe.endedAt >= from);
    for (const probe of found) probe.attributed = true;
    return found;
  }

  /** One probe now, with the same limit; for checks after the fuzzing. */
  async once(timeoutMs = 5000): Promise<{ ok: boolean; ms: number; outcome: string }> {
    const bytes = Buffer.from(`GET /health HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nConnection: close\r\n\r\n`, 'latin1');
    const result = await sendRaw({ host: this.host, port: this.port, bytes, timeoutMs });
    const outcome = result.kind === 'response' ? `HTTP ${result.status}` : result.kind;
    return { ok: result.kind === 'response' && result.status === 200 && result.ms <= this.limitMs, ms: result.ms, outcome };
  }

  private async probe(): Promise<void> {
    const startedAt = performance.now();
    const { ok, ms, outcome } = await this.once();
    this.probes++;
    this.maxMs = Math.max(this.maxMs, ms);
    if (!ok) this.slow.push({ startedAt, endedAt: performance.now(), ms, outcome, attributed: false });
  }
}
