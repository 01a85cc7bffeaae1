/**
 * Waiting in end-to-end tests: ask again every 50 ms until the answer is what the test waits for,
 * and fail with what was last seen once the bound passes (bounds are far above the normal time,
 * so a slow machine does not fail a test, and a test that waits in vain still ends).
 * @module
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` holds; throws `timed out` after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

/**
 * Reads with `read` until `done` holds for what it read, and resolves to it; after `ms`, throws
 * `failure` with the last value read.
 */
export async function pollFor<T>(read: () => Promise<T>, done: (value: T) => boolean, failure: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${failure}: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}
