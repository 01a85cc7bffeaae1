/**
 * The console's Overview page (its home) in headless Chromium, as test/e2e/console-usage.test.ts
 * drives the Usage page: a reference server whose built-in agent calls a scripted fake LLM that
 * reports a fixed usage (10,000 tokens in, 500 out a call, priced as gpt-4o: $0.03 a call). The
 * test makes the runs it then reads: "nightly digest" twice (one call each, COMPLETED) and "flaky
 * deploy" once (a command at each step until `max_iterations` of 2 ends it FAILED, two calls) —
 * three runs, two completed and one failed, $0.12 in four calls.
 *
 * The page opens after sign-in and shows those counts by status over the period, the success
 * rate, p50/p95 as the API computed them, the queue, the spend by day and the failing automation
 * (linked to its page); the period picker changes the buckets and is kept in the address (a
 * reload keeps it); while a run is held by the model, and another waits behind it (one run at a
 * time), the page shows them running and queued, then finished, without a reload; it fits 1,280
 * px and a 390 px phone without scrolling sideways; the accessibility checks of the console's
 * other tests hold.
 *
 * `AGENT_PLATFORM_CONSOLE_SCREENSHOTS=1` writes its pictures to docs/console/overview*.png.
 */
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { accessibilityProblems, fitsWidth, signInTab, waitForHeading } from './support/console-page.js';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type AgentPlatformClient } from '@agent-platform/client';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDuration } from '../../packages/console/app/pages/overview-figures.js';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

const ALICE = 'e2e-overview-alice-0123456789abcdef';
const VICTOR = 'e2e-overview-victor-0123456789abcdef';
const LLM_KEY = 'sk-e2e-overview-llm-key-6060';
const WAIT = { timeout: 30_000 };
const USAGE = { input: 10_000, output: 500 };

/** Held answers: a task that says "hold" waits here until the test lets it go. */
let releaseHeld: () => void = () => {};
const held = new Promise<void>((resolve) => {
  releaseHeld = resolve;
});

/** A finish; for a task that says "fail" a command at every step (max_iterations ends it); for "hold" a finish once released. */
async function respond(request: RecordedLlmRequest): Promise<FakeLlmTurn> {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const asked = JSON.stringify(messages.filter((message) => message.role === 'user'));
  if (asked.includes('fail')) return { toolCalls: [{ name: 'terminal', arguments: { command: 'echo trying' } }], usage: USAGE };
  if (asked.includes('hold')) await held;
  return { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }], usage: USAGE };
}

const screenshotDir =
  process.env.AGENT_PLATFORM_CONSOLE_SCREENSHOTS === '1' ? path.join(root, 'docs/console') : mkdtempSync(path.join(tmpdir(), 'console-overview-screenshots-'));

/** The cells of a table's row, as text. */
const cells = async (row: Locator) => (await row.getByRole('cell').allTextContents()).map((text) => text.trim());
const today = () => new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date());

if (!chromiumAvailable())
  describe('the console’s Overview page in Chromium', () => it.skip('no Chromium here (scripts/browser-setup.sh installs it)', () => {}));
else
  describe('the console’s Overview page in Chromium', () => {
    let server: RunningServer;
    let llm: FakeLlmServer;
    let browser: Browser;
    let alice: AgentPlatformClient;
    let flakyId = '';
    let holdId = '';
    const problems: string[] = [];

    const heading = (target: Page, name: string | RegExp) => waitForHeading(target, name, WAIT);
    /** A new tab (its own session storage) signed in with `key` at the console's root, which opens on the Overview. */
    const signedIn = async (key: string, viewport = { width: 1280, height: 900 }) => {
      const page = await signInTab(browser, { url: `${server.baseUrl}/`, key, problems, ...viewport });
      await heading(page, 'Overview');
      expect(new URL(page.url()).pathname).toBe('/console');
      return page;
    };
    /** The figure shown under a term ("Runs", "Success rate", …): its value and its detail line. */
    const figure = (page: Page, term: string) => page.locator(`dl.overview-figures dt:text-is("${term}") + dd`);
    const figureValue = async (page: Page, term: string) => {
      const dd = figure(page, term);
      const all = (await dd.textContent()) ?? '';
      const detail = (await dd.locator('small.detail').textContent()) ?? '';
      return { value: all.slice(0, all.length - detail.length).trim(), detail: detail.trim() };
    };
    const section = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
    /** Opens a section's table (under its chart) and answers its rows' cells. */
    const tableOf = async (page: Page, name: string) => {
      const region = section(page, name);
      const details = region.locator('details');
      if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
      const headers = (await region.getByRole('columnheader').allTextContents()).map((text) => text.trim());
      const rows = region.getByRole('row');
      const body: string[][] = [];
      for (let index = 1; index < (await rows.count()); index++) body.push(await cells(rows.nth(index)));
      return { headers, body };
    };
    /** A column of a table as numbers, summed over its rows. */
    const columnSum = (table: { headers: string[]; body: string[][] }, header: string) => {
      const at = table.headers.indexOf(header);
      return at < 0 ? 0 : table.body.reduce((sum, row) => sum + Number((row[at] ?? '0').replace(/,/g, '')), 0);
    };
    /** The accessible name of a section's chart (its first picture). */
    const chartName = (page: Page, name: string) => section(page, name).locator('figure.chart svg').getAttribute('aria-label');

    beforeAll(async () => {
      mkdirSync(screenshotDir, { recursive: true });
      llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
      server = await startServer('examples/server', {
        AGENT_PLATFORM_SANDBOX: 'process',
        AGENT_PLATFORM_API_KEYS: `alice@acme:${ALICE},victor@acme/viewer:${VICTOR}`,
        AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
        // One run at a time: a second run waits (PENDING) while the held one runs.
        AGENT_PLATFORM_RUN_CONCURRENCY: '1',
      });
      alice = createClient({ baseUrl: server.baseUrl, apiKey: ALICE });
      await alice.settings.store({ llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1`, max_iterations: 2, llm_model: 'openai/gpt-4o' });

      const trigger = { type: 'event', source: 'ci', on: 'never.sent' } as const;
      const digest = await alice.automations.create({ name: 'nightly digest', trigger, instructions: 'Write the digest' });
      const flaky = await alice.automations.create({ name: 'flaky deploy', trigger, instructions: 'Deploy it, and fail' });
      const hold = await alice.automations.create({ name: 'held report', trigger, instructions: 'Report, and hold' });
      flakyId = flaky.id;
      holdId = hold.id;
      const runs = [];
      for (const id of [digest.id, digest.id, flaky.id]) runs.push((await alice.automations.dispatch(id)).id);
      const ended = [];
      for (const id of runs) ended.push((await alice.automations.waitForRun(id, { timeoutMs: 60_000 })).status);
      expect(ended, server.output.join('').slice(-4000)).toEqual(['COMPLETED', 'COMPLETED', 'FAILED']);

      // The figures the page is checked against, as the API reports them.
      const overview = await alice.overview.get();
      expect(overview.totals).toMatchObject({ COMPLETED: 2, FAILED: 1, PENDING: 0, RUNNING: 0 });
      expect(overview.failing_automations).toEqual([{ automation_id: flaky.id, name: 'flaky deploy', failed: 1, finished: 1 }]);
      expect((await alice.budgets.usage()).total).toMatchObject({ llm_calls: 4, prompt_tokens: 40_000, completion_tokens: 2000 });

      browser = await launchChromium();
    }, 150_000);

    afterAll(async () => {
      releaseHeld();
      await browser?.close();
      if (server) expect(await stopServer(server)).toBe(0);
      await llm?.close();
      if (process.env.AGENT_PLATFORM_CONSOLE_SCREENSHOTS !== '1') rmSync(screenshotDir, { recursive: true, force: true });
    }, 60_000);

    it('opens on the runs the test made: by status over the period, success rate, durations, queue, spend and the failing automation', async () => {
      const page = await signedIn(ALICE);
      try {
        await page.getByRole('heading', { level: 2, name: 'Last 7 days' }).waitFor(WAIT);
        const overview = await alice.overview.get();
        expect(await figureValue(page, 'Runs')).toEqual({ value: '3', detail: '0 running, 0 pending' });
        expect(await figureValue(page, 'Success rate')).toEqual({ value: '67%', detail: '2 completed, 1 failed' });
        expect(await figureValue(page, 'Duration p50')).toEqual({
          value: formatDuration(overview.duration_ms.p50, ['en-GB']),
          detail: `p95 ${formatDuration(overview.duration_ms.p95, ['en-GB'])}`,
        });
        expect(await figureValue(page, 'Queued now')).toEqual({ value: '0', detail: 'none waiting' });
        expect(await figureValue(page, 'Spend')).toEqual({ value: '$0.12', detail: '4 model calls' });

        // Runs by status: the picture's name says the counts; a bar per day of the period; the table has them by day.
        expect(await chartName(page, 'Runs by status')).toMatch(/^Runs created by day \(UTC\): 3 runs \(2 COMPLETED, 1 FAILED\); the most \d, /);
        expect(await section(page, 'Runs by status').locator('figure.chart svg > g').count()).toBe(overview.buckets.length);
        expect(await section(page, 'Runs by status').getByRole('listitem').allTextContents()).toEqual(['COMPLETED', 'FAILED']);
        const runs = await tableOf(page, 'Runs by status');
        expect(runs.headers).toEqual(['Day (UTC)', 'COMPLETED', 'FAILED', 'Total', 'Success rate']);
        expect([columnSum(runs, 'COMPLETED'), columnSum(runs, 'FAILED'), columnSum(runs, 'Total')]).toEqual([2, 1, 3]);
        if (runs.body.length === 1) expect(runs.body[0]).toEqual([today(), '2', '1', '3', '67%']);

        expect(await chartName(page, 'Success rate')).toMatch(/^Success rate by day \(UTC\): 67% over the period; the lowest /);
        const durations = section(page, 'Duration and queue');
        expect(await cells(durations.getByRole('row').filter({ hasText: 'p50' }))).toEqual([
          'p50 (median)',
          formatDuration(overview.duration_ms.p50, ['en-GB']),
          '',
        ]);
        await durations.getByRole('img', { name: /^p95: .+ of a p95 of / }).waitFor(WAIT);
        await durations.getByText('No run is waiting to start.').waitFor(WAIT);

        // Spend by day: the four calls' $0.12, today.
        expect(await chartName(page, 'Spend by day')).toMatch(/: \$0\.12; the most \$0\.12, /);
        const spend = await tableOf(page, 'Spend by day');
        expect(spend.body).toEqual([[today(), '$0.12', '4']]);

        // The automation failing most, linked to its page and to its failed runs.
        const failing = section(page, 'Failing most');
        expect(await cells(failing.getByRole('row').nth(1))).toEqual(['flaky deploy', '1', '1', '100%']);
        expect(await failing.getByRole('row').count()).toBe(2);
        await failing.getByRole('img', { name: 'flaky deploy: 100% of its finished runs failed' }).waitFor(WAIT);
        expect(await failing.getByRole('link', { name: '1', exact: true }).getAttribute('href')).toBe(
          `/console/runs?automation=${flakyId}&status=FAILED&age=7d`,
        );

        expect(await fitsWidth(page)).toEqual({ page: 0, boxes: [] });
        expect(await accessibilityProblems(page)).toEqual([]);
        await page.screenshot({ path: path.join(screenshotDir, 'overview.png'), fullPage: true });

        await failing.getByRole('link', { name: 'flaky deploy', exact: true }).click();
        await heading(page, 'Automation flaky deploy');
        expect(new URL(page.url()).pathname).toBe(`/console/automations/${flakyId}`);
        // Deliveries are still in the navigation; Overview takes the page back home.
        const nav = page.getByRole('navigation', { name: 'Console' });
        await nav.getByRole('link', { name: 'Deliveries', exact: true }).click();
        await heading(page, 'Deliveries');
        await nav.getByRole('link', { name: 'Overview', exact: true }).click();
        await heading(page, 'Overview');
        expect(await nav.getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current')).toBe('page');
      } finally {
        await page.context().close();
      }
    }, 90_000);

    it('changes the period, kept in the address: hourly for the last 24 hours, daily for 30 days', async () => {
      const page = await signedIn(ALICE);
      try {
        const period = page.getByRole('search', { name: 'Choose the period' }).getByRole('combobox', { name: /^Period/ });
        await period.selectOption({ label: 'Last 24 hours' });
        await page.getByRole('heading', { level: 2, name: 'Last 24 hours' }).waitFor(WAIT);
        expect(new URL(page.url()).search).toBe('?period=24h');
        expect(await chartName(page, 'Runs by status')).toMatch(/^Runs created by hour: 3 runs \(2 COMPLETED, 1 FAILED\)/);
        // 24 hours from a time that is not on the hour touch 25 hours (the API's first bucket starts at or before it).
        expect([24, 25]).toContain(await section(page, 'Runs by status').locator('figure.chart svg > g').count());
        const runs = await tableOf(page, 'Runs by status');
        expect(runs.headers[0]).toBe('Hour');
        expect(columnSum(runs, 'Total')).toBe(3);
        expect(await figureValue(page, 'Spend')).toEqual({ value: '$0.12', detail: '4 model calls' });

        // A link keeps the period: a reload opens the same one.
        await page.reload();
        await page.getByRole('heading', { level: 2, name: 'Last 24 hours' }).waitFor(WAIT);
        expect(await period.inputValue()).toBe('24h');

        await period.selectOption({ label: 'Last 30 days' });
        await page.getByRole('heading', { level: 2, name: 'Last 30 days' }).waitFor(WAIT);
        expect(new URL(page.url()).search).toBe('?period=30d');
        expect(await section(page, 'Runs by status').locator('figure.chart svg > g').count()).toBe(31);
        expect(await section(page, 'Spend by day').locator('figure.chart svg > g').count()).toBe(31);
        expect(columnSum(await tableOf(page, 'Runs by status'), 'Total')).toBe(3);
        expect(await section(page, 'Failing most').getByRole('link', { name: '1', exact: true }).getAttribute('href')).toBe(
          `/console/runs?automation=${flakyId}&status=FAILED&age=30d`,
        );
      } finally {
        await page.context().close();
      }
    }, 90_000);

    it('updates while a run goes: running and queued, then completed, without reloading', async () => {
      const page = await signedIn(ALICE);
      try {
        await page.getByRole('heading', { level: 2, name: 'Last 7 days' }).waitFor(WAIT);
        expect((await figureValue(page, 'Runs')).value).toBe('3');
        // A mark in the page's window: a reload would lose it.
        await page.evaluate('window.__overviewMark = 1');

        // The held run takes the one slot; the next one waits behind it.
        const first = await alice.automations.dispatch(holdId);
        await expect.poll(async () => (await alice.automations.getRun(first.id)).status, WAIT).toBe('RUNNING');
        const second = await alice.automations.dispatch(holdId);
        await expect.poll(async () => (await figureValue(page, 'Runs')).detail, WAIT).toBe('1 running, 1 pending');
        expect((await figureValue(page, 'Runs')).value).toBe('5');
        expect((await figureValue(page, 'Queued now')).value).toBe('1');
        expect((await figureValue(page, 'Queued now')).detail).toMatch(/^oldest waiting \d+(\.\d)? \S+$/);
        expect(await chartName(page, 'Runs by status')).toMatch(/: 5 runs \(2 COMPLETED, 1 FAILED, 1 RUNNING, 1 PENDING\)/);
        expect(await section(page, 'Runs by status').getByRole('listitem').allTextContents()).toEqual(['COMPLETED', 'FAILED', 'RUNNING', 'PENDING']);
        await section(page, 'Duration and queue')
          .getByText(/^1 run waiting to start \(whenever created\); the oldest since /)
          .waitFor(WAIT);
        expect(await accessibilityProblems(page)).toEqual([]);

        releaseHeld();
        for (const id of [first.id, second.id]) expect((await alice.automations.waitForRun(id, { timeoutMs: 60_000 })).status).toBe('COMPLETED');
        await expect.poll(async () => (await figureValue(page, 'Runs')).detail, WAIT).toBe('0 running, 0 pending');
        await expect.poll(async () => (await figureValue(page, 'Spend')).value, WAIT).toBe('$0.18');
        expect(await figureValue(page, 'Success rate')).toEqual({ value: '80%', detail: '4 completed, 1 failed' });
        expect(await figureValue(page, 'Queued now')).toEqual({ value: '0', detail: 'none waiting' });
        expect(await chartName(page, 'Runs by status')).toMatch(/: 5 runs \(4 COMPLETED, 1 FAILED\)/);
        expect(columnSum(await tableOf(page, 'Runs by status'), 'COMPLETED')).toBe(4);
        expect(await page.evaluate('window.__overviewMark')).toBe(1);
      } finally {
        releaseHeld();
        await page.context().close();
      }
    }, 120_000);

    it('fits a 390 px phone for a viewer, with the same figures and the accessibility checks', async () => {
      const page = await signedIn(VICTOR, { width: 390, height: 844 });
      try {
        await page.getByText('Role: viewer', { exact: true }).waitFor(WAIT);
        await page.getByRole('heading', { level: 2, name: 'Last 7 days' }).waitFor(WAIT);
        expect((await figureValue(page, 'Runs')).value).toBe('5');
        await tableOf(page, 'Runs by status');
        await tableOf(page, 'Spend by day');
        expect(await fitsWidth(page)).toEqual({ page: 0, boxes: [] });
        expect(await accessibilityProblems(page)).toEqual([]);
        await page.screenshot({ path: path.join(screenshotDir, 'overview-phone.png'), fullPage: true });
      } finally {
        await page.context().close();
      }
      expect(problems).toEqual([]);
    }, 60_000);
  });
