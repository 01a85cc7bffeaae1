import { describe, expect, it } from 'vitest';
import { AgeIndex, GroupIndex, OrderedIndex, Table, UniqueIndex } from './index.js';

interface Row {
  id: string;
  group: string;
  at: string;
  flag: boolean;
}

/** A small deterministic PRNG (mulberry32), so a failure replays the same way. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function time(seconds: number): string {
  return new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString();
}

/** The reference order: instants, then id, in code-unit order. */
function ascending(a: Row, b: Row): number {
  const byTime = Date.parse(a.at) - Date.parse(b.at);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function createTable() {
  const newest = new OrderedIndex<Row>({ keyOf: (row) => row.group, timeOf: (row) => row.at, order: 'newest-first' });
  const oldest = new OrderedIndex<Row>({
    keyOf: (row) => (row.flag ? row.group : undefined),
    timeOf: (row) => row.at,
    order: 'oldest-first',
  });
  const flagged = new GroupIndex<Row>((row) => (row.flag ? row.group : undefined));
  const table = new Table<Row>((row) => row.id, [newest, oldest, flagged]);
  return { table, newest, oldest, flagged };
}

describe('Table with ordered indexes', () => {
  it('matches a sorted reference through random writes, commits and rollbacks, live and committed', () => {
    const next = random(20_250_101);
    const { table, newest, oldest, flagged } = createTable();
    const groups = ['g1', 'g2', 'g3'];
    let committed = new Map<string, Row>();
    let live = new Map<string, Row>();
    let inTransaction = false;
    let clock = 0;

    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const check = (): void => {
      for (const [state, rows] of [
        ['live', live],
        ['committed', committed],
      ] as const) {
        const view = table[state];
        for (const group of groups) {
          const members = [...rows.values()].filter((row) => row.group === group);
          const descending = [...members].sort(ascending).reverse();
          const flaggedAscending = members.filter((row) => row.flag).sort(ascending);
          const ordered = view.ordered(newest, group);
          expect(ordered.size).toBe(descending.length);
          expect(ordered.all()).toEqual(descending);
          const offset = Math.floor(next() * (descending.length + 2));
          const limit = 1 + Math.floor(next() * 4);
          expect(ordered.page(offset, limit)).toEqual(descending.slice(offset, offset + limit));
          expect(view.ordered(oldest, group).all()).toEqual(flaggedAscending);
          expect(view.group(flagged, group).sort(ascending)).toEqual(flaggedAscending);
        }
      }
      for (const group of groups) {
        const first = [...live.values()].filter((row) => row.flag && row.group === group).sort(ascending)[0];
        expect(oldest.oldest(group)).toBe(first?.id);
      }
    };

    for (let step = 0; step < 2_000; step += 1) {
      const roll = next();
      if (roll < 0.05 && !inTransaction) {
        table.begin();
        inTransaction = true;
      } else if (roll < 0.1 && inTransaction) {
        if (next() < 0.5) {
          table.commit();
          committed = new Map(live);
        } else {
          table.rollback();
          live = new Map(committed);
        }
        inTransaction = false;
      } else if (roll < 0.3 && live.size > 0) {
        const id = pick([...live.keys()]);
        expect(table.delete(id)).toBe(true);
        live.delete(id);
      } else {
        // Mostly forward in time, sometimes back, often the same instant (ids break the tie).
        clock += Math.floor(next() * 3) - (next() < 0.1 ? 5 : 0);
        const existing = live.size > 0 && next() < 0.3 ? pick([...live.values()]) : undefined;
        const row: Row = {
          id: existing?.id ?? `r${Math.floor(next() * 500)}`,
          group: next() < 0.8 && existing ? existing.group : pick(groups),
          at: existing && next() < 0.5 ? existing.at : time(clock),
          flag: next() < 0.6,
        };
        table.put(row);
        live.set(row.id, row);
      }
      if (!inTransaction) committed = new Map(live);
      if (step % 10 === 0) check();
    }
    check();
  });

  it('keeps a unique index pointing at the committed owner when a rollback undoes a move', () => {
    const byName = new UniqueIndex<{ id: string; name: string }>((row) => row.name);
    const table = new Table<{ id: string; name: string }>((row) => row.id, [byName]);
    table.put({ id: 'a', name: 'x' });
    table.begin();
    table.put({ id: 'a', name: 'y' });
    table.put({ id: 'b', name: 'x' });
    expect(table.committed.find(byName, 'x')).toEqual({ id: 'a', name: 'x' });
    expect(table.live.find(byName, 'x')).toEqual({ id: 'b', name: 'x' });
    table.rollback();
    expect(table.live.find(byName, 'x')).toEqual({ id: 'a', name: 'x' });
    expect(table.live.find(byName, 'y')).toBeUndefined();
  });

  it('drops the oldest entries of a large group one by one, and reads stay ordered', () => {
    const { table, newest } = createTable();
    for (let n = 0; n < 1_000; n += 1) table.put({ id: `r${String(n).padStart(4, '0')}`, group: 'g', at: time(n), flag: true });
    for (let n = 0; n < 900; n += 1) {
      const oldestId = newest.oldest('g');
      expect(oldestId).toBe(`r${String(n).padStart(4, '0')}`);
      table.delete(oldestId ?? '');
    }
    const rows = table.live.ordered(newest, 'g').all();
    expect(rows.map((row) => row.id)).toEqual(Array.from({ length: 100 }, (_, n) => `r${String(999 - n).padStart(4, '0')}`));
    // Out-of-order arrivals land in place, including before the first.
    table.put({ id: 'early', group: 'g', at: time(0), flag: true });
    table.put({ id: 'middle', group: 'g', at: time(950), flag: true });
    expect(newest.oldest('g')).toBe('early');
    expect(
      table.live
        .ordered(newest, 'g')
        .page(48, 3)
        .map((row) => row.id),
    ).toEqual(['r0951', 'r0950', 'middle']);
  });
});

describe('AgeIndex and released rows', () => {
  it('keeps the oldest row and the count of a whole table through random writes, evictions, commits and rollbacks, and releases every dropped row once', () => {
    const next = random(20_251_127);
    const age = new AgeIndex<Row>((row) => row.at);
    const perGroup = new OrderedIndex<Row>({ keyOf: (row) => row.group, timeOf: (row) => row.at, order: 'newest-first' });
    const released = new Map<Row, number>();
    const table = new Table<Row>((row) => row.id, [perGroup, age], {
      release: (row) => released.set(row, (released.get(row) ?? 0) + 1),
    });
    const everPut = new Set<Row>();
    let committed = new Map<string, Row>();
    let live = new Map<string, Row>();
    let inTransaction = false;
    let clock = 0;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const check = (): void => {
      expect(age.size).toBe(live.size);
      expect(age.oldest()).toBe([...live.values()].sort(ascending)[0]?.id);
      // A released row is stored nowhere (neither live nor as a committed pre-image), and released once.
      const stillStored = [...released.keys()].filter((row) => table.live.get(row.id) === row || table.committed.get(row.id) === row);
      expect(stillStored).toEqual([]);
      expect([...released.values()].filter((count) => count !== 1)).toEqual([]);
    };

    for (let step = 0; step < 6_000; step += 1) {
      const roll = next();
      if (roll < 0.02 && !inTransaction) {
        table.begin();
        inTransaction = true;
      } else if (roll < 0.04 && inTransaction) {
        if (next() < 0.5) {
          table.commit();
          committed = new Map(live);
        } else {
          table.rollback();
          live = new Map(committed);
        }
        inTransaction = false;
      } else if (roll < 0.25 && live.size > 0) {
        // Evict the oldest, as the total bound does, or a row from the middle, as a group's bound does.
        const id = next() < 0.5 ? (age.oldest() ?? '') : (perGroup.oldest(pick(['g1', 'g2', 'g3'])) ?? pick([...live.keys()]));
        expect(table.delete(id)).toBe(true);
        live.delete(id);
      } else {
        // Mostly in time order, sometimes late, often at the same instant; ids come back.
        clock += Math.floor(next() * 2) - (next() < 0.05 ? 20 : 0);
        const existing = live.size > 0 && next() < 0.1 ? pick([...live.values()]) : undefined;
        const row: Row = { id: existing?.id ?? `r${Math.floor(next() * 3_000)}`, group: pick(['g1', 'g2', 'g3']), at: time(clock), flag: true };
        table.put(row);
        everPut.add(row);
        live.set(row.id, row);
      }
      if (!inTransaction) committed = new Map(live);
      if (step % 50 === 0) check();
    }
    if (inTransaction) table.commit();
    committed = live;
    check();
    // Every row put and no longer stored was released, exactly once.
    expect([...everPut].filter((row) => (released.get(row) ?? 0) !== (live.get(row.id) === row ? 0 : 1))).toEqual([]);
  });

  it('marks rows evicted from the middle dead, and sweeps them', () => {
    const age = new AgeIndex<Row>((row) => row.at);
    const table = new Table<Row>((row) => row.id, [age]);
    const id = (n: number) => `r${String(n).padStart(4, '0')}`;
    for (let n = 0; n < 1_000; n += 1) table.put({ id: id(n), group: 'g', at: time(n), flag: true });
    // Every other row from the middle, then the oldest ones: the head skips the dead slots.
    for (let n = 1; n < 1_000; n += 2) table.delete(id(n));
    expect(age.size).toBe(500);
    for (let n = 0; n < 900; n += 2) {
      expect(age.oldest()).toBe(id(n));
      table.delete(id(n));
    }
    expect(age.size).toBe(50);
    expect(age.oldest()).toBe(id(900));
    // A row put back where its dead slot was, and one before the head.
    table.begin();
    table.delete(id(950));
    table.rollback();
    table.put({ id: id(1), group: 'g', at: time(1), flag: true });
    expect(age.oldest()).toBe(id(1));
    expect(age.size).toBe(51);
    table.delete(id(1));
    expect(age.oldest()).toBe(id(900));
  });
});
