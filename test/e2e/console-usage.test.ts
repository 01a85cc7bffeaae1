/**
 * The console's Usage page in headless Chromium (as test/e2e/console.test.ts drives the others),
 * over spend recorded the way it is in production: the reference server's built-in agent calls a
 * scripted fake LLM that reports a fixed usage (10,000 tokens in, 500 out a call), priced as
 * gpt-4o for alice ($0.03 a call) and as gpt-4o-mini for bob ($0.0018 a call). Alice's automation
 * makes two calls, her API conversation one, bob's automation one: $0.0918 in four calls.
 *
 * The page shows those totals, by day, user, automation (named and linked; the conversation as
 * "API conversations") and model; the period picker changes the days (and a range the API
 * refuses shows its 422); the owner sets budgets with the form (one over its limit is marked
 * exceeded), sees a refused one's issue with its field, and removes one; a viewer reads all of it
 * without the form or a remove button; the page fits 1,280 px without scrolling sideways, and
 * passes the checks the console's accessibility notes promise (one h1 and main, every field
 * labelled, every table captioned, the chart named).
 *
 * `AGENT_PLATFORM_CONSOLE_SCREENSHOTS=1` writes its picture to docs/console/usage.png.
 */
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { accessibilityProblems, fitsWidth, signInTab, waitForHeading } from './support/console-page.js';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type AgentPlatformClient } from '@agent-platform/client';
import { startFakeLlmServer, type FakeLlmServer, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

const ALICE = 'e2e-usage-alice-0123456789abcdef';
const BOB = 'e2e-usage-bob-0123456789abcdef';
const VICTOR = 'e2e-usage-victor-0123456789abcdef';
const LLM_KEY = 'sk-e2e-usage-llm-key-8080';
const WAIT = { timeout: 30_000 };
const USAGE = { input: 10_000, output: 500 };

/** One call to finish, or for a task that says "two steps" a command first. */
function respond(request: RecordedLlmRequest) {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const asked = JSON.stringify(messages.filter((message) => message.role === 'user'));
  const step = messages.filter((message) => message.role === 'assistant').length;
  if (asked.includes('two steps') && step === 0) return { toolCalls: [{ name: 'terminal', arguments: { command: 'echo step one' } }], usage: USAGE };
  return { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }], usage: USAGE };
}

const screenshotDir =
  process.env.AGENT_PLATFORM_CONSOLE_SCREENSHOTS === '1' ? path.join(root, 'docs/console') : mkdtempSync(path.join(tmpdir(), 'console-usage-screenshots-'));

/** The cells of a table's row, as text. */
/** A row's cells as the reader sees them, once the row is there (a status can announce a change before its table shows it). */
const cells = async (row: Locator) => {
  await row.getByRole('cell').first().waitFor(WAIT);
  return (await row.getByRole('cell').allInnerTexts()).map((text) => text.trim());
};

if (!chromiumAvailable()) describe('the console’s Usage page in Chromium', () => it.skip('no Chromium here (scripts/browser-setup.sh installs it)', () => {}));
else
  describe('the console’s Usage page in Chromium', () => {
    let server: RunningServer;
    let llm: FakeLlmServer;
    let browser: Browser;
    let alice: AgentPlatformClient;
    let digestId = '';
    const problems: string[] = [];

    const heading = (target: Page, name: string | RegExp) => waitForHeading(target, name, WAIT);
    /** A new tab (its own session storage) signed in with `key` on the Usage page. */
    const signedIn = async (key: string) => {
      const page = await signInTab(browser, { url: `${server.baseUrl}/console/deliveries`, key, problems });
      await heading(page, 'Deliveries');
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Usage', exact: true }).click();
      await heading(page, 'Usage');
      return page;
    };
    /** The total shown under a label ("Spend", "Model calls", "Tokens"). */
    const total = (page: Page, label: string) => page.locator(`dl.usage-totals dt:text-is("${label}") + dd`);
    const section = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

    beforeAll(async () => {
      mkdirSync(screenshotDir, { recursive: true });
      llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
      server = await startServer('examples/server', {
        AGENT_PLATFORM_SANDBOX: 'process',
        AGENT_PLATFORM_API_KEYS: `alice@acme:${ALICE},bob@acme/member:${BOB},victor@acme/viewer:${VICTOR}`,
        AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      });
      alice = createClient({ baseUrl: server.baseUrl, apiKey: ALICE });
      const bob = createClient({ baseUrl: server.baseUrl, apiKey: BOB });
      const llmSettings = { llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1`, max_iterations: 5 };
      await alice.settings.store({ ...llmSettings, llm_model: 'openai/gpt-4o' });
      await bob.settings.store({ ...llmSettings, llm_model: 'openai/gpt-4o-mini' });

      const trigger = { type: 'event', source: 'ci', on: 'never.sent' } as const;
      const digest = await alice.automations.create({ name: 'nightly digest', trigger, instructions: 'Write the digest in two steps' });
      digestId = digest.id;
      const triage = await bob.automations.create({ name: 'bob triage', trigger, instructions: 'Triage it' });
      const runs = await Promise.all([alice.automations.dispatch(digest.id), bob.automations.dispatch(triage.id)])
        .then((started) => started.map((run) => run.id))
        .catch((error) => {
          // The server's log says why.
          throw new Error(`${error}\n${server.output.join('').slice(-4000)}`);
        });
      for (const id of runs) expect((await alice.automations.waitForRun(id, { timeoutMs: 60_000 })).status).toBe('COMPLETED');
      await alice.conversations.start({ initial_message: 'Say hello' });
      // The conversation's call is recorded as it is made: wait for it.
      for (let tries = 0; (await alice.budgets.usage()).total.llm_calls < 4 && tries < 300; tries++) await new Promise((resolve) => setTimeout(resolve, 200));

      // The spend the page is checked against, as the API reports it.
      const usage = await alice.budgets.usage();
      expect(usage.total.cost_usd).toBeCloseTo(0.0918, 8);
      expect(usage.total).toMatchObject({ llm_calls: 4, prompt_tokens: 40_000, completion_tokens: 2000 });
      expect(usage.by_user.map((row) => [row.user_id, row.llm_calls])).toEqual([
        ['alice', 3],
        ['bob', 1],
      ]);
      expect(usage.by_automation.map((row) => [row.automation_id, row.llm_calls])).toEqual([
        [digest.id, 2],
        [null, 1],
        [triage.id, 1],
      ]);
      expect(usage.by_model.map((row) => row.model)).toEqual(['openai/gpt-4o', 'openai/gpt-4o-mini']);

      browser = await launchChromium();
    }, 150_000);

    afterAll(async () => {
      await browser?.close();
      if (server) expect(await stopServer(server)).toBe(0);
      await llm?.close();
      if (process.env.AGENT_PLATFORM_CONSOLE_SCREENSHOTS !== '1') rmSync(screenshotDir, { recursive: true, force: true });
    }, 60_000);

    it('shows the spend the runs and the conversation recorded: totals, by day, by user, by automation and by model', async () => {
      const page = await signedIn(ALICE);
      try {
        await total(page, 'Spend').getByText('$0.09', { exact: true }).waitFor(WAIT);
        expect(await total(page, 'Model calls').textContent()).toBe('4');
        expect(await total(page, 'Tokens').textContent()).toMatch(/^42,000\s*40,000 prompt, 2,000 completion$/);

        const byUser = section(page, 'By user');
        expect(await cells(byUser.getByRole('row').filter({ hasText: 'alice' }))).toEqual(['alice', '$0.09', '98%', '3', '30,000', '1,500']);
        // Under a cent: four decimals, not $0.00.
        expect(await cells(byUser.getByRole('row').filter({ hasText: 'bob' }))).toEqual(['bob', '$0.0018', '2%', '1', '10,000', '500']);

        const byAutomation = section(page, 'By automation');
        const rows = byAutomation.getByRole('row');
        expect(await rows.count()).toBe(4);
        expect(await cells(rows.nth(1))).toEqual(['nightly digest', '$0.06', '65%', '2', '20,000', '1,000']);
        expect(await cells(rows.nth(2))).toEqual(['API conversations', '$0.03', '33%', '1', '10,000', '500']);
        expect(await cells(rows.nth(3))).toEqual(['bob triage', '$0.0018', '2%', '1', '10,000', '500']);
        expect(await rows.nth(2).getByRole('link').count()).toBe(0);

        const byModel = section(page, 'By model');
        expect(await cells(byModel.getByRole('row').filter({ hasText: 'openai/gpt-4o-mini' }))).toEqual([
          'openai/gpt-4o-mini',
          '$0.0018',
          '2%',
          '1',
          '10,000',
          '500',
        ]);
        expect(await byModel.getByRole('row').count()).toBe(3);

        // The chart is named by its summary; its numbers are in the table under it.
        const byDay = section(page, 'By day');
        const today = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date());
        const chart = byDay.getByRole('img');
        expect(await chart.getAttribute('aria-label')).toMatch(new RegExp(`: 1 of 30 days with spend, the most \\$0\\.09 on ${today}$`));
        expect(await chart.locator('rect').count()).toBe(30);
        await byDay.getByText('Spend by day as a table').click();
        expect(await cells(byDay.getByRole('row').filter({ hasText: today }))).toEqual([today, '$0.09', '100%', '4', '40,000', '2,000']);

        expect(await fitsWidth(page)).toEqual({ page: 0, boxes: [] });
        expect(await accessibilityProblems(page)).toEqual([]);

        // The automation's name opens its page.
        await rows.nth(1).getByRole('link', { name: 'nightly digest', exact: true }).click();
        await heading(page, 'Automation nightly digest');
        expect(new URL(page.url()).pathname).toBe(`/console/automations/${digestId}`);
      } finally {
        await page.context().close();
      }
    }, 90_000);

    it('changes the period: the last 7 days, chosen dates, and a range the API refuses shown with its field', async () => {
      const page = await signedIn(ALICE);
      try {
        const totals = page.getByRole('heading', { level: 2, name: /^Totals, / });
        await total(page, 'Spend').getByText('$0.09', { exact: true }).waitFor(WAIT);
        // A label around a select names it with the chosen option too.
        const period = page.getByRole('search', { name: 'Choose the period' }).getByRole('combobox', { name: /^Period/ });
        await period.selectOption({ label: 'Last 7 days' });
        await section(page, 'By day')
          .getByRole('img', { name: /: 1 of 7 days with spend/ })
          .waitFor(WAIT);
        expect(await total(page, 'Spend').textContent()).toBe('$0.09');

        await period.selectOption({ label: 'Chosen dates' });
        await page.getByLabel('From', { exact: true }).fill('2020-01-01');
        // More than 366 days: the API's 422, with the field it is about.
        const refused = page.getByRole('alert').filter({ hasText: 'Loading the usage failed' });
        await refused.waitFor(WAIT);
        expect(await refused.textContent()).toMatch(/to: a usage report covers at most 366 days/);
        await page.getByLabel('To', { exact: true }).fill('2020-01-10');
        await totals.filter({ hasText: '1 Jan 2020 to 10 Jan 2020' }).waitFor(WAIT);
        await page.getByText('No model calls were recorded from 1 Jan 2020 to 10 Jan 2020.').waitFor(WAIT);
        expect(await refused.count()).toBe(0);
        expect(await total(page, 'Spend').textContent()).toBe('$0.00');
      } finally {
        await page.context().close();
      }
    }, 90_000);

    it('lets the owner set budgets with the form, see their spend and state, read a refused one’s issue, and remove one', async () => {
      const page = await signedIn(ALICE);
      try {
        const budgets = section(page, 'Budgets');
        await budgets.getByText('No budgets: spend is not capped.').waitFor(WAIT);
        const form = page.getByRole('form', { name: 'Set a budget' });

        await form.getByRole('combobox', { name: /^Caps/ }).selectOption('automation');
        await form.getByRole('combobox', { name: /^Automation/ }).selectOption({ label: 'nightly digest' });
        await form.getByRole('combobox', { name: /^Period/ }).selectOption('month');
        await form.getByLabel('Limit (USD)', { exact: true }).fill('1');
        await form.getByRole('button', { name: 'Set budget' }).click();
        await budgets.getByRole('status').filter({ hasText: 'Budget of automation nightly digest per month set to $1.00.' }).waitFor(WAIT);
        const digestRow = budgets.getByRole('row').filter({ hasText: 'Automation nightly digest' });
        const digestCells = await cells(digestRow);
        expect(digestCells.slice(0, 4)).toEqual([
          'Automation nightly digest',
          'per month',
          expect.stringMatching(/^\$0\.06 of \$1\.00\s+since 1 \w{3} \d{4}$/),
          'within',
        ]);
        expect(digestCells[4]).toMatch(/^1 \w{3} \d{4}, 00:00 UTC$/);
        expect(digestCells[5]).toBe('alice');
        expect(
          await digestRow.getByRole('progressbar', { name: 'Spent by automation nightly digest per month: $0.06 of $1.00' }).getAttribute('value'),
        ).toMatch(/^6(\.0+\d*)?$/);

        // A day's cap on the org below what was spent today: exceeded.
        await form.getByRole('combobox', { name: /^Caps/ }).selectOption('org');
        await form.getByRole('combobox', { name: /^Period/ }).selectOption('day');
        await form.getByLabel('Limit (USD)', { exact: true }).fill('0.05');
        await form.getByRole('button', { name: 'Set budget' }).click();
        const orgRow = budgets.getByRole('row').filter({ hasText: 'The org' });
        await orgRow.getByText('exceeded', { exact: true }).waitFor(WAIT);
        expect((await cells(orgRow)).slice(0, 3)).toEqual(['The org', 'per day', expect.stringMatching(/^\$0\.09 of \$0\.05\s/)]);

        // A limit of 0 is refused by the API: its issue is shown with the field.
        await form.getByRole('combobox', { name: /^Caps/ }).selectOption('user');
        await form.getByLabel('User id', { exact: true }).fill('bob');
        await form.getByLabel('Limit (USD)', { exact: true }).fill('0');
        await form.getByRole('button', { name: 'Set budget' }).click();
        const refused = form.getByRole('alert').filter({ hasText: 'Setting the budget failed' });
        await refused.getByText(/^limit_usd: /).waitFor(WAIT);
        await form.getByLabel('Limit (USD)', { exact: true }).fill('0.5');
        await form.getByRole('button', { name: 'Set budget' }).click();
        await budgets.getByRole('row').filter({ hasText: 'User bob' }).waitFor(WAIT);
        expect(await refused.count()).toBe(0);

        const stored = (await alice.budgets.list()).budgets;
        expect(stored.map((budget) => [budget.scope, budget.subject_id, budget.period, budget.limit_usd]).sort()).toEqual([
          ['automation', digestId, 'month', 1],
          ['org', null, 'day', 0.05],
          ['user', 'bob', 'day', 0.5],
        ]);
        expect(await fitsWidth(page)).toEqual({ page: 0, boxes: [] });
        expect(await accessibilityProblems(page)).toEqual([]);
        await page.screenshot({ path: path.join(screenshotDir, 'usage.png'), fullPage: true });

        // Removing asks once more.
        await orgRow.getByRole('button', { name: 'Remove budget of the org per day' }).click();
        await orgRow.getByRole('button', { name: 'Remove budget', exact: true }).click();
        await budgets.getByRole('status').filter({ hasText: 'Budget of the org per day removed.' }).waitFor(WAIT);
        await expect.poll(() => orgRow.count()).toBe(0);
        expect((await alice.budgets.list()).budgets).toHaveLength(2);
      } finally {
        await page.context().close();
      }
    }, 90_000);

    it('shows a viewer the usage and the budgets, without the form or a remove button', async () => {
      const page = await signedIn(VICTOR);
      try {
        await page.getByText('Role: viewer', { exact: true }).waitFor(WAIT);
        await total(page, 'Spend').getByText('$0.09', { exact: true }).waitFor(WAIT);
        const budgets = section(page, 'Budgets');
        await budgets.getByRole('row').filter({ hasText: 'Automation nightly digest' }).waitFor(WAIT);
        await budgets.getByText('Setting and removing budgets needs the owner role; your key is a viewer.').waitFor(WAIT);
        expect(await page.getByRole('form', { name: 'Set a budget' }).count()).toBe(0);
        expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
        expect(await budgets.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
        expect(await fitsWidth(page)).toEqual({ page: 0, boxes: [] });
        expect(await accessibilityProblems(page)).toEqual([]);
      } finally {
        await page.context().close();
      }
      expect(problems).toEqual([]);
    }, 60_000);
  });
