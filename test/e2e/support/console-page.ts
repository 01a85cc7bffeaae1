/**
 * The console's browser tests, shared: a tab signed in with an API key that records what went
 * wrong on the page, the accessibility checks the console's notes promise, and whether a page
 * fits its window. Each test file keeps what is its own page's.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** How long a heading, a status or a row may take to show (a loaded CI machine's reference server). */
export const CONSOLE_WAIT = { timeout: 30_000 };

/** Waits for the page's one `h1` named `name`. */
export const waitForHeading = (page: Page, name: string | RegExp, wait = CONSOLE_WAIT) => page.getByRole('heading', { level: 1, name }).waitFor(wait);

/**
 * Records the tab's uncaught errors, its console errors and any Content Security Policy report in
 * `problems`. A request the server refused (a 422 a test asks for on purpose) is logged by the
 * browser as "Failed to load resource": not a problem of the page.
 */
export function recordProblems(page: Page, problems: string[]): void {
  page.on('pageerror', (error) => problems.push(`page error: ${error}`));
  page.on('console', (message) => {
    if ((message.type() === 'error' && !/^Failed to load resource/.test(message.text())) || /Content.Security.Policy/i.test(message.text())) {
      problems.push(`console ${message.type()}: ${message.text()}`);
    }
  });
}

export interface SignInOptions {
  /** Where the tab opens; the console shows its sign-in form there. */
  url: string;
  /** The API key typed into the form. */
  key: string;
  /** Where the tab's problems go ({@link recordProblems}). */
  problems: string[];
  /** The window's width. Default 1,280 px (a phone: 390). */
  width?: number;
  /** The window's height. Default 900 px. */
  height?: number;
  /** Anything the context needs before its page opens (permissions, init scripts). */
  prepare?: (context: BrowserContext) => Promise<unknown>;
}

/**
 * A new tab in a context of its own (its own session storage), in an en-GB browser on UTC, signed
 * in with `key` at `url`. The caller waits for the page it expects.
 */
export async function signInTab(browser: Browser, options: SignInOptions): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 }, locale: 'en-GB', timezoneId: 'UTC' });
  await options.prepare?.(context);
  const page = await context.newPage();
  recordProblems(page, options.problems);
  await page.goto(options.url);
  await page.getByLabel('API key', { exact: true }).fill(options.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return page;
}

/**
 * What the console's accessibility notes promise, checked on the page as it stands: one `h1` and
 * one `main`; every field labelled and its hints there; every table captioned with header cells;
 * every button, link, progress bar and picture named; a block that scrolls by itself reachable by
 * keyboard; ids unique. Answers the problems found (none: `[]`).
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const problems = [];
    if (document.querySelectorAll('h1').length !== 1) problems.push('not one h1');
    if (document.querySelectorAll('main, [role=main]').length !== 1) problems.push('not one main');
    for (const field of document.querySelectorAll('input, select, textarea')) {
      if (field.type === 'hidden') continue;
      if (field.labels.length === 0 && !field.getAttribute('aria-label') && !field.getAttribute('aria-labelledby')) problems.push('unlabelled ' + (field.name || field.type));
      for (const id of (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean)) if (!document.getElementById(id)) problems.push('missing hint ' + id);
    }
    for (const table of document.querySelectorAll('main table')) {
      if (!table.querySelector('caption')?.textContent?.trim()) problems.push('table without a caption');
      if (table.querySelectorAll('thead th[scope=col]').length === 0) problems.push('table without header cells');
    }
    for (const button of document.querySelectorAll('button')) if (!button.textContent.trim() && !button.getAttribute('aria-label')) problems.push('button without a name');
    for (const link of document.querySelectorAll('a')) if (!link.textContent.trim() && !link.getAttribute('aria-label')) problems.push('link without a name');
    for (const bar of document.querySelectorAll('progress')) if (!bar.getAttribute('aria-label')) problems.push('progress without a name');
    for (const picture of document.querySelectorAll('svg')) if (picture.getAttribute('role') !== 'img' || !picture.getAttribute('aria-label')) problems.push('svg without a name');
    for (const box of document.querySelectorAll('main pre')) if (box.scrollWidth > box.clientWidth + 1 && box.tabIndex < 0) problems.push('a scrolling block keyboard users cannot focus');
    const ids = [...document.querySelectorAll('[id]')].map((element) => element.id);
    if (new Set(ids).size !== ids.length) problems.push('duplicate ids');
    return problems;
  })()`)) as string[];
}

/**
 * Whether the page fits its window: how far it scrolls sideways (0 when it fits), and the
 * captions of the tables that scroll inside their box (`.overflow-auto`).
 */
export async function fitsWidth(page: Page): Promise<{ page: number; boxes: string[] }> {
  return (await page.evaluate(`(() => {
    const root = document.documentElement;
    const boxes = [...document.querySelectorAll('.overflow-auto')].filter((box) => box.scrollWidth > box.clientWidth + 1);
    return { page: root.scrollWidth - root.clientWidth, boxes: boxes.map((box) => box.querySelector('caption')?.textContent ?? '?') };
  })()`)) as { page: number; boxes: string[] };
}
