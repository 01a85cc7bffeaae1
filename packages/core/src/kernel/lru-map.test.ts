import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('keeps at most maxEntries, dropping the least recently used (a get counts as a use)', () => {
    const map = new LruMap<number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['a', 'c']);
    expect(map.get('b')).toBeUndefined();
    map.set('a', 10);
    map.set('d', 4);
    expect([...map.keys()]).toEqual(['a', 'd']);
    expect(map.size).toBe(2);
  });

  it('deletes one key, the keys with a prefix, or all', () => {
    const map = new LruMap<number>(10);
    for (const key of ['org1\u0000a', 'org1\u0000b', 'org10\u0000a', 'org2\u0000a']) map.set(key, 1);
    map.deletePrefix('org1\u0000');
    expect([...map.keys()]).toEqual(['org10\u0000a', 'org2\u0000a']);
    map.delete('org2\u0000a');
    expect([...map.keys()]).toEqual(['org10\u0000a']);
    map.clear();
    expect(map.size).toBe(0);
  });
});
