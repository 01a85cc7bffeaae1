/**
 * One agent run through the reference server, for the telemetry tests: the server as a process
 * (memory storage), an owner whose `llm_model` points at the scripted fake model, a webhook and
 * an automation on it; a signed event (optionally with a `traceparent`) fires the automation and
 * the built-in agent runs one tool call, then answers. The secrets and payload values are
 * distinctive, so a test can look for them where they must not be.
 * @module
 */
import { createHmac } from 'node:crypto';
import { startFakeLlmServer, type FakeLlmServer, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { apiClient, type ApiCall } from './http-api.js';
import { startServer, stopServer, type RunningServer } from './reference-server.js';

export const SCENARIO = {
  apiKey: 'e2e-telemetry-api-key-5a1c9e7f3b',
  llmKey: 'sk-e2e-telemetry-llm-key-8d2f6a4c',
  secretKey: Buffer.alloc(32, 23).toString('base64'),
  model: 'openai/gpt-4o',
  source: 'deploys',
  event: 'deploy.finished',
  /** Values of the event's payload: none may reach a metric label or a span attribute. */
  payload: { repository: 'wombat-payload-repo-41597', commit_message: 'quokka payload message 80231' },
  /** What the fake model reports per call. */
  usage: { input: 1200, output: 80 },
} as const;

export interface AgentScenario {
  server: RunningServer;
  llm: FakeLlmServer;
  api: ApiCall;
  /** The webhook's signing secret (returned once, at registration). */
  webhookSecret: string;
  automationId: string;
  /** Sends the scenario's signed event; `headers` are added (a `traceparent`, say). Resolves to the answer's JSON. */
  sendEvent(headers?: Record<string, string>): Promise<{ matched: number; runs_created?: string[] }>;
  /** The automation's newest run once it is final. */
  finishedRun(): Promise<{ id: string; status: string; [key: string]: unknown }>;
  /** Stops the server (SIGTERM; resolves to its exit code) and the fake model. */
  stop(): Promise<number | null>;
}

/** The fake model's script: a terminal command first, then a plain answer (which ends the run). */
function respond(request: RecordedLlmRequest) {
  const step = (request.body.messages as { role: string }[]).filter((message) => message.role === 'assistant').length;
  if (step === 0) return { toolCalls: [{ name: 'terminal', arguments: { command: 'echo checked' } }], usage: SCENARIO.usage };
  return { text: 'The deploy looks fine.', usage: SCENARIO.usage };
}

export async function startAgentScenario(env: Record<string, string> = {}): Promise<AgentScenario> {
  const llm = await startFakeLlmServer({ apiKey: SCENARIO.llmKey, respond });
  let server: RunningServer;
  try {
    server = await startServer('examples/server', {
      AGENT_PLATFORM_API_KEYS: `alice@acme:${SCENARIO.apiKey}`,
      AGENT_PLATFORM_SECRET_KEY: SCENARIO.secretKey,
      AGENT_PLATFORM_LOG_FORMAT: 'json',
      ...env,
    });
  } catch (error) {
    await llm.close();
    throw error;
  }
  const api = apiClient(server.baseUrl, SCENARIO.apiKey);
  const settings = await api('POST', '/api/settings', { llm_model: SCENARIO.model, llm_api_key: SCENARIO.llmKey, llm_base_url: `${llm.url}/v1` });
  if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${JSON.stringify(settings.json)}`);
  const webhook = await api('POST', '/api/automation/v1/webhooks', { name: 'Deploys', source: SCENARIO.source });
  const automation = await api('POST', '/api/automation/v1', {
    name: 'check deploys',
    trigger: { type: 'event', source: SCENARIO.source, on: SCENARIO.event },
    instructions: 'Check the deploy that just finished.',
  });
  if (automation.status !== 201) throw new Error(`automation: ${automation.status} ${JSON.stringify(automation.json)}`);
  const webhookSecret: string = webhook.json.webhook_secret;
  const automationId: string = automation.json.id;

  return {
    server,
    llm,
    api,
    webhookSecret,
    automationId,
    async sendEvent(headers = {}) {
      const body = JSON.stringify({ type: SCENARIO.event, ...SCENARIO.payload });
      const signature = `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`;
      const response = await fetch(`${server.baseUrl}/api/automation/v1/events/acme/${SCENARIO.source}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-signature-256': signature, ...headers },
      });
      if (response.status !== 200) throw new Error(`event: ${response.status} ${await response.text()}`);
      return (await response.json()) as { matched: number; runs_created?: string[] };
    },
    async finishedRun() {
      let run: { id: string; status: string } | undefined;
      for (let i = 0; i < 600; i++) {
        run = (await api('GET', `/api/automation/v1/${automationId}/runs`)).json.runs[0];
        if (run && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) return run;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the run did not finish: ${JSON.stringify(run)}\n${server.output.join('').slice(-4000)}`);
    },
    async stop() {
      const code = await stopServer(server);
      await llm.close();
      return code;
    },
  };
}
