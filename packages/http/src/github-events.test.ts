import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type ApiResponse, type Harness } from '../test-support/harness.js';
import { createAutomation } from '../test-support/events.js';
import { githubExample } from '../test-support/github-examples.js';

const SECRET = 'github-app-secret-0123';
const OLD_SECRET = 'github-old-secret-0123';
let deliveryCounter = 0;

function sendGithub(
  api: Harness,
  event: string,
  payload: unknown,
  options: { secret?: string; delivery?: string; form?: boolean; signature?: string } = {},
): Promise<ApiResponse> {
  const json = JSON.stringify(payload);
  const body = options.form ? `payload=${encodeURIComponent(json)}` : json;
  const signature =
    options.signature ??
    `sha256=${createHmac('sha256', options.secret ?? SECRET)
      .update(body)
      .digest('hex')}`;
  return api.request('POST', '/api/automation/v1/events/github', {
    as: null,
    body,
    headers: {
      'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-github-event': event,
      'x-github-delivery': options.delivery ?? `delivery-${++deliveryCounter}`,
      'x-hub-signature-256': signature,
    },
  });
}

describe.each(BINDINGS)('native GitHub deliveries on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding, { platform: { github: { webhookSecrets: [SECRET, OLD_SECRET] } } });
    await api.platform.githubLinks.link({ orgId: 'acme', account: 'Codertocat' });
    await api.platform.githubLinks.link({ orgId: 'evil', account: 'Octocoders' });
  });
  afterAll(() => api.close());

  it('matches a labeled pull request with contains() on its labels, in the linked org only', async () => {
    const bugs = await createAutomation(api, { source: 'github', on: 'pull_request.labeled', filter: "contains(pull_request.labels[].name, 'bug')" });
    const anyPr = await createAutomation(api, { source: 'github', on: 'pull_request.*' });
    const docs = await createAutomation(api, { source: 'github', on: 'pull_request.labeled', filter: "contains(pull_request.labels[].name, 'docs')" });
    const theirs = await createAutomation(api, { source: 'github', on: 'pull_request.*' }, 'mallory');
    const payload = githubExample('pull_request', (p) => p.action === 'labeled' && !p.organization);
    const response = await sendGithub(api, 'pull_request', payload);
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ received: true, matched: 2, delivery_id: expect.any(String) });
    const delivery = await api.request('GET', `/api/automation/v1/deliveries/${response.json.delivery_id}`);
    expect(delivery.json).toMatchObject({ source: 'github', event_key: 'pull_request.labeled', status: 'matched' });
    const outcome = (id: string) => delivery.json.outcomes.find((entry: { automation_id: string }) => entry.automation_id === id);
    expect(outcome(bugs).matched).toBe(true);
    expect(outcome(anyPr).matched).toBe(true);
    expect(outcome(docs).reason).toBe('filter_false');
    expect((await api.request('GET', `/api/automation/v1/${theirs}/runs`, { as: 'mallory' })).json.total).toBe(0);
  });

  it('reaches every org linked to the delivery’s accounts', async () => {
    const theirs = await createAutomation(api, { source: 'github', on: 'issues.labeled' }, 'mallory');
    const mine = await createAutomation(api, { source: 'github', on: 'issues.labeled' });
    const payload = githubExample('issues', (p) => p.action === 'labeled' && p.organization?.login === 'Octocoders');
    const response = await sendGithub(api, 'issues', payload);
    expect(response.json.matched).toBe(2);
    expect((await api.request('GET', `/api/automation/v1/${theirs}/runs`, { as: 'mallory' })).json.total).toBe(1);
    expect((await api.request('GET', `/api/automation/v1/${mine}/runs`)).json.total).toBe(1);
  });

  it('matches an issue comment with icontains() on its body', async () => {
    const automation = await createAutomation(api, { source: 'github', on: 'issue_comment.created', filter: "icontains(comment.body, 'TOTALLY RIGHT')" });
    const payload = githubExample('issue_comment', (p) => p.action === 'created' && !p.organization);
    expect((await sendGithub(api, 'issue_comment', payload)).json.matched).toBeGreaterThanOrEqual(1);
    expect((await api.request('GET', `/api/automation/v1/${automation}/runs`)).json.total).toBe(1);
  });

  it('names a push by its bare event and filters branches with glob()', async () => {
    const branches = await createAutomation(api, { source: 'github', on: 'push', filter: "glob(ref, 'refs/heads/*')" });
    const branchPush = githubExample('push', (p) => p.ref === 'refs/heads/master');
    const tagPush = githubExample('push', (p) => p.ref === 'refs/tags/simple-tag' && !p.organization);
    const tag = await sendGithub(api, 'push', tagPush);
    const tagLog = await api.request('GET', `/api/automation/v1/deliveries/${tag.json.delivery_id}`);
    expect(tagLog.json.event_key).toBe('push');
    expect(tagLog.json.outcomes.find((entry: { automation_id: string }) => entry.automation_id === branches).reason).toBe('filter_false');
    await sendGithub(api, 'push', branchPush);
    expect((await api.request('GET', `/api/automation/v1/${branches}/runs`)).json.total).toBe(1);
  });

  it('accepts form-encoded deliveries', async () => {
    const automation = await createAutomation(api, { source: 'github', on: 'release.published' });
    const payload = githubExample('release', (p) => p.action === 'published');
    const response = await sendGithub(api, 'release', payload, { form: true });
    expect(response.status).toBe(200);
    expect((await api.request('GET', `/api/automation/v1/${automation}/runs`)).json.total).toBe(1);
  });

  it('verifies with any configured secret (rotation), and refuses wrong and missing signatures', async () => {
    const payload = githubExample('issues', (p) => p.action === 'edited' && !p.organization);
    expect((await sendGithub(api, 'issues', payload, { secret: OLD_SECRET })).status).toBe(200);
    expect((await sendGithub(api, 'issues', payload, { secret: 'not-the-secret-000' })).status).toBe(401);
    expect((await sendGithub(api, 'issues', payload, { signature: '' })).status).toBe(401);
    expect((await sendGithub(api, 'issues', payload, { signature: 'sha256=zz' })).status).toBe(401);
  });

  it('passes GitHub’s documented test vector (then refuses the non-JSON body with 400)', async () => {
    const vector = await startHarness(binding, { platform: { github: { webhookSecrets: ["It's a Secret to Everybody"] } } });
    try {
      const headers = {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': 'vector',
        'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      };
      expect((await vector.request('POST', '/api/automation/v1/events/github', { as: null, body: 'Hello, World!', headers })).status).toBe(400);
      expect((await vector.request('POST', '/api/automation/v1/events/github', { as: null, body: 'Hello, World?', headers })).status).toBe(401);
    } finally {
      await vector.close();
    }
  });

  it('drops a redelivery with the same X-GitHub-Delivery', async () => {
    const automation = await createAutomation(api, { source: 'github', on: 'issues.assigned' });
    const payload = githubExample('issues', (p) => p.action === 'assigned' && !p.organization);
    const results = await Promise.all(Array.from({ length: 10 }, () => sendGithub(api, 'issues', payload, { delivery: 'same-guid' })));
    expect(results.filter((result) => result.json.matched === 1)).toHaveLength(1);
    expect(results.filter((result) => result.json.duplicate === true)).toHaveLength(9);
    expect((await api.request('GET', `/api/automation/v1/${automation}/runs`)).json.total).toBe(1);
  });

  it('answers 400 without X-GitHub-Event, and stores nothing for an unlinked account', async () => {
    const payload = githubExample('issues', (p) => p.action === 'opened' || p.action === 'edited');
    const body = JSON.stringify(payload);
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const noEvent = await api.request('POST', '/api/automation/v1/events/github', {
      as: null,
      body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    });
    expect(noEvent.status).toBe(400);
    const unlinked = {
      ...payload,
      repository: { ...(payload.repository as object), owner: { login: 'someone-else' } },
      organization: undefined,
      installation: undefined,
    };
    const response = await sendGithub(api, 'issues', unlinked);
    expect(response.json).toEqual({ received: true, matched: 0, runs_created: [] });
  });

  it('reaches an account linked (or no longer reaches one unlinked) from the next delivery on', async () => {
    const automation = await createAutomation(api, { source: 'github', on: 'issues.*', filter: "repository.owner.login == 'late-linker'" });
    const payload = githubExample('issues', (p) => p.action === 'opened' || p.action === 'edited');
    const theirs = {
      ...payload,
      repository: { ...(payload.repository as object), owner: { login: 'late-linker' } },
      organization: undefined,
      installation: undefined,
    };
    const runs = async () => (await api.request('GET', `/api/automation/v1/${automation}/runs`)).json.total;
    expect((await sendGithub(api, 'issues', theirs)).json.matched).toBe(0);
    await api.platform.githubLinks.link({ orgId: 'acme', account: 'late-linker' });
    expect((await sendGithub(api, 'issues', theirs)).json.matched).toBe(1);
    expect(await runs()).toBe(1);
    await api.platform.githubLinks.unlink({ orgId: 'acme', account: 'late-linker' });
    expect((await sendGithub(api, 'issues', theirs)).json).toEqual({ received: true, matched: 0, runs_created: [] });
    expect(await runs()).toBe(1);
  });

  it('answers 404 when no GitHub secret is configured', async () => {
    const bare = await startHarness(binding);
    try {
      expect((await sendGithub(bare, 'push', githubExample('push'))).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
