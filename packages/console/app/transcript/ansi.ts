/**
 * A terminal's output as lines of styled spans: the ANSI colour and weight codes (SGR, `ESC[…m`)
 * become class names (`ansi-fg-1`, `ansi-bold`: styles.css colours them), every other escape
 * sequence (cursor moves, titles) is dropped, and a carriage return keeps what came after it
 * (a progress bar shows its last state). Nothing here is HTML: the spans are text and classes.
 *
 * Pure (no DOM, no Preact).
 */

/** A run of text in one style; `classes` is `''` for the terminal's default. */
export interface AnsiSpan {
  text: string;
  classes: string;
}

interface Style {
  fg: string | null;
  bg: string | null;
  flags: Set<string>;
}

// CSI (`ESC[` … final byte), OSC (`ESC]` … BEL or `ESC\`), and the two-byte escapes.
const ESCAPE = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const FLAGS: Record<number, string> = { 1: 'bold', 2: 'dim', 3: 'italic', 4: 'underline' };
const UNSET: Record<number, string[]> = { 22: ['bold', 'dim'], 23: ['italic'], 24: ['underline'] };

/** Applies one SGR sequence's parameters (`1;31`) to `style`. */
function applySgr(style: Style, params: string): void {
  const codes = params === '' ? [0] : params.split(';').map((code) => Number(code) || 0);
  for (let index = 0; index < codes.length; index++) {
    const code = codes[index] ?? 0;
    if (code === 0) {
      style.fg = null;
      style.bg = null;
      style.flags.clear();
    } else if (FLAGS[code]) style.flags.add(FLAGS[code]);
    else if (UNSET[code]) for (const flag of UNSET[code]) style.flags.delete(flag);
    else if (code >= 30 && code <= 37) style.fg = String(code - 30);
    else if (code >= 90 && code <= 97) style.fg = String(code - 90 + 8);
    else if (code >= 40 && code <= 47) style.bg = String(code - 40);
    else if (code >= 100 && code <= 107) style.bg = String(code - 100 + 8);
    else if (code === 39) style.fg = null;
    else if (code === 49) style.bg = null;
    else if (code === 38 || code === 48) {
      // 256 colours (`38;5;n`): the first 16 are the named ones; the rest, and RGB (`38;2;r;g;b`), stay the default.
      const mode = codes[index + 1];
      const value = codes[index + 2];
      const named = mode === 5 && value !== undefined && value < 16 ? String(value) : null;
      if (code === 38) style.fg = named;
      else style.bg = named;
      index += mode === 5 ? 2 : mode === 2 ? 4 : 0;
    }
  }
}

const classesOf = (style: Style): string =>
  [style.fg !== null ? `ansi-fg-${style.fg}` : '', style.bg !== null ? `ansi-bg-${style.bg}` : '', ...[...style.flags].map((flag) => `ansi-${flag}`)]
    .filter(Boolean)
    .join(' ');

/** The output's lines, each a list of spans (an empty line is an empty list). */
export function ansiLines(output: string): AnsiSpan[][] {
  const style: Style = { fg: null, bg: null, flags: new Set() };
  const lines: AnsiSpan[][] = [];
  for (const raw of output.replace(/\r\n/g, '\n').split('\n')) {
    // What a carriage return wrote over is gone: the text after the last one shows.
    const line = raw.slice(raw.lastIndexOf('\r') + 1);
    const spans: AnsiSpan[] = [];
    let at = 0;
    const push = (text: string) => {
      if (text === '') return;
      const classes = classesOf(style);
      const last = spans.at(-1);
      if (last && last.classes === classes) last.text += text;
      else spans.push({ text, classes });
    };
    for (const match of line.matchAll(ESCAPE)) {
      push(line.slice(at, match.index));
      if (match[2] === 'm') applySgr(style, match[1] ?? '');
      at = match.index + match[0].length;
    }
    push(line.slice(at));
    lines.push(spans);
  }
  return lines;
}

/** The output without its escape sequences (what a screen reader, or a copy, gets). */
export const stripAnsi = (output: string): string => output.replace(ESCAPE, '');
