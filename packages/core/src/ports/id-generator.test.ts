import { describe, expect, it } from 'vitest';
import { randomIdGenerator, uuidV7Hex } from './id-generator.js';

describe('ids', () => {
  it('are UUID version 7 as 32 hex digits: the time first, then random, with version and variant set', () => {
    const hex = uuidV7Hex(Date.UTC(2026, 10, 27));
    expect(hex).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(Number.parseInt(hex.slice(0, 12), 16)).toBe(Date.UTC(2026, 10, 27));
  });

  it('sort by creation time, and never repeat', () => {
    const ids: string[] = [];
    for (let ms = 0; ms < 5; ms += 1) for (let n = 0; n < 1000; n += 1) ids.push(uuidV7Hex(1_700_000_000_000 + ms));
    expect(new Set(ids).size).toBe(ids.length);
    const times = ids.map((id) => id.slice(0, 12));
    expect(times).toEqual([...times].sort());
    expect(randomIdGenerator.newId('dlv')).toMatch(/^dlv_[0-9a-f]{32}$/);
  });
});
