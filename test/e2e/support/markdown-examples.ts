/**
 * The shell examples of a Markdown document: its fenced code blocks in `sh`, `bash`, `shell`
 * (or no language) that call `curl`, each with the line of its opening fence, and whether the
 * document marked it not runnable as pasted with a comment right before it:
 *
 *     <!-- example: not-runnable (why) -->
 *
 * @module
 */

export interface ShellExample {
  /** The document, relative to the repository root (`docs/automations.md`). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** Why it is not run, when the document says so. */
  notRunnable?: string;
}

const SHELL_LANGUAGES = new Set(['', 'sh', 'bash', 'shell']);
const OPENING = /^( {0,3})(`{3,}|~{3,})\s*([^\s`{]*)/;
const NOT_RUNNABLE = /^<!--\s*example:\s*not-runnable\s*\(([^)]*\S[^)]*)\)\s*-->$/;
/** Where a server example sends its requests: the base URL variable the docs use, a URL variable the server handed out, or the default address. */
const SERVER_TARGET = /\$\{?API\b|\$\{?[A-Z][A-Z0-9_]*_URL\b|https?:\/\/(?:localhost|127\.0\.0\.1):3000\b/;

/** Every fenced shell block of `markdown` that runs `curl`. */
export function curlExamples(file: string, markdown: string): ShellExample[] {
  const lines = markdown.split('\n');
  const examples: ShellExample[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = OPENING.exec(lines[index] as string);
    if (!opening) continue;
    const [, indent = '', fence = '```', language = ''] = opening;
    const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] as string)) {
      body.push((lines[end] as string).replace(new RegExp(`^ {0,${indent.length}}`), ''));
      end++;
    }
    const code = body.join('\n');
    if (SHELL_LANGUAGES.has(language.toLowerCase()) && /(^|[\s|;&($])curl\s/m.test(code)) {
      let previous = index - 1;
      while (previous >= 0 && (lines[previous] as string).trim() === '') previous--;
      const marker = previous >= 0 ? NOT_RUNNABLE.exec((lines[previous] as string).trim()) : null;
      examples.push({ file, line: index + 1, code, ...(marker ? { notRunnable: (marker[1] as string).trim() } : {}) });
    }
    index = end;
  }
  return examples;
}

/** Whether an example's requests go to the platform's server (and not, say, a download). */
export const targetsServer = (example: ShellExample): boolean => SERVER_TARGET.test(example.code);

/**
 * Placeholders a reader must replace before pasting (`<id>`, `...`, `…`) outside `#` comments,
 * where the documents show answers.
 */
export function placeholders(example: ShellExample): string[] {
  const found: string[] = [];
  for (const line of example.code.split('\n')) {
    if (line.trim().startsWith('#')) continue;
    found.push(...(line.match(/<[A-Za-z][A-Za-z0-9 _.-]*>|\.\.\.|…/g) ?? []));
  }
  return found;
}

/**
 * Lines naming the server's address itself rather than through `$API` (the name the README gives
 * it), other than the line setting `API=`: the docs call it one name.
 */
export const hardCodedServer = (example: ShellExample): string[] =>
  example.code.split('\n').filter((line) => /(?:localhost|127\.0\.0\.1):3000\b/.test(line) && !/^\s*(#|API=)/.test(line));

/**
 * HTTP statuses the example shows as answers (`# → 201 {...}`, `# → 409`): an error status
 * shown there is one the reader is meant to get.
 */
export function shownStatuses(example: ShellExample): number[] {
  return [...example.code.matchAll(/#\s*(?:→|->)\s*([1-5]\d\d)\b/g)].map((match) => Number(match[1]));
}

/** `value` as one single-quoted shell word. */
export const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;
