/**
 * A small Markdown reader for the agent's messages and the task: headings, paragraphs, lists,
 * quotes, fenced code, rules; code spans, bold, italics and links. It returns a tree of text and
 * element kinds, never HTML, and the view (markdown-view.tsx) builds elements from it: raw HTML in
 * a message stays text, and a link is kept only when it goes to `http:`, `https:` or `mailto:`
 * (a `javascript:` one is shown as its text). Tables and images are left as written.
 *
 * Pure (no DOM, no Preact).
 */

export type MdInline =
  | { t: 'text'; v: string }
  | { t: 'code'; v: string }
  | { t: 'br' }
  | { t: 'strong' | 'em'; c: MdInline[] }
  | { t: 'link'; href: string; c: MdInline[] };

export type MdBlock =
  | { t: 'p'; c: MdInline[] }
  | { t: 'h'; level: number; c: MdInline[] }
  | { t: 'pre'; lang: string; v: string }
  | { t: 'ul' | 'ol'; start: number; items: MdBlock[][] }
  | { t: 'quote'; c: MdBlock[] }
  | { t: 'hr' };

/** Where a link may go: the web and mail, nothing that runs. */
export const safeHref = (href: string): boolean => /^(https?:\/\/|mailto:)/i.test(href.trim());

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^ {0,3}([-*+]|(\d{1,9})[.)])\s+(.*)$/;
const BLANK = /^\s*$/;

const startsBlock = (line: string) => FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);

/** The blocks of a Markdown text. */
export function parseMarkdown(text: string): MdBlock[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MdBlock[] = [];
  const at = (line: number): string => lines[line] ?? '';
  let index = 0;
  while (index < lines.length) {
    const line = at(index);
    if (BLANK.test(line)) {
      index++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const close = new RegExp(`^ {0,3}${(fence[1] ?? '`')[0]}{${(fence[1] ?? '```').length},}\\s*$`);
      const body: string[] = [];
      for (index++; index < lines.length && !close.test(at(index)); index++) body.push(at(index));
      index++;
      blocks.push({ t: 'pre', lang: fence[2] ?? '', v: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: (heading[1] ?? '').length, c: parseInline(heading[2] ?? '') });
      index++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ t: 'hr' });
      index++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      for (; index < lines.length && QUOTE.test(at(index)); index++) body.push(QUOTE.exec(at(index))?.[1] ?? '');
      blocks.push({ t: 'quote', c: parseMarkdown(body.join('\n')) });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      const ordered = item[2] !== undefined;
      const items: string[][] = [];
      while (index < lines.length) {
        const next = ITEM.exec(at(index));
        if (next && (next[2] !== undefined) === ordered) {
          items.push([next[3] ?? '']);
          index++;
        } else if (items.length > 0 && /^\s{2,}\S/.test(at(index))) {
          items.at(-1)?.push(at(index).replace(/^\s{2,4}/, ''));
          index++;
        } else if (BLANK.test(at(index)) && /^\s{2,}\S/.test(lines[index + 1] ?? '')) {
          items.at(-1)?.push('');
          index++;
        } else if (!BLANK.test(at(index)) && !startsBlock(at(index)) && !BLANK.test(at(index - 1))) {
          // A lazy continuation of the item's paragraph.
          items.at(-1)?.push(at(index));
          index++;
        } else break;
      }
      blocks.push({ t: ordered ? 'ol' : 'ul', start: ordered ? Number(item[2]) : 1, items: items.map((body) => parseMarkdown(body.join('\n'))) });
      continue;
    }
    const paragraph: string[] = [];
    for (; index < lines.length && !BLANK.test(at(index)) && (paragraph.length === 0 || !startsBlock(at(index))); index++) paragraph.push(at(index));
    blocks.push({ t: 'p', c: parseInline(paragraph.join('\n')) });
  }
  return blocks;
}

// Code span | link | bold | italics | autolink | bare URL | escaped character | line break.
const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|\[([^[\]]*)\]\(\s*<?([^\s<>]+?)>?(?:\s+"[^"]*")?\s*\)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__(?!\w)|\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<!\w)_(?=[^\s_])([\s\S]*?[^\s_])_(?!\w)|<(https?:\/\/[^\s>]+)>|(https?:\/\/[^\s<]*[^\s<.,;:!?)\]'"*_])|\\([!-/:-@[-`{-~])|\n/g;

/** The inline content of a paragraph or heading. */
export function parseInline(text: string): MdInline[] {
  const out: MdInline[] = [];
  const pushText = (value: string) => {
    if (value === '') return;
    const last = out.at(-1);
    if (last?.t === 'text') last.v += value;
    else out.push({ t: 'text', v: value });
  };
  let at = 0;
  for (const match of text.matchAll(INLINE)) {
    pushText(text.slice(at, match.index));
    at = match.index + match[0].length;
    const [whole, , code, label, href, strong1, strong2, em1, em2, auto, bare, escaped] = match;
    if (code !== undefined) out.push({ t: 'code', v: code.replace(/^ (.*) $/s, '$1') });
    else if (label !== undefined && href !== undefined) {
      if (safeHref(href)) out.push({ t: 'link', href, c: parseInline(label) });
      else pushText(whole);
    } else if (strong1 !== undefined || strong2 !== undefined) out.push({ t: 'strong', c: parseInline(strong1 ?? strong2 ?? '') });
    else if (em1 !== undefined || em2 !== undefined) out.push({ t: 'em', c: parseInline(em1 ?? em2 ?? '') });
    else if (auto !== undefined || bare !== undefined) {
      const url = auto ?? bare ?? '';
      out.push({ t: 'link', href: url, c: [{ t: 'text', v: url }] });
    } else if (escaped !== undefined) pushText(escaped);
    else out.push({ t: 'br' });
  }
  pushText(text.slice(at));
  return out;
}
