/**
 * The settings that change the console itself, in headless Chromium against the reference server
 * (as test/e2e/console.test.ts drives the other pages), with the built-in agent on a scripted
 * fake LLM:
 *
 * - `language`: with `de` a conversation's time, the usage's counts and dollars and the day are
 *   written the German way (`28.11.2026, 14:03:09`, `12.345`, `0,04 $`); chosen on the settings
 *   page, `en` writes them the American way at once, and "the browser's language" the browser's
 *   (en-GB here). The console's words stay English.
 * - `enable_sound_notifications`: on, the console plays its sound (seen through an init script
 *   that records each Web Audio tone started) when a run on the runs list finishes, and when a
 *   conversation it shows waits for confirmation and then finishes — once for each, even when the
 *   finished run is opened afterwards; off, the same conversation plays nothing; turned on on the
 *   settings page, the next one sounds.
 *
 * The model holds a run's answer until the test lets it go, so the page sees the run working
 * before it sees it finished.
 */
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { accessibilityProblems, signInTab, waitForHeading } from './support/console-page.js';
import { createClient, type AgentPlatformClient } from '@agent-platform/client';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';

const ALICE = 'e2e-console-settings-alice-0123456789';
const BOB = 'e2e-console-settings-bob-0123456789';
const CAROL = 'e2e-console-settings-carol-0123456789';
const LLM_KEY = 'sk-e2e-console-settings-llm-4242';
const WAIT = { timeout: 30_000 };
const AGENT_WAIT = { timeout: 90_000 };
/** What the model reports a call used: counts with thousands in them. */
const USAGE = { input: 12_345, output: 655 };

/** The tones the page starts, recorded before its scripts run (page scripts as strings: this file has no DOM types). */
const RECORD_TONES = `(() => {
  window.__tones = [];
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__tones.push(this.frequency.value);
    return start.apply(this, args);
  };
})()`;
const FINISHED_SOUND = [660, 880];
const WAITING_SOUND = [880, 880];

/** A run's answer waits for this; the test lets it go. */
let releaseRun: () => void = () => {};
let runGate: Promise<void> = Promise.resolve();
const holdRuns = () => {
  runGate = new Promise((resolve) => {
    releaseRun = resolve;
  });
};

/**
 * The model: "Run one held command" runs a command (held in confirmation mode) and then
 * finishes; "Wait for the gate" answers once the test lets it; anything else finishes at once.
 */
async function respond(request: RecordedLlmRequest): Promise<FakeLlmTurn> {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const asked = JSON.stringify(messages.filter((message) => message.role === 'user'));
  const step = messages.filter((message) => message.role === 'assistant').length;
  if (asked.includes('Run one held command') && step === 0)
    return { toolCalls: [{ name: 'terminal', arguments: { command: 'echo held-command' } }], usage: USAGE };
  if (asked.includes('Wait for the gate')) {
    await runGate;
    return { text: 'Checked after the gate.', usage: USAGE };
  }
  return { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }], usage: USAGE };
}

/** `1234567` with `separator` between each three digits. */
const grouped = (value: number, separator: string) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, separator);
/** Intl writes some spaces as no-break ones (`0,04 $`): compared as plain spaces. */
const plain = (text: string | null) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ').trim();
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (value: number) => String(value).padStart(2, '0');

/** An instant as each language writes it to the second, in UTC (the browser's zone here). */
function written(iso: string) {
  const at = new Date(iso);
  const [day, month, year] = [at.getUTCDate(), at.getUTCMonth(), at.getUTCFullYear()];
  const [hours, minutes, seconds] = [at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()];
  return {
    de: `${two(day)}.${two(month + 1)}.${year}, ${two(hours)}:${two(minutes)}:${two(seconds)}`,
    enGB: `${day} ${MONTHS[month]} ${year}, ${two(hours)}:${two(minutes)}:${two(seconds)}`,
    enUS: `${MONTHS[month]} ${day}, ${year}, ${hours % 12 || 12}:${two(minutes)}:${two(seconds)} ${hours < 12 ? 'AM' : 'PM'}`,
  };
}

if (!chromiumAvailable())
  describe('the console’s language and sound in Chromium', () => it.skip('no Chromium here (scripts/browser-setup.sh installs it)', () => {}));
else
  describe('the console’s language and sound in Chromium', () => {
    let server: RunningServer;
    let llm: FakeLlmServer;
    let browser: Browser;
    let alice: AgentPlatformClient;
    let bob: AgentPlatformClient;
    let carol: AgentPlatformClient;
    let automationId = '';
    const problems: string[] = [];

    /** Changes only the settings named (`POST /api/v1/settings` is a partial update). */
    const save = (client: AgentPlatformClient, settings: Record<string, unknown>) => client.request('POST /api/v1/settings', { json: settings });
    const heading = (target: Page, name: string | RegExp) => waitForHeading(target, name, WAIT);
    const open = async (target: Page, link: string, title: string | RegExp = link) => {
      await target.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
      await heading(target, title);
    };
    const tones = (target: Page) => target.evaluate('window.__tones') as Promise<number[]>;
    const statusField = (target: Page) => target.locator('dl.fields dt:text-is("Status") + dd');
    /** A new tab (its own session storage) in an en-GB browser, signed in with `key`, recording the tones it plays. */
    const signedIn = async (key: string) => {
      const page = await signInTab(browser, {
        url: `${server.baseUrl}/console/deliveries`,
        key,
        problems,
        prepare: (context) => context.addInitScript(RECORD_TONES),
      });
      await heading(page, 'Deliveries');
      return page;
    };
    /** Starts a conversation from the Conversations page and waits for its page. */
    const startConversation = async (page: Page, task: string) => {
      await open(page, 'Conversations');
      await page.getByLabel('Task', { exact: true }).fill(task);
      await page.getByRole('button', { name: 'Start conversation' }).click();
      await heading(page, /^Conversation[ :]/);
    };
    /** Waits on a conversation's page until it holds its command, then accepts it and waits until it finished. */
    const confirmAndFinish = async (page: Page, onHold: () => Promise<void>) => {
      const hold = page.getByRole('article', { name: 'The agent is waiting for your confirmation' });
      await hold.getByText('held-command').waitFor(AGENT_WAIT);
      await onHold();
      await hold.getByRole('button', { name: 'Accept action' }).click();
      await statusField(page).getByText('finished', { exact: true }).waitFor(AGENT_WAIT);
    };
    /** The text of the first `<time>` in `scope`, and the instant it writes. */
    const firstTime = async (scope: Locator) => {
      const time = scope.locator('time').first();
      await time.waitFor(WAIT);
      return { text: plain(await time.textContent()), iso: (await time.getAttribute('datetime')) ?? '' };
    };

    beforeAll(async () => {
      llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
      server = await startServer('examples/server', {
        AGENT_PLATFORM_SANDBOX: 'process',
        AGENT_PLATFORM_API_KEYS: `alice@acme:${ALICE},bob@acme:${BOB},carol@acme:${CAROL}`,
        AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 11).toString('base64'),
      });
      const clientOf = (apiKey: string) => createClient({ baseUrl: server.baseUrl, apiKey });
      alice = clientOf(ALICE);
      bob = clientOf(BOB);
      carol = clientOf(CAROL);
      const llmSettings = { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1`, max_iterations: 5 };
      await save(alice, { ...llmSettings, enable_sound_notifications: true });
      await save(bob, { ...llmSettings, enable_sound_notifications: false, confirmation_mode: true });
      await save(carol, { ...llmSettings, language: 'de' });
      const automation = await alice.automations.create({
        name: 'gated check',
        trigger: { type: 'event', source: 'ci', on: 'never.sent' },
        instructions: 'Wait for the gate, then check',
      });
      automationId = automation.id;
      // Carol's spend and conversation, for the dates and numbers.
      const started = await carol.conversations.start({ initial_message: 'Say hello' });
      await carol.conversations.waitUntilReady(started.id, { timeoutMs: 60_000 });
      // The conversation's call is recorded as it is made: wait for it.
      for (let tries = 0; (await carol.budgets.usage()).total.llm_calls < 1 && tries < 300; tries++) await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await carol.budgets.usage()).total).toMatchObject({ llm_calls: 1, prompt_tokens: USAGE.input, completion_tokens: USAGE.output });
      browser = await launchChromium();
    }, 150_000);

    afterAll(async () => {
      releaseRun();
      await browser?.close();
      if (server) expect(await stopServer(server)).toBe(0);
      await llm?.close();
    }, 60_000);

    it('writes dates and numbers in the user’s language, and changes it on the settings page', async () => {
      const page = await signedIn(CAROL);
      try {
        const usage = (await carol.budgets.usage()).total;
        const day = new Date().toISOString().slice(0, 10);
        const [year, month, date] = day.split('-').map(Number) as [number, number, number];
        const spend = usage.cost_usd.toFixed(2);
        const totals = page.locator('dl.usage-totals');
        const total = (label: string) => totals.locator(`dt:text-is("${label}") + dd`);

        // German: the conversation's time, the usage's counts and dollars, and the day.
        await open(page, 'Conversations');
        const conversations = page.getByRole('table', { name: 'Conversations, newest first' });
        let time = await firstTime(conversations);
        expect(time.text).toBe(written(time.iso).de);
        await open(page, 'Usage');
        await total('Spend').getByText(/\$/).waitFor(WAIT);
        expect(plain(await total('Spend').textContent())).toBe(`${spend.replace('.', ',')} $`);
        expect(plain(await total('Tokens').textContent())).toMatch(
          new RegExp(`^${grouped(USAGE.input + USAGE.output, '\\.')}\\s*${grouped(USAGE.input, '\\.')} prompt, ${USAGE.output} completion$`),
        );
        // The day in German, the words around it in English (the console's own words are not translated).
        await page.getByRole('heading', { level: 2, name: new RegExp(`^Totals, .* to ${two(date)}\\.${two(month)}\\.${year}$`) }).waitFor(WAIT);

        // English, chosen on the settings page: written the American way, without a reload.
        await open(page, 'Settings');
        const form = page.getByRole('form', { name: 'Language and sound' });
        const language = form.getByRole('combobox', { name: /^Language/ });
        expect(await language.inputValue()).toBe('de');
        expect(await form.getByRole('option', { name: 'German — Deutsch (de)' }).count()).toBe(1);
        expect(await accessibilityProblems(page)).toEqual([]);
        await language.selectOption('en');
        await form.getByRole('button', { name: 'Save language and sound' }).click();
        await page.getByRole('status').filter({ hasText: 'Language and sound saved.' }).waitFor(WAIT);
        expect((await carol.settings.get()).language).toBe('en');
        await open(page, 'Conversations');
        await expect.poll(async () => (await firstTime(conversations)).text, WAIT).toBe(written(time.iso).enUS);
        await open(page, 'Usage');
        await total('Spend').getByText(`$${spend}`, { exact: true }).waitFor(WAIT);
        expect(plain(await total('Tokens').textContent())).toMatch(
          new RegExp(`^${grouped(USAGE.input + USAGE.output, ',')}\\s*${grouped(USAGE.input, ',')} prompt`),
        );
        await page.getByRole('heading', { level: 2, name: new RegExp(`^Totals, .* to ${MONTHS[month - 1]} ${date}, ${year}$`) }).waitFor(WAIT);

        // No language: the browser's (en-GB here).
        await open(page, 'Settings');
        await language.selectOption({ label: "The browser's language" });
        await form.getByRole('button', { name: 'Save language and sound' }).click();
        await page.getByRole('status').filter({ hasText: 'Language and sound saved.' }).waitFor(WAIT);
        expect((await carol.settings.get()).language).toBeNull();
        await open(page, 'Conversations');
        time = await firstTime(conversations);
        await expect.poll(async () => (await firstTime(conversations)).text, WAIT).toBe(written(time.iso).enGB);
        expect(await tones(page)).toEqual([]);
      } finally {
        await page.context().close();
      }
    }, 120_000);

    it('with sound on, plays the sound once when a run on the runs list finishes', async () => {
      const page = await signedIn(ALICE);
      try {
        holdRuns();
        await open(page, 'Runs');
        const run = await alice.automations.dispatch(automationId);
        const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: run.id, exact: true }) });
        // Seen working first: the model holds its answer.
        await row.getByText('RUNNING', { exact: true }).waitFor(AGENT_WAIT);
        expect(await tones(page)).toEqual([]);
        releaseRun();
        await row.getByText('COMPLETED', { exact: true }).waitFor(AGENT_WAIT);
        await expect.poll(() => tones(page), WAIT).toEqual(FINISHED_SOUND);
        // Opened afterwards, the finished run does not sound again.
        await row.getByRole('link', { name: run.id, exact: true }).click();
        await heading(page, `Run ${run.id}`);
        await statusField(page).getByText('COMPLETED', { exact: true }).waitFor(WAIT);
        expect(await tones(page)).toEqual(FINISHED_SOUND);
      } finally {
        await page.context().close();
      }
    }, 120_000);

    it('with sound on, plays the sound when a conversation waits for confirmation and again when it finishes', async () => {
      await save(alice, { confirmation_mode: true });
      const page = await signedIn(ALICE);
      try {
        await startConversation(page, 'Run one held command');
        await confirmAndFinish(page, async () => {
          await expect.poll(() => tones(page), WAIT).toEqual(WAITING_SOUND);
        });
        await expect.poll(() => tones(page), WAIT).toEqual([...WAITING_SOUND, ...FINISHED_SOUND]);
      } finally {
        await page.context().close();
      }
    }, 150_000);

    it('with sound off plays nothing; turned on on the settings page, the next conversation sounds', async () => {
      const page = await signedIn(BOB);
      try {
        await startConversation(page, 'Run one held command');
        await confirmAndFinish(page, async () => {});
        expect(await tones(page)).toEqual([]);

        await open(page, 'Settings');
        const form = page.getByRole('form', { name: 'Language and sound' });
        const sound = form.getByRole('switch', { name: /^Sound notifications/ });
        expect(await sound.isChecked()).toBe(false);
        await sound.check();
        await form.getByRole('button', { name: 'Save language and sound' }).click();
        await page.getByRole('status').filter({ hasText: 'Language and sound saved.' }).waitFor(WAIT);
        expect((await bob.settings.get()).enable_sound_notifications).toBe(true);

        await startConversation(page, 'Run one held command');
        await confirmAndFinish(page, async () => {
          await expect.poll(() => tones(page), WAIT).toEqual(WAITING_SOUND);
        });
        await expect.poll(() => tones(page), WAIT).toEqual([...WAITING_SOUND, ...FINISHED_SOUND]);
      } finally {
        await page.context().close();
      }
      expect(problems).toEqual([]);
    }, 180_000);
  });
