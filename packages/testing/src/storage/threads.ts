/**
 * Conformance: `threads` — the code-host threads of thread automations, keyed by (org,
 * automation, key): a put inserts or replaces the whole record, a get finds exactly the record
 * of its three keys (never another org's or automation's thread of the same key, never a
 * look-alike key), records are copied in and out, and a put is part of a transaction like any
 * other write.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { ThreadRecord } from '@agent-platform/core';
import { fixtureTime, makeThreadRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { HOSTILE_TEXTS } from './hostile-inputs.js';

/** `thread` as a later run leaves it: another conversation, branch, pull request and run. */
function followedUp(thread: ThreadRecord): ThreadRecord {
  return {
    ...thread,
    conversation_id: uniqueId('conv'),
    branch: `${thread.branch ?? 'agent/thread'}-2`,
    pull_request: { repository: 'acme/app', number: 99, url: null },
    last_run_id: uniqueId('run'),
    updated_at: fixtureTime(60),
  };
}

export function describeThreads(ctx: SuiteContext): void {
  describe('threads', () => {
    it('answers null for a thread never written', async () => {
      const thread = makeThreadRecord();
      expect(await ctx.adapter.threads.get(thread.org_id, thread.automation_id, thread.key)).toBeNull();
    });

    it('reads back every field written, set or null', async () => {
      const full = makeThreadRecord();
      // Before the agent has a conversation, pushed a branch or opened a pull request.
      const bare = makeThreadRecord({
        conversation_id: null,
        branch: null,
        pull_request: null,
        last_run_id: null,
        created_at: fixtureTime(5),
        updated_at: fixtureTime(5),
      });
      await ctx.adapter.threads.put(full);
      await ctx.adapter.threads.put(bare);
      expect(await ctx.adapter.threads.get(full.org_id, full.automation_id, full.key)).toEqual(full);
      expect(await ctx.adapter.threads.get(bare.org_id, bare.automation_id, bare.key)).toEqual(bare);
    });

    it('replaces the whole record on a second put, nulls included', async () => {
      const thread = makeThreadRecord();
      await ctx.adapter.threads.put(thread);
      const later = followedUp(thread);
      await ctx.adapter.threads.put(later);
      expect(await ctx.adapter.threads.get(thread.org_id, thread.automation_id, thread.key)).toEqual(later);
      const cleared = { ...later, branch: null, pull_request: null, updated_at: fixtureTime(120) };
      await ctx.adapter.threads.put(cleared);
      expect(await ctx.adapter.threads.get(thread.org_id, thread.automation_id, thread.key)).toEqual(cleared);
    });

    it("keeps the threads of other orgs and automations apart, and finds none under another org's, automation's or key's name", async () => {
      const thread = makeThreadRecord();
      const otherAutomation = makeThreadRecord({ org_id: thread.org_id, key: thread.key });
      const otherOrg = makeThreadRecord({ automation_id: thread.automation_id, key: thread.key });
      const otherKey = makeThreadRecord({ org_id: thread.org_id, automation_id: thread.automation_id });
      await ctx.adapter.threads.put(thread);
      // Nothing written yet under the other names.
      expect(await ctx.adapter.threads.get(thread.org_id, otherAutomation.automation_id, thread.key)).toBeNull();
      expect(await ctx.adapter.threads.get(otherOrg.org_id, thread.automation_id, thread.key)).toBeNull();
      expect(await ctx.adapter.threads.get(thread.org_id, thread.automation_id, otherKey.key)).toBeNull();
      for (const other of [otherAutomation, otherOrg, otherKey]) await ctx.adapter.threads.put(other);
      for (const each of [thread, otherAutomation, otherOrg, otherKey]) {
        expect(await ctx.adapter.threads.get(each.org_id, each.automation_id, each.key)).toEqual(each);
      }
      // Writing one leaves the others as they were.
      const later = followedUp(otherAutomation);
      await ctx.adapter.threads.put(later);
      expect(await ctx.adapter.threads.get(thread.org_id, thread.automation_id, thread.key)).toEqual(thread);
      expect(await ctx.adapter.threads.get(later.org_id, later.automation_id, later.key)).toEqual(later);
    });

    it('compares keys exactly: another case, a prefix or an extension of a key is another thread', async () => {
      const thread = makeThreadRecord();
      await ctx.adapter.threads.put(thread);
      const { org_id: orgId, automation_id: automationId, key } = thread;
      for (const lookalike of [key.toUpperCase(), key.slice(0, -1), `${key}0`, `${key} `, ` ${key}`]) {
        expect(await ctx.adapter.threads.get(orgId, automationId, lookalike)).toBeNull();
      }
      // Nor do the parts run into one another: the automation's id ending where the key begins.
      expect(await ctx.adapter.threads.get(orgId, `${automationId}:${key}`, '')).toBeNull();
    });

    it('stores keys and values with U+0000 and lone surrogates, each under its own key', async () => {
      const orgId = uniqueId('org');
      const automationId = uniqueId('auto');
      const threads = HOSTILE_TEXTS.map((text) =>
        makeThreadRecord({ org_id: orgId, automation_id: automationId, key: `github:acme/app#${text}`, branch: text }),
      );
      for (const thread of threads) await ctx.adapter.threads.put(thread);
      for (const thread of threads) expect(await ctx.adapter.threads.get(orgId, automationId, thread.key)).toEqual(thread);
    });

    it('keeps no link to the records it is given or returns', async () => {
      const written = makeThreadRecord();
      const expected = structuredClone(written);
      await ctx.adapter.threads.put(written);
      written.branch = 'changed after the write';
      if (written.pull_request) written.pull_request.number = 12345;
      const read = await ctx.adapter.threads.get(expected.org_id, expected.automation_id, expected.key);
      expect(read).toEqual(expected);
      if (read?.pull_request) read.pull_request.url = 'changed after the read';
      expect(await ctx.adapter.threads.get(expected.org_id, expected.automation_id, expected.key)).toEqual(expected);
    });

    it('writes inside a transaction, seen by it at once and by others on commit', async () => {
      const thread = makeThreadRecord();
      const later = followedUp(thread);
      await ctx.adapter.transaction(async (tx) => {
        await tx.threads.put(thread);
        expect(await tx.threads.get(thread.org_id, thread.automation_id, thread.key)).toEqual(thread);
        await tx.threads.put(later);
        expect(await tx.threads.get(thread.org_id, thread.automation_id, thread.key)).toEqual(later);
      });
      expect(await ctx.adapter.threads.get(thread.org_id, thread.automation_id, thread.key)).toEqual(later);
    });

    it('writes nothing when the transaction throws: a new thread stays missing, a stored one as it was', async () => {
      const stored = makeThreadRecord();
      const fresh = makeThreadRecord();
      await ctx.adapter.threads.put(stored);
      await expect(
        ctx.adapter.transaction(async (tx) => {
          await tx.threads.put(fresh);
          await tx.threads.put(followedUp(stored));
          expect(await tx.threads.get(fresh.org_id, fresh.automation_id, fresh.key)).toEqual(fresh);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await ctx.adapter.threads.get(fresh.org_id, fresh.automation_id, fresh.key)).toBeNull();
      expect(await ctx.adapter.threads.get(stored.org_id, stored.automation_id, stored.key)).toEqual(stored);
    });
  });
}
