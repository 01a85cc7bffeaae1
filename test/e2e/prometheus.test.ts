/**
 * The reference server's metrics as an operator sees them: a real Prometheus (Debian's package)
 * scrapes the server's `/metrics` every second while a signed event fires an automation and the
 * built-in agent runs against the scripted model; Prometheus' query API then shows the delivery,
 * the run and the model's tokens. No label anywhere carries a payload value or a secret.
 *
 * CI (`.ci/run` installs Prometheus with scripts/prometheus-setup.sh) must run this, not skip it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO, startAgentScenario, type AgentScenario } from './support/agent-scenario.js';
import { startWorker, stopServer } from './support/reference-server.js';
import { prometheusAvailable, startPrometheus, type RunningPrometheus, type Sample } from './support/prometheus.js';

/** Asks Prometheus until `expression` has a series whose value passes `accept`, or fails saying what it had. */
async function eventually(prometheus: RunningPrometheus, expression: string, accept: (value: number) => boolean): Promise<Sample[]> {
  let samples: Sample[] = [];
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    samples = await prometheus.query(expression);
    if (samples.some((sample) => accept(Number(sample.value[1])))) return samples;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const targets = await prometheus.targets().catch(() => []);
  throw new Error(`Prometheus has no passing series for ${expression}: ${JSON.stringify(samples)}\ntargets: ${JSON.stringify(targets)}`);
}

if (!prometheusAvailable()) describe('metrics scraped by Prometheus', () => it.skip('no Prometheus here (scripts/prometheus-setup.sh installs it)', () => {}));
else
  describe('metrics scraped by Prometheus', () => {
    let scenario: AgentScenario;
    let prometheus: RunningPrometheus;

    beforeAll(async () => {
      scenario = await startAgentScenario();
      prometheus = await startPrometheus([new URL(scenario.server.baseUrl).host]);
    }, 60_000);

    afterAll(async () => {
      await prometheus?.stop();
      if (scenario) expect(await scenario.stop()).toBe(0);
    }, 60_000);

    it('serves /metrics in Prometheus’ text format, without credentials', async () => {
      const response = await fetch(`${scenario.server.baseUrl}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(await response.text()).toMatch(/^target_info\{.*service_name="agent-platform".*\} 1$/m);
    });

    it('shows the delivery, the finished run and the model’s tokens in Prometheus', async () => {
      expect((await scenario.sendEvent()).matched).toBe(1);
      expect((await scenario.finishedRun()).status).toBe('COMPLETED');

      const matched = await eventually(prometheus, 'agent_platform_deliveries_total{outcome="matched"}', (value) => value >= 1);
      expect(matched[0]!.metric).toMatchObject({ job: 'agent-platform', source: SCENARIO.source, outcome: 'matched' });
      await eventually(prometheus, 'agent_platform_runs_finished_total{status="COMPLETED"}', (value) => value >= 1);
      await eventually(prometheus, 'agent_platform_run_duration_count{status="COMPLETED"}', (value) => value >= 1);
      await eventually(prometheus, 'agent_platform_ingest_duration_count', (value) => value >= 1);

      // Two model calls of 1,200 input and 80 output tokens each.
      const calls = 2;
      const tokens = await eventually(prometheus, 'agent_platform_model_tokens_total', () => true);
      const byType = Object.fromEntries(tokens.map((sample) => [sample.metric.type, Number(sample.value[1])]));
      expect(byType).toMatchObject({ input: calls * SCENARIO.usage.input, output: calls * SCENARIO.usage.output });
      expect(tokens.every((sample) => sample.metric.model === SCENARIO.model)).toBe(true);
      await eventually(prometheus, 'agent_platform_model_cost_total', (value) => value > 0);
      const usage = await eventually(prometheus, 'gen_ai_client_token_usage_sum', () => true);
      expect(usage.map((sample) => sample.metric.gen_ai_token_type).sort()).toEqual(['input', 'output']);
      await eventually(prometheus, 'gen_ai_client_operation_duration_count', (value) => value >= calls);
    });

    it('carries no payload value and no secret in any label', async () => {
      const text = await (await fetch(`${scenario.server.baseUrl}/metrics`)).text();
      expect(text).toContain('agent_platform_deliveries_total');
      const labelValues = [...text.matchAll(/[a-zA-Z_][a-zA-Z0-9_]*="((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);
      expect(labelValues.length).toBeGreaterThan(0);
      for (const forbidden of [...Object.values(SCENARIO.payload), scenario.webhookSecret, SCENARIO.apiKey, SCENARIO.llmKey, SCENARIO.secretKey]) {
        expect(labelValues.filter((value) => value.includes(forbidden))).toEqual([]);
        expect(text).not.toContain(forbidden);
      }
    });
  });

describe('a worker’s metrics', () => {
  it('are served on AGENT_PLATFORM_METRICS_PORT alone (a worker has no API port)', async () => {
    const worker = await startWorker('examples/server', { AGENT_PLATFORM_METRICS_PORT: '0', HOST: '127.0.0.1', AGENT_PLATFORM_LOG_FORMAT: 'json' });
    try {
      const url = /"metricsUrl":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(worker.output.join(''))?.[1];
      expect(url, worker.output.join('')).toBeDefined();
      const response = await fetch(url!);
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/^agent_platform_queue_depth\{.*\} 0$/m);
    } finally {
      expect(await stopServer(worker)).toBe(0);
    }
  });
});
