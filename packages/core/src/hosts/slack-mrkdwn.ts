/**
 * GitHub-flavoured Markdown — what the platform's comments and the agent's answers are written in —
 * as Slack's `mrkdwn`, which differs where it matters: links are `<url|text>`, bold is `*x*` and
 * italics `_x_`, headings and lists do not exist, a code block has no language, and `&`, `<`, `>`
 * are escaped (so nothing the agent writes becomes a mention such as `<!channel>` or `<@U…>`).
 * HTML comments (the platform's hidden markers) are dropped: Slack would show them.
 *
 * Small on purpose: it converts what those texts use, and leaves the rest as text.
 * @module
 */

/** `&`, `<`, `>` as Slack wants them in text (the only characters it asks to escape). */
export const escapeSlackText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Link targets Slack is given as links; anything else stays text. */
const LINKABLE = /^(https?:\/\/|mailto:)[^\s]+$/i;

/** A URL inside `<…|…>`: escaped, with `|` and `>` (which would end it) percent-encoded. */
const linkTarget = (url: string): string => escapeSlackText(url.replace(/\|/g, '%7C').replace(/>/g, '%3E'));

/** Link text: escaped, without `|` (which would end it). */
const linkText = (text: string): string => escapeSlackText(text.replace(/\|/g, '/'));

/** An inline token: its pattern and how it reads in mrkdwn (`inner` converts text inside it). */
const INLINE: ReadonlyArray<{ pattern: RegExp; render(match: RegExpExecArray, inner: (text: string) => string): string }> = [
  // Code spans first: nothing inside them is markup.
  { pattern: /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/y, render: (m) => `\`${escapeSlackText((m[2] ?? '').replace(/`/g, "'"))}\`` },
  {
    pattern: /!?\[([^\]\n]*)\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"\n]*")?\s*\)/y,
    render: (m, inner) => {
      const [, text = '', url = ''] = m;
      if (!LINKABLE.test(url)) return inner(text);
      return text.trim() ? `<${linkTarget(url)}|${linkText(text)}>` : `<${linkTarget(url)}>`;
    },
  },
  { pattern: /<((?:https?:\/\/|mailto:)[^\s<>]+)>/y, render: (m) => `<${linkTarget(m[1] ?? '')}>` },
  { pattern: /\*\*(?=\S)([\s\S]*?\S)\*\*/y, render: (m, inner) => `*${inner(m[1] ?? '')}*` },
  { pattern: /__(?=\S)([\s\S]*?\S)__(?!\w)/y, render: (m, inner) => `*${inner(m[1] ?? '')}*` },
  { pattern: /~~(?=\S)([\s\S]*?\S)~~/y, render: (m, inner) => `~${inner(m[1] ?? '')}~` },
  { pattern: /\*(?=[^\s*])([^*\n]*?[^\s*])\*/y, render: (m, inner) => `_${inner(m[1] ?? '')}_` },
  { pattern: /(?<![\w])_(?=[^\s_])([^_\n]*?[^\s_])_(?!\w)/y, render: (m, inner) => `_${inner(m[1] ?? '')}_` },
];

/** Where an inline token may start. */
const TOKEN_START = /[`![<*_~]/;
/** Longer lines are escaped only: a token's search is linear per position, so a huge line could take long. */
const MAX_INLINE = 8_000;

/** One line's (or a heading's) inline Markdown as mrkdwn. */
export function inlineMrkdwn(text: string): string {
  if (text.length > MAX_INLINE) return escapeSlackText(text);
  let out = '';
  let plain = '';
  let at = 0;
  scan: while (at < text.length) {
    if (!TOKEN_START.test(text[at] ?? '')) {
      plain += text[at];
      at += 1;
      continue;
    }
    for (const { pattern, render } of INLINE) {
      pattern.lastIndex = at;
      const match = pattern.exec(text);
      if (!match) continue;
      out += escapeSlackText(plain) + render(match, inlineMrkdwn);
      plain = '';
      at = pattern.lastIndex;
      continue scan;
    }
    plain += text[at];
    at += 1;
  }
  return out + escapeSlackText(plain);
}

/** A fence's opening line: its marker (three or more backticks or tildes) and what follows (a language). */
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** A code block's text as Slack shows it: escaped, and never closing its own ``` early. */
const codeBlock = (lines: readonly string[]): string => `\`\`\`\n${escapeSlackText(lines.join('\n')).replace(/```/g, '`\u200b``')}\n\`\`\``;

function textLine(line: string): string {
  const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
  if (heading) return `*${inlineMrkdwn(heading[1] ?? '')}*`;
  if (/^ {0,3}([-*_])(?:\s*\1){2,}\s*$/.test(line)) return '──────────';
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1] ?? ''}• ${inlineMrkdwn(bullet[2] ?? '')}`;
  const quote = /^ {0,3}>\s?(.*)$/.exec(line);
  if (quote) return `>${inlineMrkdwn(quote[1] ?? '')}`;
  return inlineMrkdwn(line);
}

/** `markdown` as Slack mrkdwn. */
export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const out: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE_OPEN.exec(lines[index] ?? '');
    if (!open) {
      out.push(textLine(lines[index] ?? ''));
      continue;
    }
    const fence = open[1] ?? '```';
    const closes = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const body: string[] = [];
    for (index += 1; index < lines.length && !closes.test(lines[index] ?? ''); index++) body.push(lines[index] ?? '');
    out.push(codeBlock(body));
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
