/**
 * The web console in headless Chromium (Debian's package, driven by playwright-core),
 * served by the reference server at `/console` (where `/` redirects), used the way a person uses
 * it, found by roles and labels as a screen reader finds it: sign in with an API key kept in the
 * tab's session only; register a webhook and see its secret once; create an automation with the
 * filter tester (a pasted payload, then the source's recent deliveries); a signed event sent from
 * Node appears on the delivery log with its outcome and its run without reloading; a source
 * registered with the `linear` scheme takes an event signed as Linear signs it; the run's
 * conversation events arrive live; a slow run is cancelled; a message is sent in a conversation;
 * a sandbox is paused, resumed and deleted; settings and secrets are set and unset without a value
 * ever on the page; a secret is rotated; a subscription to a loopback receiver is created (its
 * secret once), and its message is delivered, its attempt logged and replayed; a mention automation
 * made with the form answers two comments in one GitHub issue (a git server and the GitHub
 * stand-in on loopback), and the run's page lists the thread's two runs, the conversation names
 * its thread, and a refused sender's delivery says why; the API reference renders (with one
 * main landmark); in confirmation mode
 * (the built-in agent against a scripted fake LLM) an action is accepted and another rejected;
 * the owner reads the audit log (a change with its actor, filtered, the chain verified, exported);
 * and a viewer's key sees the console read only (its role in the header), a member's without an
 * admin's writes or changes to another member's automation.
 *
 * Each page is photographed; `AGENT_PLATFORM_CONSOLE_SCREENSHOTS=1` writes the pictures to
 * docs/console/ (otherwise to a temporary folder, so a test run leaves the repository as it was).
 *
 * CI (`.ci/run` installs Chromium with scripts/browser-setup.sh) must run this, not skip it.
 */
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { recordProblems, signInTab } from './support/console-page.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type AgentPlatformClient } from '@agent-platform/client';
import { signatureHeaders, signGithub, type SignatureSchemeName } from '@agent-platform/core';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer } from '@agent-platform/testing/git-server';
import { startGitHubApi, type GitHubApi } from '@agent-platform/testing/github-api';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

const ALICE = 'e2e-console-alice-0123456789abcdef';
const BOB = 'e2e-console-bob-0123456789abcdef';
const LLM_KEY = 'sk-e2e-console-llm-key-5150';
const GITHUB_WEBHOOK_SECRET = 'e2e-console-github-webhook-secret';
const GITHUB_TOKEN = 'ghp_e2e_console_token_7d2a90';
const WAIT = { timeout: 30_000 };

/**
 * The reference server's demo agent, and for instructions that say "slowly" a run that keeps
 * working (a line a second) until it is cancelled.
 */
const AGENT = [
  `sh '${path.join(root, 'examples/server/agents/demo-agent.sh')}'`,
  'case "$AGENT_PLATFORM_INSTRUCTIONS" in *slowly*) i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo "still working ($i)"; sleep 1; done;; esac',
].join('; ');

/** The fake model for confirmation mode: two commands (each held for the user), then finish. */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const messages = request.body.messages as { role: string }[];
  const step = messages.filter((message) => message.role === 'assistant').length;
  const terminal = (command: string): FakeLlmTurn => ({ toolCalls: [{ name: 'terminal', arguments: { command } }] });
  return (
    [
      terminal("printf 'first-command\\nits second line\\n'"),
      terminal('echo second-command'),
      { toolCalls: [{ name: 'finish', arguments: { message: 'done confirming' } }] },
    ][step] ?? {
      text: 'done',
    }
  );
}

const screenshotDir =
  process.env.AGENT_PLATFORM_CONSOLE_SCREENSHOTS === '1' ? path.join(root, 'docs/console') : mkdtempSync(path.join(tmpdir(), 'console-screenshots-'));

if (!chromiumAvailable()) describe('the web console in Chromium', () => it.skip('no Chromium here (scripts/browser-setup.sh installs it)', () => {}));
else
  describe('the web console in Chromium', () => {
    let server: RunningServer;
    let llm: FakeLlmServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let alice: AgentPlatformClient;
    /** What the page said that it should not have: errors, CSP violations. */
    const problems: string[] = [];
    let firstSecret = '';

    const shot = (name: string, target: Page = page, fullPage = true) => target.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage });
    const heading = (name: string | RegExp, target: Page = page) => target.getByRole('heading', { level: 1, name }).waitFor(WAIT);
    /** The Status field of the record on the page (a run, a conversation). */
    const status = (value: string, target: Page = page) =>
      target.locator('dl.fields dt:text-is("Status") + dd').getByText(value, { exact: true }).waitFor(WAIT);
    const open = async (link: string, title: string | RegExp = link, target: Page = page) => {
      await target.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
      await heading(title, target);
    };
    // Refused requests (the wrong key on purpose, a 409) are logged by the browser; they are not problems.
    const watch = (target: Page) => recordProblems(target, problems);
    /** Sends an event to a webhook (by default `linear`, an `hmac-sha256` source), signed with core's signing helpers. */
    const sendEvent = async (secret: string, payload: unknown, { source = 'linear', scheme = 'hmac-sha256' as SignatureSchemeName } = {}) => {
      const body = Buffer.from(JSON.stringify(payload));
      const response = await fetch(`${server.baseUrl}/api/automation/v1/events/acme/${source}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signatureHeaders({ scheme, secret, body, now: new Date() }) },
        body,
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { delivery_id: string; matched: number; runs_created: string[] };
    };

    beforeAll(async () => {
      mkdirSync(screenshotDir, { recursive: true });
      llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
      server = await startServer('examples/server', {
        AGENT_PLATFORM_SANDBOX: 'process',
        AGENT_PLATFORM_API_KEYS: `alice@acme:${ALICE},bob@acme:${BOB}`,
        AGENT_PLATFORM_AGENT_COMMAND: AGENT,
        // The subscription step's receiver is on loopback.
        AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE: 'true',
        // GitHub events for the thread step, from repositories of the account acme.
        AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_WEBHOOK_SECRET,
        AGENT_PLATFORM_GITHUB_LINKS: 'acme=acme',
      });
      alice = createClient({ baseUrl: server.baseUrl, apiKey: ALICE });
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
      page = await context.newPage();
      watch(page);
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      if (server) expect(await stopServer(server)).toBe(0);
      await llm?.close();
      if (process.env.AGENT_PLATFORM_CONSOLE_SCREENSHOTS !== '1') rmSync(screenshotDir, { recursive: true, force: true });
    }, 60_000);

    it('signs in with an API key kept in the tab’s session storage only', async () => {
      await page.goto(`${server.baseUrl}/`);
      expect(new URL(page.url()).pathname).toBe('/console');
      await heading('Sign in to the agent-platform console');
      await page.getByLabel('API key', { exact: true }).fill('not-a-key-of-this-platform');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Sign-in failed' }).waitFor(WAIT);
      await page.getByLabel('API key', { exact: true }).fill(ALICE);
      await shot('sign-in');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading('Overview');
      await expect.poll(() => page.getByText('Signed in as alice (acme)').count()).toBe(1);
      // Page scripts as strings: this file is type-checked without the DOM's globals.
      const storage = (await page.evaluate('({ session: JSON.stringify(sessionStorage), local: localStorage.length, cookies: document.cookie })')) as {
        session: string;
      };
      expect(storage.session).toContain(ALICE);
      expect(storage).toMatchObject({ local: 0, cookies: '' });
      // A reload keeps the session (same tab).
      await page.reload();
      await heading('Overview');
    }, 90_000);

    it('registers a webhook and shows its secret once, with a note to copy it now', async () => {
      await open('Webhooks');
      await page.getByLabel('Name', { exact: true }).fill('Linear');
      await page.getByLabel('Source', { exact: true }).fill('linear');
      await page.getByRole('button', { name: 'Register webhook' }).click();
      await page.getByRole('heading', { name: 'Webhook linear registered: copy its secret now' }).waitFor(WAIT);
      await page.getByText('Copy it now: this is the only time it is shown.').waitFor(WAIT);
      firstSecret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
      expect(firstSecret).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.getByText('The secret is hidden and cannot be shown again.').waitFor(WAIT);
      expect(await page.content()).not.toContain(firstSecret);
      await page.reload();
      await heading('Webhooks');
      await page.getByRole('cell', { name: 'linear', exact: true }).waitFor(WAIT);
      expect(await page.content()).not.toContain(firstSecret);
    }, 60_000);

    it('creates an automation, trying its filter on a pasted payload first', async () => {
      await open('Automations');
      await page.getByRole('link', { name: 'New automation' }).click();
      await heading('New automation');
      await page.getByLabel('Name', { exact: true }).fill('triage crashes');
      await page.getByLabel('Source', { exact: true }).fill('linear');
      await page.getByLabel('Event patterns', { exact: true }).fill('Issue');
      await page.getByLabel('Filter', { exact: true }).fill("icontains(data.title, 'crash')");
      await page.getByLabel('Instructions', { exact: true }).fill('Triage the issue');

      const tester = page.getByRole('region', { name: 'Test the trigger' });
      await tester.getByLabel('Payload (JSON)', { exact: true }).fill('{"type": "Issue", "data": {"title": "Crash on start"}}');
      await tester.getByRole('button', { name: 'Test payload' }).click();
      await tester.getByRole('status').filter({ hasText: 'Event Issue: matched.' }).waitFor(WAIT);
      await tester.getByLabel('Payload (JSON)', { exact: true }).fill('{"type": "Issue", "data": {"title": "Typo in the docs"}}');
      await tester.getByRole('button', { name: 'Test payload' }).click();
      await tester.getByRole('status').filter({ hasText: 'not matched: its filter is false for this payload' }).waitFor(WAIT);
      await tester.getByLabel('Payload (JSON)', { exact: true }).fill('{"type": "Comment"}');
      await tester.getByRole('button', { name: 'Test payload' }).click();
      await tester.getByRole('status').filter({ hasText: 'Event Comment: not matched: the event key matches none of its patterns' }).waitFor(WAIT);
      await tester.getByLabel('Payload (JSON)', { exact: true }).fill('{"type": "Issue", "data": {"title": "Crash on start"}}');
      await tester.getByRole('button', { name: 'Test payload' }).click();
      await tester.getByRole('status').filter({ hasText: 'Event Issue: matched.' }).waitFor(WAIT);

      await page.getByRole('button', { name: 'Create automation' }).click();
      await heading('Automation triage crashes');
      await shot('automation');
      await page.getByRole('link', { name: 'All automations' }).click();
      await heading('Automations');
      await page.getByRole('link', { name: 'triage crashes', exact: true }).waitFor(WAIT);
      await shot('automations');
    }, 60_000);

    let runId = '';
    it('shows a signed event’s delivery, each automation’s outcome and its run, without reloading', async () => {
      await open('Deliveries');
      await page.getByText('No deliveries yet.').waitFor(WAIT);
      await page.evaluate('window.notReloaded = true');
      const sent = await sendEvent(firstSecret, { type: 'Issue', data: { title: 'Crash on start' } });
      expect(sent.matched).toBe(1);
      [runId] = sent.runs_created as [string];
      const row = page.getByRole('row').filter({ hasText: 'triage crashes: matched' });
      await row.getByRole('link', { name: `run ${runId}` }).waitFor(WAIT);
      await sendEvent(firstSecret, { type: 'Issue', data: { title: 'Typo in the docs' } });
      await page.getByRole('row').filter({ hasText: 'triage crashes: not matched: its filter is false for this payload' }).waitFor(WAIT);
      expect(await page.evaluate('window.notReloaded')).toBe(true);
      await shot('deliveries');

      // One delivery in full, and replay.
      await row.getByRole('link', { name: /delivery/ }).click();
      await heading(/^Delivery /);
      await page.getByRole('region', { name: 'Payload' }).getByText('Crash on start').waitFor(WAIT);
      await page.getByRole('button', { name: 'Replay delivery' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /Replayed as delivery .*: 1 automation matched, run / })
        .waitFor(WAIT);
      await shot('delivery');
    }, 60_000);

    it('registers a source with the linear scheme, and shows an event signed as Linear signs it', async () => {
      await open('Webhooks');
      const form = page.getByRole('region', { name: 'Register a webhook' });
      await form.getByLabel('Name', { exact: true }).fill('Linear app');
      await form.getByLabel('Source', { exact: true }).fill('linear-app');
      // The label wraps the select, so its name ends with the chosen scheme.
      await form.getByRole('combobox', { name: /^Signature scheme/ }).selectOption('linear');
      // Linear names its own header: the form asks for none.
      expect(await form.getByLabel('Signature header', { exact: true }).count()).toBe(0);
      await form.getByRole('button', { name: 'Register webhook' }).click();
      await page.getByRole('heading', { name: 'Webhook linear-app registered: copy its secret now' }).waitFor(WAIT);
      const secret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
      await page.getByRole('button', { name: 'I have copied it' }).click();
      const source = page.getByRole('row').filter({ hasText: 'linear-app' });
      await source.getByRole('cell', { name: 'linear', exact: true }).waitFor(WAIT);
      expect((await alice.webhooks.list()).webhooks.find((webhook) => webhook.source === 'linear-app')?.signature_scheme).toBe('linear');

      // Linear signs the body alone; the body carries its own timestamp.
      const sent = await sendEvent(
        secret,
        { type: 'Issue', action: 'create', webhookTimestamp: Date.now(), data: { title: 'Filed in Linear' } },
        { source: 'linear-app', scheme: 'linear' },
      );
      await open('Deliveries');
      const delivery = page.getByRole('row').filter({ hasText: 'linear-app' });
      await delivery.getByRole('link', { name: new RegExp(`delivery ${sent.delivery_id}$`) }).waitFor(WAIT);
      await delivery.getByText('no automation on this source').waitFor(WAIT);
    }, 60_000);

    it('lists the automation’s runs live and follows the run’s conversation events', async () => {
      await open('Runs');
      await page.getByRole('link', { name: runId, exact: true }).waitFor(WAIT);
      // Every automation's runs, narrowed by status in the address; the table fits 1,280 px.
      await page
        .getByRole('search', { name: 'Filter runs' })
        .getByRole('combobox', { name: /^Status/ })
        .selectOption('COMPLETED');
      await page.waitForURL(/[?&]status=COMPLETED/);
      await page.getByRole('link', { name: runId, exact: true }).waitFor(WAIT);
      // Evaluated as text: the tests are type-checked without the DOM's types.
      expect(
        await page.evaluate(`(() => {
          const root = document.documentElement;
          const box = document.querySelector('table.runs').parentElement;
          return { page: root.scrollWidth - root.clientWidth, table: box.scrollWidth - box.clientWidth };
        })()`),
      ).toEqual({ page: 0, table: 0 });
      await page
        .getByRole('columnheader', { name: 'Actions', exact: true })
        .or(page.getByRole('columnheader', { name: 'Error', exact: true }))
        .first()
        .waitFor(WAIT);
      await shot('runs');
      await page.getByRole('link', { name: runId, exact: true }).click();
      await heading(`Run ${runId}`);
      // The run names its automation, linking to it.
      await page.locator('dl.fields dt:text-is("Automation") + dd').getByRole('link', { name: 'triage crashes', exact: true }).waitFor(WAIT);
      // The run's transcript: the agent's output lines in a terminal block.
      const log = page.getByRole('log', { name: 'Transcript' });
      await log.getByText('Task: Triage the issue').first().waitFor(WAIT);
      await log.getByText('Looked at the triggering event').first().waitFor(WAIT);
      await status('COMPLETED');
    }, 60_000);

    it('tests the filter against the source’s recent deliveries', async () => {
      await open('Automations');
      await page.getByRole('link', { name: 'triage crashes', exact: true }).click();
      await heading('Automation triage crashes');
      const tester = page.getByRole('region', { name: 'Test the trigger' });
      await tester.getByRole('button', { name: 'Test recent deliveries' }).click();
      await tester.getByRole('status').filter({ hasText: '2 of 3 recent deliveries match.' }).waitFor(WAIT);
      await tester.getByRole('cell', { name: 'not matched: its filter is false for this payload' }).waitFor(WAIT);
      // The draft, not the saved automation: a wider filter matches all three.
      await page.getByLabel('Filter', { exact: true }).fill("icontains(data.title, 'crash') || icontains(data.title, 'typo')");
      await tester.getByRole('button', { name: 'Test recent deliveries' }).click();
      await tester.getByRole('status').filter({ hasText: '3 of 3 recent deliveries match.' }).waitFor(WAIT);
      await shot('automation-tester');
    }, 60_000);

    it('follows a slow run’s events as they arrive, and cancels it', async () => {
      const slow = await alice.automations.create({
        name: 'work slowly',
        trigger: { type: 'event', source: 'linear', on: 'Slow' },
        instructions: 'Work slowly',
      });
      const [slowRun] = (await sendEvent(firstSecret, { type: 'Slow' })).runs_created;
      await page.goto(`${server.baseUrl}/console/runs?automation=${slow.id}`);
      await heading('Runs');
      await page.getByRole('link', { name: slowRun, exact: true }).click();
      await heading(`Run ${slowRun}`);
      const log = page.getByRole('log', { name: 'Transcript' });
      await log.getByText('still working (1)', { exact: true }).waitFor(WAIT);
      // Each line the agent prints is a line of its output block.
      const items = log.locator('.term-line');
      const seen = await items.count();
      // New events arrive on the open page.
      await expect.poll(() => items.count(), { timeout: 30_000 }).toBeGreaterThan(seen + 1);
      await status('RUNNING');
      await shot('run');
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await page.getByRole('group', { name: 'Cancel this run? The agent is stopped.' }).getByRole('button', { name: 'Cancel run' }).click();
      await page.getByText('The run is cancelled.').waitFor(WAIT);
      expect((await alice.automations.getRun(slowRun!)).status).toBe('CANCELLED');
    }, 90_000);

    it('opens the run’s conversation and sends a message', async () => {
      const run = await alice.automations.getRun(runId);
      await page.goto(`${server.baseUrl}/console/runs/${runId}`);
      await heading(`Run ${runId}`);
      await page.getByRole('link', { name: run.conversation_id!, exact: true }).click();
      await heading(/^Conversation[ :]/);
      const log = page.getByRole('log', { name: 'Conversation events' });
      await log.getByText('Task: Triage the issue').first().waitFor(WAIT);
      await page.getByLabel('Run the agent if it is idle', { exact: true }).uncheck();
      await page.getByLabel('Message', { exact: true }).fill('Thanks, that is all for now.');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.getByRole('status').filter({ hasText: 'Message sent.' }).waitFor(WAIT);
      await log.getByText('Thanks, that is all for now.').first().waitFor(WAIT);
      await shot('conversation');
      await open('Conversations');
      await page.getByRole('table', { name: 'Conversations, newest first' }).waitFor(WAIT);
      await shot('conversations');
    }, 60_000);

    it('pauses, resumes and deletes a sandbox', async () => {
      const sandbox = await alice.sandboxes.start({});
      await open('Sandboxes');
      const row = page.getByRole('row').filter({ hasText: sandbox.id });
      await row.getByText('RUNNING', { exact: true }).waitFor(WAIT);
      await row.getByRole('button', { name: `Pause sandbox ${sandbox.id}` }).click();
      await row.getByText('PAUSED', { exact: true }).waitFor(WAIT);
      await shot('sandboxes');
      await row.getByRole('button', { name: `Resume sandbox ${sandbox.id}` }).click();
      await row.getByText('RUNNING', { exact: true }).waitFor(WAIT);
      await row.getByRole('button', { name: `Delete sandbox ${sandbox.id}` }).click();
      await row
        .getByRole('group', { name: `Delete sandbox ${sandbox.id} and everything in it?` })
        .getByRole('button', { name: 'Delete sandbox', exact: true })
        .click();
      await page
        .getByRole('status')
        .filter({ hasText: `Sandbox ${sandbox.id} deleted.` })
        .waitFor(WAIT);
      await expect.poll(() => page.getByRole('row').filter({ hasText: sandbox.id }).count(), WAIT).toBe(0);
    }, 60_000);

    it('sets and unsets settings and secrets, never showing a value', async () => {
      const values = ['npm-secret-value-8642', 'sk-console-llm-key-9753'];
      await open('Settings');
      await page.getByLabel('Git user name', { exact: true }).fill('Alice Example');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor(WAIT);
      expect((await alice.settings.get()).git_user_name).toBe('Alice Example');

      await page.getByLabel('Secret name', { exact: true }).fill('NPM_TOKEN');
      await page.getByLabel('Secret value', { exact: true }).fill(values[0]!);
      await page.getByLabel('Description', { exact: true }).fill('publishes packages');
      await page.getByRole('button', { name: 'Add secret' }).click();
      await page.getByRole('status').filter({ hasText: 'Secret NPM_TOKEN stored.' }).waitFor(WAIT);
      await page.getByRole('cell', { name: 'NPM_TOKEN', exact: true }).waitFor(WAIT);

      const llmKey = page.getByRole('form', { name: 'LLM API key' });
      await llmKey.getByLabel('LLM API key', { exact: true }).fill(values[1]!);
      await llmKey.getByRole('button', { name: 'Store LLM API key' }).click();
      await page.getByRole('status').filter({ hasText: 'LLM API key stored.' }).waitFor(WAIT);
      await llmKey.getByText('stored', { exact: true }).waitFor(WAIT);
      await shot('settings');
      const html = await page.content();
      for (const value of values) expect(html).not.toContain(value);
      expect((await alice.settings.get()).llm_api_key_set).toBe(true);

      await llmKey.getByRole('button', { name: 'Remove LLM API key' }).click();
      await llmKey.getByRole('group', { name: 'Remove the LLM API key?' }).getByRole('button', { name: 'Remove LLM API key' }).click();
      await llmKey.getByText('not set', { exact: true }).waitFor(WAIT);
      await page.getByRole('button', { name: 'Remove secret NPM_TOKEN' }).click();
      await page.getByRole('group', { name: 'Remove NPM_TOKEN?' }).getByRole('button', { name: 'Remove NPM_TOKEN' }).click();
      await page.getByText('No secrets stored.').waitFor(WAIT);
      const after = await alice.settings.get();
      expect([after.llm_api_key_set, after.custom_secrets]).toEqual([false, []]);
    }, 60_000);

    it('rotates the webhook’s secret and shows the new one once; both verify during the grace period', async () => {
      await open('Webhooks');
      await page.getByRole('button', { name: 'Rotate secret of linear', exact: true }).click();
      await page.getByRole('button', { name: 'Rotate now' }).click();
      await page.getByRole('heading', { name: 'New secret for linear: copy it now' }).waitFor(WAIT);
      const rotated = await page.getByLabel('Signing secret', { exact: true }).inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(firstSecret);
      await shot('webhooks');
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await page.content()).not.toContain(rotated);
      expect((await sendEvent(rotated, { type: 'Comment' })).matched).toBe(0);
      expect((await sendEvent(firstSecret, { type: 'Comment', n: 2 })).matched).toBe(0);
    }, 60_000);

    it('creates a subscription (its secret once), and shows its message delivered, the attempt log, and a replay', async () => {
      const received: IncomingHttpHeaders[] = [];
      const receiver = createServer((request, response) => {
        request.resume();
        request.on('end', () => {
          received.push(request.headers);
          response.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      try {
        await open('Subscriptions');
        await page.getByLabel('URL', { exact: true }).fill(url);
        await page.getByLabel('delivery.received', { exact: true }).check();
        await page.getByLabel('Description', { exact: true }).fill('e2e receiver');
        await page.getByRole('button', { name: 'Create subscription' }).click();
        await page.getByRole('heading', { name: `Subscription to ${url} created: copy its secret now` }).waitFor(WAIT);
        const secret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
        expect(secret).toMatch(/^whsec_/);
        await page.getByRole('button', { name: 'I have copied it' }).click();
        expect(await page.content()).not.toContain(secret);
        await shot('subscriptions');

        await sendEvent(firstSecret, { type: 'Comment', n: 3 });
        await page.getByRole('link', { name: `Messages to ${url}` }).click();
        await heading(`Subscription ${url}`);
        const row = page.getByRole('row').filter({ hasText: 'delivery.received' });
        await row.getByText('delivered', { exact: true }).waitFor(WAIT);
        await row.getByRole('button', { name: /^Log of attempts of message / }).click();
        await page
          .getByRole('table', { name: /^Attempt log of message / })
          .getByRole('cell', { name: '200', exact: true })
          .waitFor(WAIT);
        await shot('subscription');
        await row.getByRole('button', { name: /^Replay message / }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /is being sent again/ })
          .waitFor(WAIT);
        await expect.poll(() => received.length, WAIT).toBe(2);
        // The same message both times: a receiver can drop the repeat.
        expect(received[1]!['webhook-id']).toBe(received[0]!['webhook-id']);
      } finally {
        await new Promise<void>((resolve) => {
          receiver.close(() => resolve());
          receiver.closeAllConnections();
        });
      }
    }, 60_000);

    it('sets an automation’s flow control: concurrency key, on conflict, debounce and rate limit', async () => {
      await open('Automations');
      await page.getByRole('link', { name: 'work slowly', exact: true }).click();
      await heading('Automation work slowly');
      await page.getByLabel('Concurrency key', { exact: true }).fill('data.id');
      await page.getByLabel('On conflict', { exact: true }).selectOption('cancel_previous');
      await page.getByLabel('Debounce (seconds)', { exact: true }).fill('5');
      await page.getByLabel('Rate limit: max runs', { exact: true }).fill('10');
      await page.getByLabel('Rate limit: per seconds', { exact: true }).fill('60');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor(WAIT);
      const [saved] = (await alice.automations.list()).automations.filter((automation) => automation.name === 'work slowly');
      expect(saved).toMatchObject({
        concurrency_key: 'data.id',
        on_conflict: 'cancel_previous',
        debounce_seconds: 5,
        rate_limit: { max_runs: 10, per_seconds: 60 },
      });
      // Emptied, each is removed.
      await page.getByLabel('Debounce (seconds)', { exact: true }).fill('');
      await page.getByLabel('Rate limit: max runs', { exact: true }).fill('');
      await page.getByLabel('Rate limit: per seconds', { exact: true }).fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor(WAIT);
      expect(await alice.automations.get(saved!.id)).toMatchObject({ concurrency_key: 'data.id', debounce_seconds: null, rate_limit: null });
    }, 60_000);

    it('creates a mention automation with the form; the run’s page lists the runs of its GitHub thread', async () => {
      const git = await startGitServer({ token: GITHUB_TOKEN });
      let github: GitHubApi | undefined;
      try {
        await git.createRepository('acme/app', { files: { 'README.md': '# app\n' } });
        github = await startGitHubApi({ tokens: { [GITHUB_TOKEN]: { login: 'acme-agent[bot]', type: 'Bot' } }, git });
        github.addRepository('acme/app');
        // The stand-in serves the repository and the API on one origin, as a GitHub Enterprise host does.
        await alice.gitProviders.store({ provider_tokens: { github: { token: GITHUB_TOKEN, host: github.url } } });
        const issue = github.addIssue('acme/app', { title: 'Crash on start' });
        /** A comment on the issue, as GitHub signs and sends it (stored on the stand-in too, for the 👀 reaction). */
        const comment = async (login: string, text: string) => {
          const id = github!.addIssueComment('acme/app', issue, { body: text, user: login });
          const body = JSON.stringify({
            action: 'created',
            issue: { number: issue, title: 'Crash on start' },
            comment: { id, body: text, user: { login, type: 'User' }, author_association: 'CONTRIBUTOR' },
            sender: { login, type: 'User' },
            repository: { full_name: 'acme/app', owner: { login: 'acme' } },
          });
          const response = await fetch(`${server.baseUrl}/api/automation/v1/events/github`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'issue_comment',
              'x-github-delivery': randomUUID(),
              'x-hub-signature-256': signGithub(GITHUB_WEBHOOK_SECRET, body),
            },
            body,
          });
          expect(response.status).toBe(200);
          return ((await response.json()) as { runs_created: string[] }).runs_created;
        };

        await open('Automations');
        await page.getByRole('link', { name: 'New automation' }).click();
        await heading('New automation');
        await page.getByLabel('Name', { exact: true }).fill('agent on mention');
        await page.getByLabel('Source', { exact: true }).fill('github');
        await page.getByLabel('Runs on', { exact: true }).selectOption('mention');
        // A mention brings its own event keys: no patterns to type.
        expect(await page.getByLabel('Event patterns', { exact: true }).count()).toBe(0);
        await page.getByLabel('Mention', { exact: true }).fill('@agent');
        // Someone asking in a thread is answered there: reporting back comes on with a mention.
        expect(await page.getByLabel('Report back on GitHub', { exact: true }).isChecked()).toBe(true);
        await page.getByLabel('Who may command it', { exact: true }).selectOption('logins');
        await page.getByLabel('Logins', { exact: true }).fill('carol');
        await page.getByLabel('Instructions', { exact: true }).fill('Do what the comment asks');
        await page.getByRole('button', { name: 'Create automation' }).click();
        await heading('Automation agent on mention');
        await shot('automation-mention');
        const [created] = (await alice.automations.list()).automations.filter((automation) => automation.name === 'agent on mention');
        expect(created).toMatchObject({
          trigger: { source: 'github', mention: '@agent', on: expect.arrayContaining(['issue_comment.created']) },
          report_to_github: true,
          allowed_actors: ['carol'],
        });

        // Two commands in one issue: one thread, whose runs share a conversation; a stranger's starts nothing.
        const [first] = await comment('carol', '@agent look at the crash');
        const [second] = await comment('carol', '@agent and add a test for it');
        expect(await comment('mallory', '@agent delete everything')).toEqual([]);
        const runs = await Promise.all([first!, second!].map((id) => alice.automations.waitForRun(id, { timeoutMs: 60_000 })));
        expect(runs.map((run) => run.thread_key)).toEqual([`github:acme/app#${issue}`, `github:acme/app#${issue}`]);
        expect(runs[1]!.conversation_id).toBe(runs[0]!.conversation_id);

        await page.goto(`${server.baseUrl}/console/runs/${second}`);
        await heading(`Run ${second}`);
        const thread = page.locator('dl.fields dt:text-is("Thread") + dd');
        await thread.getByText(`github:acme/app#${issue}`, { exact: true }).waitFor(WAIT);
        await thread.getByText(`acme/app #${issue} on GitHub`).waitFor(WAIT);
        const threadRuns = page.getByRole('region', { name: 'Runs in this thread' });
        await threadRuns.getByRole('link', { name: first!, exact: true }).waitFor(WAIT);
        await threadRuns.getByRole('row').filter({ hasText: '(this run)' }).getByRole('link', { name: second!, exact: true }).waitFor(WAIT);
        expect(await threadRuns.getByRole('row').count()).toBe(3);
        await shot('run-thread');
        await threadRuns.getByRole('link', { name: first!, exact: true }).click();
        await heading(`Run ${first}`);
        await threadRuns.getByRole('row').filter({ hasText: '(this run)' }).getByRole('link', { name: first!, exact: true }).waitFor(WAIT);

        // The conversation names its run and its thread.
        await page.getByRole('link', { name: runs[0]!.conversation_id!, exact: true }).click();
        await heading(/^Conversation[ :]/);
        await page.locator('dl.fields dt:text-is("Thread") + dd').getByText(`github:acme/app#${issue}`, { exact: true }).waitFor(WAIT);
        // The thread's latest run (the two may have been created in the same millisecond).
        await page
          .locator('dl.fields dt:text-is("Run") + dd')
          .getByRole('link', { name: new RegExp(`^(${first}|${second})$`) })
          .waitFor(WAIT);

        // The stranger's delivery says who was refused, and why.
        await open('Deliveries');
        await page.getByRole('row').filter({ hasText: 'agent on mention: refused: the sender may not command it (@mallory is not one of' }).waitFor(WAIT);
        // The outcome comments are written once the runs end; wait for them before GitHub goes away.
        for (const id of [first!, second!]) await expect.poll(async () => (await alice.automations.getRun(id)).report?.comment_due, WAIT).toBe(false);
        expect(github.violations).toEqual([]);
      } finally {
        await github?.close();
        await git.close();
      }
    }, 120_000);

    it('shows the API reference from /openapi.json with Swagger UI served by the console', async () => {
      await open('API reference');
      await page
        .locator('.swagger')
        .getByRole('heading', { name: /agent-platform/ })
        .waitFor({ timeout: 90_000 });
      await page.getByText('/api/automation/v1/webhooks', { exact: true }).first().waitFor(WAIT);
      // Swagger UI's own <main> is inside the console's: it is a region, so the page has one main landmark.
      await page.getByRole('region', { name: 'Operations' }).waitFor(WAIT);
      expect(await page.getByRole('main').count()).toBe(1);
      // Swagger UI's page is very long: the first screen only.
      await shot('api', page, false);
    }, 120_000);

    it('in confirmation mode, accepts one action of the agent and rejects the next', async () => {
      const bobContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
      const bob = await bobContext.newPage();
      watch(bob);
      try {
        await bob.goto(`${server.baseUrl}/console/settings`);
        await bob.getByLabel('API key', { exact: true }).fill(BOB);
        await bob.getByRole('button', { name: 'Sign in' }).click();
        await heading('Settings', bob);
        await bob.getByLabel('Model', { exact: true }).fill('openai/gpt-4o');
        await bob.getByLabel('LLM base URL', { exact: true }).fill(`${llm.url}/v1`);
        await bob.getByRole('switch', { name: /Confirmation mode/ }).check();
        await bob.getByRole('button', { name: 'Save settings' }).click();
        await bob.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor(WAIT);
        const llmKey = bob.getByRole('form', { name: 'LLM API key' });
        await llmKey.getByLabel('LLM API key', { exact: true }).fill(LLM_KEY);
        await llmKey.getByRole('button', { name: 'Store LLM API key' }).click();
        await llmKey.getByText('stored', { exact: true }).waitFor(WAIT);

        await open('Conversations', 'Conversations', bob);
        await bob.getByLabel('Task', { exact: true }).fill('Run two commands, one at a time');
        await bob.getByRole('button', { name: 'Start conversation' }).click();
        await heading(/^Conversation[ :]/, bob);
        const hold = bob.getByRole('article', { name: 'The agent is waiting for your confirmation' });
        await hold.getByText('first-command').waitFor({ timeout: 60_000 });
        await shot('conversation-confirmation', bob);
        await hold.getByRole('button', { name: 'Accept action' }).click();
        // The command's output keeps its lines on the page.
        const output = bob.getByRole('log', { name: 'Conversation events' }).locator('li.event-environment .event-text').filter({ hasText: 'its second line' });
        await output.first().waitFor({ timeout: 60_000 });
        // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered is the point (line breaks shown, not only stored)
        expect(await output.first().innerText()).toMatch(/^first-command\nits second line\n/);
        await hold.getByText('second-command').waitFor({ timeout: 60_000 });
        await hold.getByLabel('Reason (optional)', { exact: true }).fill('not that one');
        await hold.getByRole('button', { name: 'Reject action' }).click();
        await bob.locator('dl.fields dt:text-is("Status") + dd').getByText('finished', { exact: true }).waitFor({ timeout: 60_000 });
        const log = bob.getByRole('log', { name: 'Conversation events' });
        await log.getByText('UserRejectObservation').first().waitFor(WAIT);
        expect(await bob.content()).not.toContain(LLM_KEY);
      } finally {
        await bobContext.close();
      }
    }, 150_000);

    it('shows a viewer’s key read only, and a member’s without the writes of an admin or on others’ automations', async () => {
      const bob = createClient({ baseUrl: server.baseUrl, apiKey: BOB });
      const bobs = await bob.automations.create({ name: 'bob triage', trigger: { type: 'event', source: 'linear', on: 'BobOnly' }, instructions: 'Triage' });
      const viewer = await alice.apiKeys.create({ name: 'viewer', role: 'viewer' });
      const member = await alice.apiKeys.create({ name: 'member', role: 'member' });
      expect([viewer.role, member.role]).toEqual(['viewer', 'member']);
      /** A new tab (its own session storage) signed in with `key` on the console page at `at`. */
      const signedIn = async (key: string, at: string, title: string) => {
        const target = await signInTab(browser, { url: `${server.baseUrl}/console/${at}`, key, problems });
        await heading(title, target);
        return { tab: target.context(), target };
      };
      const absent = async (target: Page, role: 'button' | 'link', name: string) => expect(await target.getByRole(role, { name }).count(), name).toBe(0);

      const asViewer = await signedIn(viewer.key, 'automations', 'Automations');
      try {
        const view = asViewer.target;
        await view.getByText('Role: viewer', { exact: true }).waitFor(WAIT);
        await view.getByText('Your key is a viewer: read only', { exact: true }).waitFor(WAIT);
        await absent(view, 'link', 'Audit log');
        await view.getByRole('link', { name: 'triage crashes', exact: true }).waitFor(WAIT);
        await absent(view, 'link', 'New automation');
        await view.getByRole('link', { name: 'triage crashes', exact: true }).click();
        await heading('Automation triage crashes', view);
        // Shown, not changeable: the fields are disabled, and nothing writes.
        expect(await view.getByLabel('Name', { exact: true }).inputValue()).toBe('triage crashes');
        expect(await view.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
        for (const name of ['Save changes', 'Run now', 'Delete automation', 'Test payload']) await absent(view, 'button', name);
        await open('Webhooks', 'Webhooks', view);
        await view.getByRole('cell', { name: 'linear-app', exact: true }).waitFor(WAIT);
        for (const name of ['Register webhook', 'Rotate secret', 'Delete']) await absent(view, 'button', name);
      } finally {
        await asViewer.tab.close();
      }

      const asMember = await signedIn(member.key, `automations/${bobs.id}`, 'Automation bob triage');
      try {
        const view = asMember.target;
        await view.getByText('Role: member', { exact: true }).waitFor(WAIT);
        expect(await view.getByText('Your key is a viewer: read only').count()).toBe(0);
        await view.getByText('Created by bob. Only bob or an admin can change or delete it; your key is a member.').waitFor(WAIT);
        await view.getByRole('button', { name: 'Run now' }).waitFor(WAIT);
        for (const name of ['Save changes', 'Delete automation']) await absent(view, 'button', name);
        // Its own (the key is alice's): changeable.
        await open('Automations', 'Automations', view);
        await view.getByRole('link', { name: 'triage crashes', exact: true }).click();
        await heading('Automation triage crashes', view);
        await view.getByRole('button', { name: 'Save changes' }).waitFor(WAIT);
        await open('Webhooks', 'Webhooks', view);
        await view.getByText('Registering, rotating and deleting webhook sources needs the admin role; your key is a member.').waitFor(WAIT);
        await absent(view, 'button', 'Register webhook');
      } finally {
        await asMember.tab.close();
        await bob.automations.delete(bobs.id);
      }
    }, 90_000);

    it('shows the audit log to the owner: a change with its actor, filtered, the chain verified and exported', async () => {
      const audited = await alice.automations.create({ name: 'audited', trigger: { type: 'event', source: 'linear', on: 'Audited' }, instructions: 'Triage' });
      try {
        await open('Audit log');
        await page.getByLabel('Action', { exact: true }).fill('automation.created');
        await page.getByLabel('Actor', { exact: true }).fill('alice');
        const row = page.getByRole('row').filter({ hasText: '"name":"audited"' });
        await row.getByRole('cell', { name: 'automation.created', exact: true }).waitFor(WAIT);
        await row.getByText('key, owner', { exact: true }).waitFor(WAIT);
        expect(await row.getByRole('cell').nth(2).textContent()).toContain('alice');
        // Only the filtered action is listed; the UI's automation is there too.
        await page.getByRole('row').filter({ hasText: '"name":"triage crashes"' }).waitFor(WAIT);
        expect(await page.getByRole('row').filter({ hasText: 'webhook.created' }).count()).toBe(0);
        await page.getByRole('button', { name: 'Verify chain' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /^Chain intact: \d+ entries$/ })
          .waitFor(WAIT);
        await shot('audit');
        const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.getByRole('button', { name: 'Download NDJSON' }).click()]);
        expect(download.suggestedFilename()).toBe('audit-log.ndjson');
        const lines = readFileSync(await download.path(), 'utf8')
          .trim()
          .split('\n');
        const exported = lines.map((line) => JSON.parse(line) as { action: string; target: { id: string } });
        expect(exported.every((entry) => entry.action === 'automation.created')).toBe(true);
        expect(exported.map((entry) => entry.target.id)).toContain(audited.id);
        // The target links to the automation's page.
        await row.getByRole('link', { name: `automation ${audited.id}` }).click();
        await heading('Automation audited');
      } finally {
        await alice.automations.delete(audited.id);
      }
    }, 60_000);

    it('signs out, forgetting the key', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading('Sign in to the agent-platform console');
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
      expect(problems).toEqual([]);
    }, 30_000);
  });
