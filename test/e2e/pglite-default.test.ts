/**
 * The reference server on its embedded default, PGlite in a data directory: everything it was
 * told survives a restart — settings (secrets still readable with the generated key kept beside
 * the data), webhooks, automations and their runs.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, stopServer } from './support/reference-server.js';

const KEY = 'e2e-pglite-key-0123456789abcdef';
const parent = mkdtempSync(path.join(tmpdir(), 'agent-platform-data-'));
// Not there yet, as on a fresh checkout: the server creates it.
const dataDir = path.join(parent, 'data');

afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('the reference server on embedded PGlite (the default)', () => {
  it('keeps everything across a restart', { timeout: 120_000 }, async () => {
    // The stored llm_model is only there to be kept across the restart: runs use the demo agent.
    const env = {
      AGENT_PLATFORM_STORAGE: '',
      AGENT_PLATFORM_DATA_DIR: dataDir,
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_BUILTIN_AGENT: 'off',
    };
    const call = (baseUrl: string) => async (method: string, route: string, body?: unknown) => {
      const response = await fetch(baseUrl + route, {
        method,
        headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json().catch(() => undefined)) as any };
    };

    const first = await startServer('examples/server', env);
    expect(first.output.join('')).toMatch(/embedded PGlite/);
    let api = call(first.baseUrl);
    expect((await api('POST', '/api/settings', { llm_model: 'demo/model', llm_api_key: 'sk-kept-across-restarts' })).status).toBe(200);
    expect((await api('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci' })).status).toBe(201);
    const automation = (await api('POST', '/api/automation/v1', { name: 'kept', trigger: { type: 'event', source: 'ci', on: 'build' }, instructions: 'go' }))
      .json;
    const run = (await api('POST', `/api/automation/v1/${automation.id}/dispatch`, {})).json;
    let status = 'PENDING';
    for (let i = 0; i < 200 && status !== 'COMPLETED'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await api('GET', `/api/automation/v1/${automation.id}/runs`)).json.runs[0].status;
    }
    expect(status).toBe('COMPLETED');
    expect(await stopServer(first)).toBe(0);
    expect(statSync(path.join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);

    const second = await startServer('examples/server', env);
    api = call(second.baseUrl);
    const settings = await api('GET', '/api/settings');
    expect(settings.json).toMatchObject({ llm_model: 'demo/model', llm_api_key: null, llm_api_key_set: true });
    expect((await api('GET', '/api/automation/v1/webhooks')).json.webhooks.map((webhook: { source: string }) => webhook.source)).toEqual(['ci']);
    const runs = (await api('GET', `/api/automation/v1/${automation.id}/runs`)).json.runs;
    expect(runs).toEqual([expect.objectContaining({ id: run.id, status: 'COMPLETED' })]);
    const events = (await api('GET', `/api/v1/app-conversations/${runs[0].conversation_id}/events`)).json.items;
    expect(events.at(-1)).toMatchObject({ kind: 'status', data: { status: 'COMPLETED' } });
    // The stored secret is still readable: the agent gets it (and reports only that it has one).
    const again = (await api('POST', `/api/automation/v1/${automation.id}/dispatch`, {})).json;
    let latest: any = { status: 'PENDING' };
    for (let i = 0; i < 200 && latest.status !== 'COMPLETED'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      latest = (await api('GET', `/api/automation/v1/${automation.id}/runs`)).json.runs.find((one: { id: string }) => one.id === again.id);
    }
    const output = (await api('GET', `/api/v1/app-conversations/${latest.conversation_id}/events`)).json.items.map(
      (event: { message: string | null }) => event.message,
    );
    expect(output).toContain('Model: demo/model; API key provided.');
    expect(await stopServer(second)).toBe(0);
    expect(second.output.join('') + first.output.join('')).not.toContain('sk-kept-across-restarts');
  });
});
