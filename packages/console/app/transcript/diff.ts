/**
 * A file edit as a diff of lines: what the agent's `str_replace` took out and put in, a created
 * file's lines, an insert. Lines are compared by a longest common subsequence, so unchanged lines
 * between changes show as context; texts too long to compare (the table would be large) show as
 * all removed, then all added.
 *
 * Pure (no DOM, no Preact).
 */

/** One line of a diff: kept (`' '`), removed (`'-'`) or added (`'+'`). */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** Beyond this many cells (old lines × new lines) the lines are not compared. */
const MAX_CELLS = 250_000;

const linesOf = (text: string): string[] => (text === '' ? [] : text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n'));

/** The lines of `before` and `after` as a diff, in order. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = linesOf(before);
  const b = linesOf(after);
  if (a.length * b.length > MAX_CELLS) return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))];
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  const length = (i: number, j: number): number => lengths[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j] ? length(i + 1, j + 1) + 1 : Math.max(length(i + 1, j), length(i, j + 1));
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const removed = a[i] ?? '';
    const added = b[j] ?? '';
    if (removed === added) {
      out.push({ op: ' ', text: removed });
      i++;
      j++;
    } else if (length(i + 1, j) >= length(i, j + 1)) {
      out.push({ op: '-', text: removed });
      i++;
    } else {
      out.push({ op: '+', text: added });
      j++;
    }
  }
  for (; i < a.length; i++) out.push({ op: '-', text: a[i] ?? '' });
  for (; j < b.length; j++) out.push({ op: '+', text: b[j] ?? '' });
  return out;
}
