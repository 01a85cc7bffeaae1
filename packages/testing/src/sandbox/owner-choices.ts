/**
 * Conformance: what an owner's settings ask of a start. An image is run only when the runtime
 * allows it (a runtime that cannot change images refuses every one), and refused with the list
 * otherwise, before anything is created; an owner's credential is for the runtime's service and
 * never reaches the sandbox.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import { imageAllowed } from '@agent-platform/core/adapter-kit';
import { uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { execOk } from './helpers.js';

export function describeOwnerChoices(ctx: SuiteContext): void {
  describe('owner choices', () => {
    it('an image the runtime does not allow is refused with VALIDATION_FAILED listing the allowed ones, and nothing is created', async () => {
      const allowed = ctx.runtime.allowedImages ? await ctx.runtime.allowedImages() : [];
      const image = `agent-platform.invalid/${uniqueId('img').toLowerCase()}:1`;
      if (imageAllowed(image, allowed)) return; // a runtime that allows every image has none to refuse
      const sandboxId = uniqueId('sbx');
      const error = await ctx.start({ sandboxId, image }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).code).toBe('VALIDATION_FAILED');
      const message = (error as PlatformError).message;
      expect(message).toContain(image);
      for (const entry of allowed) expect(message).toContain(entry);
      expect((await ctx.runtime.inspect(sandboxId)).status).toBe('MISSING');
    });

    it('an allowed image (the first exact reference allowedImages lists) runs, and inspect says so', async () => {
      const image = (ctx.runtime.allowedImages ? await ctx.runtime.allowedImages() : []).find((entry) => !entry.endsWith('*'));
      if (!image) return; // a runtime that cannot change images (or lists patterns only)
      const started = await ctx.start({ image });
      expect(started.status).toBe('RUNNING');
      expect(started.image).toBe(image);
      expect((await ctx.runtime.inspect(started.id)).image).toBe(image);
    });

    it('takesOwnerCredential is a boolean when present, and an owner’s credential never reaches the sandbox or what inspect reports', async () => {
      const declared = ctx.runtime.takesOwnerCredential;
      expect(declared === undefined || typeof declared === 'boolean').toBe(true);
      const credential = `owner-credential-${uniqueId('key')}`;
      const started = await ctx.start({ ownerCredential: credential });
      expect(started.status).toBe('RUNNING');
      expect(await execOk(ctx.runtime, started.id, 'env')).not.toContain(credential);
      expect(JSON.stringify(await ctx.runtime.inspect(started.id))).not.toContain(credential);
    });
  });
}
