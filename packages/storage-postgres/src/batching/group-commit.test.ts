import { describe, expect, it } from 'vitest';
import { GroupCommit, type Outcome } from './group-commit.js';

interface Write {
  n: number;
  key?: string;
}

/** A writer whose batches are held until released, recording what each batch held. */
function heldWriter() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const write = async (batch: readonly Write[]): Promise<Outcome<number>[]> => {
    batches.push(batch.map((one) => one.n));
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise<void>((resolve) => releases.push(resolve));
    inFlight -= 1;
    return batch.map((one) => (one.n < 0 ? { ok: false, error: new Error(`refused ${one.n}`) } : { ok: true, value: one.n * 10 }));
  };
  return {
    write,
    batches,
    mostInFlight: () => mostInFlight,
    /** Lets every batch started so far finish, and the ones they start, for a few turns of the event loop. */
    async releaseAll() {
      for (let turn = 0; turn < 10; turn += 1) {
        while (releases.length > 0) releases.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('writes what was submitted in one turn together, on the next turn, and what came while it committed in the next batch', async () => {
    const writer = heldWriter();
    const group = new GroupCommit<Write, number>({ write: writer.write, key: () => null, maxBatch: 100, maxInFlight: 1 });
    const first = [1, 2].map((n) => group.submit({ n }));
    expect(writer.batches).toEqual([]);
    await tick();
    expect(writer.batches).toEqual([[1, 2]]);
    const second = [3, 4].map((n) => group.submit({ n }));
    await tick();
    expect(writer.batches).toEqual([[1, 2]]);
    await writer.releaseAll();
    await writer.releaseAll();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40]);
    expect(writer.batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('keeps at most maxInFlight batches of at most maxBatch writes', async () => {
    const writer = heldWriter();
    const group = new GroupCommit<Write, number>({ write: writer.write, key: () => null, maxBatch: 3, maxInFlight: 2 });
    const answers = Array.from({ length: 10 }, (_, n) => group.submit({ n: n + 1 }));
    await tick();
    expect(writer.batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    for (let round = 0; round < 6; round += 1) await writer.releaseAll();
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(writer.mostInFlight()).toBe(2);
    expect(writer.batches.every((batch) => batch.length <= 3)).toBe(true);
    expect(writer.batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('never puts two writes of one key in one batch, and keeps their order', async () => {
    const writer = heldWriter();
    const group = new GroupCommit<Write, number>({ write: writer.write, key: (write) => write.key ?? null, maxBatch: 100, maxInFlight: 1 });
    const answers = [
      group.submit({ n: 1, key: 'a' }),
      group.submit({ n: 2, key: 'a' }),
      group.submit({ n: 3, key: 'b' }),
      group.submit({ n: 4, key: 'a' }),
      group.submit({ n: 5 }),
      group.submit({ n: 6 }),
    ];
    for (let round = 0; round < 5; round += 1) await writer.releaseAll();
    await Promise.all(answers);
    expect(writer.batches).toEqual([[1, 3, 5, 6], [2], [4]]);
  });

  it('fails a refused write alone, and every write of a batch whose writer throws', async () => {
    const writer = heldWriter();
    const group = new GroupCommit<Write, number>({ write: writer.write, key: () => null, maxBatch: 100, maxInFlight: 1 });
    const first = group.submit({ n: 1 });
    const refused = group.submit({ n: -2 }).catch((error: unknown) => error);
    const kept = group.submit({ n: 3 });
    await writer.releaseAll();
    await writer.releaseAll();
    expect(await first).toBe(10);
    expect(await refused).toEqual(new Error('refused -2'));
    expect(await kept).toBe(30);

    const broken = new GroupCommit<Write, number>({
      write: async () => {
        throw new Error('database gone');
      },
      key: () => null,
      maxBatch: 100,
      maxInFlight: 1,
    });
    const results = await Promise.allSettled([broken.submit({ n: 1 }), broken.submit({ n: 2 })]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    // And it goes on: a later write is tried again.
    await expect(broken.submit({ n: 3 })).rejects.toThrow('database gone');
  });
});
