import { describe, expect, it } from 'vitest';
import { observationEvent, outputExcerpt } from './events.js';

describe("a tool's output as its event's message", () => {
  const listing = 'total 8\ndrwxr-xr-x 2 agent agent 4096 .\n-rw-r--r-- 1 agent agent   12 README.md\n';

  it('keeps its lines and columns (a terminal listing reads as one), without the trailing newline', () => {
    expect(outputExcerpt(listing)).toBe(listing.trimEnd());
    expect(outputExcerpt('a\r\nb\rc')).toBe('a\nb\nc');
  });

  it('cuts a long output at 40 lines, saying how many more there were', () => {
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join('\n');
    const excerpt = outputExcerpt(lines);
    expect(excerpt.split('\n').slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, index) => `line ${index + 1}${index === 39 ? '…' : ''}`));
    expect(excerpt.endsWith('\n(60 more lines)')).toBe(true);
  });

  it('cuts one long line at 4,000 characters', () => {
    const excerpt = outputExcerpt('y'.repeat(10_000));
    expect(excerpt).toBe(`${'y'.repeat(3_999)}…`);
  });

  it('is what the observation event carries as its message; the whole output stays in the observation', () => {
    const { event } = observationEvent({
      observationKind: 'TerminalObservation',
      toolName: 'terminal',
      toolCallId: 'call-1',
      actionId: 'evt-1',
      text: listing,
      isError: false,
    });
    expect(event.message).toBe(listing.trimEnd());
    expect(JSON.stringify(event.data)).toContain(JSON.stringify(listing));
  });
});
