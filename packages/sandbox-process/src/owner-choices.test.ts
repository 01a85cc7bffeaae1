import { afterAll, describe, expect, it } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import { DEFAULT_SPEC_ID, createProcessRuntime } from './index.js';

describe('the process runtime and an owner’s choices', () => {
  const runtime = createProcessRuntime();
  afterAll(() => runtime.close());

  it('refuses a requested container image with a clear VALIDATION_FAILED, and starts nothing', async () => {
    expect(runtime.allowedImages).toBeUndefined();
    const error = await runtime.start({ sandboxId: 'sbx-image', specId: DEFAULT_SPEC_ID, image: 'ghcr.io/acme/sandbox:1' }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ loc: ['image'] }] });
    expect((error as Error).message).toBe(
      'The process runtime runs no container images: it cannot start a sandbox from "ghcr.io/acme/sandbox:1"; the allowed images are: none',
    );
    expect((await runtime.inspect('sbx-image')).status).toBe('MISSING');
  });

  it('declares that it takes no owner’s credential', () => {
    expect(runtime.takesOwnerCredential).toBe(false);
  });
});
