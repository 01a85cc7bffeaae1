/**
 * Conformance: `conversations.patch`, the one way a stored conversation changes. A patch writes
 * only the members it names and bumps the version; a guard naming a stale version writes
 * nothing. Concurrent patches of different members all land (a user's pause and the agent's
 * status write, from two processes, must not undo each other), and of concurrent patches guarded
 * by the version they all read, exactly one lands.
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { expect, it } from 'vitest';
import type { AppConversationRecord, ConversationPatch, StorageRepositories } from '@agent-platform/core';
import { fixtureTime, makeConversationRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

/** Runs `write` on the adapter's repositories, or — for odd `n` — inside a transaction that yields first. */
function alone<T>(ctx: SuiteContext, n: number, write: (repos: StorageRepositories) => Promise<T>): Promise<T> {
  if (n % 2 === 0) return write(ctx.adapter);
  return ctx.adapter.transaction(async (tx) => {
    await nextTurn();
    return write(tx);
  });
}

export function describeConversationPatches(ctx: SuiteContext): void {
  it('patch writes only the members given, bumps the version and returns the record as stored', async () => {
    const record = makeConversationRecord({ execution_status: 'idle', pr_number: [] });
    await ctx.adapter.conversations.insert(record);
    const finished = await ctx.adapter.conversations.patch(record.id, {
      execution_status: 'finished',
      sandbox_status: 'PAUSED',
      pr_number: [7, 8],
      updated_at: fixtureTime(60),
      // `undefined` writes nothing: the title stays.
      title: undefined,
    });
    const expected: AppConversationRecord = {
      ...record,
      execution_status: 'finished',
      sandbox_status: 'PAUSED',
      pr_number: [7, 8],
      updated_at: fixtureTime(60),
      version: 1,
    };
    expect(finished).toEqual(expected);
    expect(await ctx.adapter.conversations.get(record.id)).toEqual(expected);
    expect(await ctx.adapter.conversations.listByUser(record.created_by_user_id, { limit: 10 })).toEqual({ items: [expected], nextPageId: null });

    // `null` is written; an empty patch writes nothing but still counts as a write.
    const cleared = await ctx.adapter.conversations.patch(record.id, { title: null, pause_requested: true });
    expect(cleared).toEqual({ ...expected, title: null, pause_requested: true, version: 2 });
    expect(await ctx.adapter.conversations.patch(record.id, {})).toEqual({ ...expected, title: null, pause_requested: true, version: 3 });
    expect(await ctx.adapter.conversations.get(record.id)).toEqual({ ...expected, title: null, pause_requested: true, version: 3 });
  });

  it('patch never writes the id, the owner or the version, whatever it is given', async () => {
    const record = makeConversationRecord();
    await ctx.adapter.conversations.insert(record);
    const hostile = { id: uniqueId('conv'), org_id: uniqueId('org'), created_by_user_id: uniqueId('user'), version: 41, title: 'renamed' };
    const patched = await ctx.adapter.conversations.patch(record.id, hostile as ConversationPatch);
    expect(patched).toEqual({ ...record, title: 'renamed', version: 1 });
    expect(await ctx.adapter.conversations.get(hostile.id)).toBeNull();
    expect(await ctx.adapter.conversations.listByUser(hostile.created_by_user_id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
    expect(await ctx.adapter.conversations.listByUser(record.created_by_user_id, { limit: 10 })).toEqual({ items: [patched], nextPageId: null });
  });

  it('patch guarded by the version stored writes; by a stale one it writes nothing and returns null', async () => {
    const record = makeConversationRecord({ execution_status: 'idle' });
    await ctx.adapter.conversations.insert(record);
    const running = await ctx.adapter.conversations.patch(record.id, { execution_status: 'running' }, { version: 0 });
    expect(running).toEqual({ ...record, execution_status: 'running', version: 1 });
    expect(await ctx.adapter.conversations.patch(record.id, { execution_status: 'error', title: 'stale' }, { version: 0 })).toBeNull();
    expect(await ctx.adapter.conversations.patch(record.id, { title: 'ahead' }, { version: 2 })).toBeNull();
    expect(await ctx.adapter.conversations.get(record.id)).toEqual(running);
    // An empty guard is no guard.
    expect(await ctx.adapter.conversations.patch(record.id, { title: 'any' }, {})).toEqual({ ...running, title: 'any', version: 2 });
  });

  it('patch of an unknown id returns null and stores nothing', async () => {
    const record = makeConversationRecord();
    expect(await ctx.adapter.conversations.patch(record.id, { title: 'renamed' })).toBeNull();
    expect(await ctx.adapter.conversations.patch(record.id, { title: 'renamed' }, { version: 0 })).toBeNull();
    expect(await ctx.adapter.conversations.get(record.id)).toBeNull();
    expect(await ctx.adapter.conversations.listByUser(record.created_by_user_id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  });

  it('concurrent patches of different members all land, each bumping the version once', async () => {
    const record = makeConversationRecord({ execution_status: 'running', pr_number: [] });
    await ctx.adapter.conversations.insert(record);
    // What a user's pause, the agent's status and metrics writes and a rename look like, racing.
    const patches: ConversationPatch[] = [
      { pause_requested: true },
      { execution_status: 'waiting_for_confirmation' },
      { title: 'renamed' },
      { confirmation_response: { action_id: 'act-1', accept: true, reason: '' } },
      { sandbox_status: 'PAUSED' },
      { pr_number: [3] },
      { llm_model: 'openai/gpt-5' },
      { updated_at: fixtureTime(90) },
    ];
    const results = await Promise.all(patches.map((patch, n) => alone(ctx, n, (repos) => repos.conversations.patch(record.id, patch))));
    for (const result of results) expect(result).not.toBeNull();
    const versions = results.map((result) => result?.version ?? 0).sort((a, b) => a - b);
    expect(versions).toEqual(patches.map((_, n) => n + 1));
    expect(await ctx.adapter.conversations.get(record.id)).toEqual(Object.assign({ ...record, version: patches.length }, ...patches));
  });

  it('of concurrent patches guarded by the version they read, exactly one lands', async () => {
    const record = makeConversationRecord({ execution_status: 'idle' });
    await ctx.adapter.conversations.insert(record);
    const read = (await ctx.adapter.conversations.get(record.id))?.version ?? -1;
    const results = await Promise.all(
      Array.from({ length: ctx.concurrency }, (_, n) =>
        alone(ctx, n, (repos) => repos.conversations.patch(record.id, { execution_status: 'running', title: `claim ${n}` }, { version: read })),
      ),
    );
    const won = results.filter((result) => result !== null);
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ execution_status: 'running', version: read + 1 });
    expect(await ctx.adapter.conversations.get(record.id)).toEqual(won[0]);
  });
}
