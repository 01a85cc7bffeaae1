/**
 * Headless Chromium for the browser tests (Debian's, from `scripts/browser-setup.sh`), driven by
 * playwright-core: where it is, whether it is there (in CI its absence is an error, not a skip),
 * and a launch with the flags that keep it quiet and off the network it has no business with.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.AGENT_PLATFORM_CHROMIUM ?? '/usr/bin/chromium';

/** Whether Chromium is installed here; throws in CI, where it must be. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') throw new Error(`no Chromium at ${CHROMIUM} (run scripts/browser-setup.sh)`);
  return false;
}

/** A headless Chromium without sandbox, GPU, QUIC, first-run pages, updates, sync or background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
