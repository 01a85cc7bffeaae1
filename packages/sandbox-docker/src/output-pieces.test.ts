import { describe, expect, it } from 'vitest';
import type { ExecEvent } from '@agent-platform/core';
import { OUTPUT_PIECE_CHARS, OUTPUT_PIECE_LINES, outputPieces } from './output-pieces.js';

const pieces = (data: string, type: 'stdout' | 'stderr' = 'stdout') => [...outputPieces({ type, data })] as Extract<ExecEvent, { data: string }>[];

describe('outputPieces', () => {
  it('passes small output and exits through as they are', () => {
    expect(pieces('hello\nworld')).toEqual([{ type: 'stdout', data: 'hello\nworld' }]);
    const exit: ExecEvent = { type: 'exit', result: { exitCode: 0, timedOut: false, cancelled: false, truncated: false } };
    expect([...outputPieces(exit)]).toEqual([exit]);
  });

  it('cuts a flood of short lines into pieces of whole lines, at most the line bound each', () => {
    const flood = 'y\n'.repeat(10_000);
    const result = pieces(flood, 'stderr');
    expect(result.map((piece) => piece.data).join('')).toBe(flood);
    for (const piece of result) {
      expect(piece.type).toBe('stderr');
      expect(piece.data.split('\n').length - 1).toBeLessThanOrEqual(OUTPUT_PIECE_LINES);
      expect(piece.data.endsWith('\n')).toBe(true);
    }
    expect(result).toHaveLength(Math.ceil(10_000 / OUTPUT_PIECE_LINES));
  });

  it('cuts long lines at the character bound, never inside a surrogate pair', () => {
    const long = `${'a'.repeat(OUTPUT_PIECE_CHARS - 1)}😀${'b'.repeat(OUTPUT_PIECE_CHARS * 2)}\nend`;
    const result = pieces(long);
    expect(result.map((piece) => piece.data).join('')).toBe(long);
    for (const piece of result) expect(piece.data.length).toBeLessThanOrEqual(OUTPUT_PIECE_CHARS);
    expect(result[0]!.data).toBe('a'.repeat(OUTPUT_PIECE_CHARS - 1));
    expect(result[1]!.data.startsWith('😀')).toBe(true);
  });

  it('keeps whole lines together and a partial last line after them', () => {
    const lines = `${'x'.repeat(100)}\n`.repeat(50);
    const text = `${lines}tail without newline`;
    const result = pieces(text);
    expect(result.map((piece) => piece.data).join('')).toBe(text);
    for (const piece of result.slice(0, -1)) expect(piece.data.endsWith('\n')).toBe(true);
  });
});
