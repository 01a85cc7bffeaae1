/**
 * A run's page as a story, in headless Chromium against the reference server, its built-in agent
 * calling a scripted fake model in confirmation mode with the `llm` security analyzer: a
 * command printing coloured lines (rated LOW, run at once), a file created then edited (the edit
 * rated HIGH, held until alice approves it), then an answer in Markdown that tries to inject
 * HTML and script.
 *
 * The page follows the run live (the held edit shows as waiting; approved, the rest arrives
 * without a reload); its timeline lists the stages in order, their durations adding up to the
 * run's; the command's output keeps its lines and colours; the edit shows as a diff; the risk
 * ratings, the approval and each model call's tokens and cost show; the answer renders inert;
 * the raw events are a switch away; the copied link opens the run for bob (same org, not the
 * conversation's owner); the page never scrolls sideways at 1,280 px or 390 px; and it passes the
 * console's accessibility checks.
 *
 * `AGENT_PLATFORM_CONSOLE_SCREENSHOTS=1` writes its pictures to docs/console/.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type AgentPlatformClient, type Run } from '@agent-platform/client';
import { startFakeLlmServer, type FakeLlmServer, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { accessibilityProblems, signInTab, waitForHeading } from './support/console-page.js';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

const ALICE = 'e2e-story-alice-0123456789abcdef';
const BOB = 'e2e-story-bob-0123456789abcdef';
const LLM_KEY = 'sk-e2e-story-llm-key-4242';
const WAIT = { timeout: 30_000 };
const USAGE = { input: 2_000, output: 100 };
const LONG = `long-${'x'.repeat(400)}`;
const COMMAND = `printf '\\033[31mred line\\033[0m\\nsecond line\\n${LONG}\\n'`;
const ANSWER = [
  '**Done.** Changed `notes.md`:',
  '',
  '- alpha stays',
  '- beta became gamma',
  '',
  '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">',
  '',
  '[a link](javascript:window.__pwned=3) and [the docs](https://example.com/docs)',
].join('\n');

/** The script: a command, a new file, an edit of it (HIGH: held), then the answer; each call takes a moment. */
function respond(request: RecordedLlmRequest) {
  const step = (request.body.messages as { role: string }[]).filter((message) => message.role === 'assistant').length;
  const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }], usage: USAGE, delayMs: 150 });
  if (step === 0) return call('terminal', { command: COMMAND, security_risk: 'LOW' });
  if (step === 1) return call('file_editor', { command: 'create', path: 'notes.md', file_text: 'alpha\nbeta\n', security_risk: 'LOW' });
  if (step === 2) return call('file_editor', { command: 'str_replace', path: 'notes.md', old_str: 'beta', new_str: 'gamma', security_risk: 'HIGH' });
  return { text: ANSWER, usage: USAGE, delayMs: 150 };
}

const screenshotDir =
  process.env.AGENT_PLATFORM_CONSOLE_SCREENSHOTS === '1' ? path.join(root, 'docs/console') : mkdtempSync(path.join(tmpdir(), 'console-story-screenshots-'));

if (!chromiumAvailable()) describe('a run’s page as a story in Chromium', () => it.skip('no Chromium here (scripts/browser-setup.sh installs it)', () => {}));
else
  describe('a run’s page as a story in Chromium', () => {
    let server: RunningServer;
    let llm: FakeLlmServer;
    let browser: Browser;
    let alice: AgentPlatformClient;
    let page: Page;
    let run: Run;
    const problems: string[] = [];

    const heading = (target: Page, name: string | RegExp) => waitForHeading(target, name, WAIT);
    /** A new tab signed in with `key`, at `url`, that may use the clipboard (the run's link is copied there). */
    const signedIn = (key: string, url: string, width = 1280) =>
      signInTab(browser, {
        url,
        key,
        problems,
        width,
        prepare: (context) => context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl }),
      });
    /** How far the page scrolls sideways, and which of its blocks scroll in themselves. */
    const sideways = async (target: Page) =>
      (await target.evaluate(`(() => {
        const root = document.documentElement;
        const inner = [...document.querySelectorAll('main pre')].filter((box) => box.scrollWidth > box.clientWidth + 1).length;
        return { page: root.scrollWidth - root.clientWidth, inner };
      })()`)) as { page: number; inner: number };
    const timelineStages = async (target: Page) =>
      (await target.evaluate(`[...document.querySelectorAll('ol.timeline > li')].map((item) => ({
        label: item.querySelector('.stage-label').textContent,
        ms: Number(item.dataset.ms),
        live: item.classList.contains('stage-live'),
      }))`)) as { label: string; ms: number; live: boolean }[];
    const shot = (name: string, target: Page = page) => target.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });

    beforeAll(async () => {
      mkdirSync(screenshotDir, { recursive: true });
      llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
      server = await startServer('examples/server', {
        AGENT_PLATFORM_SANDBOX: 'process',
        AGENT_PLATFORM_API_KEYS: `alice@acme:${ALICE},bob@acme/member:${BOB}`,
        AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 11).toString('base64'),
      });
      alice = createClient({ baseUrl: server.baseUrl, apiKey: ALICE });
      await alice.settings.store({
        llm_model: 'openai/gpt-4o',
        llm_api_key: LLM_KEY,
        llm_base_url: `${llm.url}/v1`,
        confirmation_mode: true,
        security_analyzer: 'llm',
        max_iterations: 10,
      });
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      if (server) await stopServer(server);
      await llm?.close();
    });

    it('follows the run live: the held edit waits, and once approved the rest arrives without a reload', async () => {
      const automation = await alice.automations.create({
        name: 'tidy notes',
        trigger: { type: 'event', source: 'ci', on: 'never.sent' },
        instructions: 'Tidy **notes.md**: replace beta with gamma.',
      });
      run = await alice.automations.dispatch(automation.id);
      page = await signedIn(ALICE, `${server.baseUrl}/console/runs/${run.id}`);
      await heading(page, `Run ${run.id}`);
      const transcript = page.getByRole('log', { name: 'Transcript' });
      await transcript.getByText('Held for approval: waiting for an answer.').waitFor({ timeout: 60_000 });
      // Live: the timeline ends now, with the wait under way.
      const held = await timelineStages(page);
      expect(held.at(-1)).toMatchObject({ label: 'Waiting for approval', live: true });
      expect(await page.locator('ol.transcript > li.story-message').count()).toBe(1);
      await shot('run-story-held');

      const current = await alice.automations.getRun(run.id);
      await alice.conversations.respond(current.conversation_id!, { accept: true });
      await transcript.getByText('Held for approval: approved.').waitFor({ timeout: 60_000 });
      await page.locator('li.story-agent').getByText('Done.', { exact: true }).waitFor({ timeout: 60_000 });
      await page.locator('dl.fields dt:text-is("Status") + dd').getByText('COMPLETED', { exact: true }).waitFor({ timeout: 60_000 });
      run = await alice.automations.getRun(run.id);
      expect(run.status).toBe('COMPLETED');
    }, 120_000);

    it('lists the stages in order, with durations that add up to the run’s', async () => {
      await expect.poll(async () => (await timelineStages(page)).at(-1)?.label, WAIT).toBe('Run finished');
      const stages = await timelineStages(page);
      const labels = stages.map((stage) => stage.label);
      const inOrder = [
        'Queued',
        'Claimed: the attempt prepared',
        'Sandbox started',
        'Conversation opened with the task',
        'Model call 1',
        `Tool: $ ${COMMAND}`,
        'Model call 2',
        'Tool: create notes.md',
        'Model call 3',
        'Waiting for approval: approved',
        'Tool: str_replace notes.md',
        'Model call 4: the answer',
        'Closing: the sandbox removed, the outcome recorded',
        'Run finished',
      ];
      expect(labels.filter((label) => inOrder.includes(label))).toEqual(inOrder);
      expect(stages.every((stage) => stage.ms >= 0 && !stage.live)).toBe(true);
      const total = Date.parse(run.completed_at!) - Date.parse(run.created_at);
      expect(stages.reduce((sum, stage) => sum + stage.ms, 0)).toBe(total);
      expect(Number(await page.locator('ol.timeline').getAttribute('data-total-ms'))).toBe(total);
      // The model took its 150 ms a call: the timeline's model stages show it.
      for (const stage of stages.filter((item) => item.label.startsWith('Model call'))) expect(stage.ms).toBeGreaterThanOrEqual(150);
    });

    it('shows the command’s output in its lines and colours, the edits as diffs, the ratings, the approval and each call’s cost', async () => {
      const command = page.locator('li.story-command');
      await expect.poll(() => command.locator('.terminal-output .term-line').allInnerTexts()).toEqual(['red line\n', 'second line\n', `${LONG}\n`]);
      const red = command.locator('.terminal-output .ansi-fg-1');
      expect(await red.innerText()).toBe('red line');
      expect(await page.evaluate(`getComputedStyle(document.querySelector('li.story-command .ansi-fg-1')).color`)).toBe('rgb(255, 107, 107)');
      expect(await command.locator('.terminal-exit').innerText()).toBe('exit code 0');
      expect(await command.locator('.action-risk').innerText()).toContain('LOW');

      const [created, edited] = [page.locator('li.story-edit').nth(0), page.locator('li.story-edit').nth(1)];
      expect(await created.locator('.diff-add').allInnerTexts()).toEqual(['+alpha\n', '+beta\n']);
      expect(await edited.locator('.diff-del').allInnerTexts()).toEqual(['-beta\n']);
      expect(await edited.locator('.diff-add').allInnerTexts()).toEqual(['+gamma\n']);
      expect(await edited.locator('.action-risk').innerText()).toContain('HIGH');
      expect(await edited.locator('.approval').innerText()).toBe('Held for approval: approved.');

      // Four model calls of 2,000 tokens in and 100 out at gpt-4o's price: $0.006 each.
      const usage = await page.locator('.step-usage').allInnerTexts();
      expect(usage).toHaveLength(4);
      for (const line of usage) expect(line).toBe('openai/gpt-4o · 2,000 tokens in · 100 out · $0.0060');
    });

    it('renders the Markdown answer and the task, and the HTML and script in them stay text', async () => {
      const answer = page.locator('li.story-agent .markdown');
      await answer.locator('strong').getByText('Done.', { exact: true }).waitFor(WAIT);
      expect(await answer.locator('li').allInnerTexts()).toEqual(['alpha stays', 'beta became gamma']);
      expect(await answer.innerText()).toContain('<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">');
      expect(await answer.innerText()).toContain('[a link](javascript:window.__pwned=3)');
      expect(await page.evaluate(`[...document.querySelectorAll('li.story-agent .markdown a')].map((link) => link.getAttribute('href'))`)).toEqual([
        'https://example.com/docs',
      ]);
      expect(await page.evaluate('document.querySelectorAll("main script, main img, main [onerror]").length')).toBe(0);
      expect(await page.evaluate('window.__pwned')).toBeUndefined();
      // The answer beside the transcript, as the host would get it.
      await page.getByRole('complementary', { name: 'The answer' }).locator('strong').getByText('Done.', { exact: true }).waitFor(WAIT);
      await page.locator('li.story-task .markdown strong').getByText('notes.md', { exact: true }).waitFor(WAIT);
    });

    it('keeps the raw events a switch away', async () => {
      const events = await alice.automations.runEvents(run.id);
      await page.getByLabel('Raw events', { exact: true }).check();
      const raw = page.getByRole('list', { name: 'Events as stored' });
      await raw.waitFor(WAIT);
      expect(await raw.getByRole('listitem').count()).toBe(events.items.length);
      await raw.getByText('ConversationStateUpdateEvent').first().waitFor(WAIT);
      await page.getByLabel('Raw events', { exact: true }).uncheck();
      await page.getByRole('log', { name: 'Transcript' }).waitFor(WAIT);
    });

    it('fits 1,280 px and a phone without scrolling sideways, and passes the accessibility checks', async () => {
      expect(await sideways(page)).toEqual({ page: 0, inner: expect.any(Number) });
      expect((await sideways(page)).inner).toBeGreaterThan(0);
      expect(await accessibilityProblems(page)).toEqual([]);
      await shot('run-story');
      const phone = await signedIn(ALICE, `${server.baseUrl}/console/runs/${run.id}`, 390);
      await heading(phone, `Run ${run.id}`);
      await phone.locator('li.story-agent').getByText('Done.', { exact: true }).waitFor(WAIT);
      expect((await sideways(phone)).page).toBe(0);
      expect(await accessibilityProblems(phone)).toEqual([]);
      await shot('run-story-phone', phone);
      await phone.context().close();
    }, 60_000);

    it('copies a link that opens the run for another member of the org', async () => {
      await page.getByRole('button', { name: 'Copy link' }).click();
      await page.getByRole('status').filter({ hasText: 'Link copied: anyone signed in to this org can open the run.' }).waitFor(WAIT);
      const link = (await page.evaluate('navigator.clipboard.readText()')) as string;
      expect(link).toBe(`${server.baseUrl}/console/runs/${run.id}`);
      // Bob is not the conversation's owner: the run's events are the org's to read.
      const bob = await signedIn(BOB, link);
      await heading(bob, `Run ${run.id}`);
      await bob.locator('li.story-command .term-line').getByText('second line', { exact: true }).waitFor(WAIT);
      await bob.locator('li.story-edit .diff-add').getByText('+gamma', { exact: true }).waitFor(WAIT);
      expect((await timelineStages(bob)).at(-1)?.label).toBe('Run finished');
      await bob.context().close();
      expect(problems).toEqual([]);
    }, 60_000);
  });
