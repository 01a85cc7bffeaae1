/**
 * A shell command line read as `sh` reads it, far enough to tell which programs it runs and how
 * they are joined: pipelines (`|`) in sequence (`;`, `&&`, `||`, `&`, newlines), each command's
 * words with quotes and escapes taken off, its redirections (here-documents included), groups
 * (`( … )`, `{ …; }`), and the commands run inside words (`$( … )`, backticks, `<( … )`).
 * Variables are not expanded: `$HOME` stays `$HOME`. Built for the `policy` security analyzer,
 * which must see `rm -rf /` inside `sh -c "…"` or after a newline; it is no full shell grammar
 * (no arithmetic, `case` or function bodies are understood, only skipped over as words).
 * @module
 */

export interface ShellWord {
  /** The word with its quotes and escapes taken off; `$VAR`, `${…}` and substitutions kept as written (`$(cat x)`). */
  text: string;
  /** The commands run inside it: `$( … )`, backticks, `<( … )`, `>( … )`. */
  nested: ShellScript[];
}

export interface ShellRedirect {
  /** `>`, `>>`, `<`, `<<`, `<<<`, `&>`, `>&`, … (a file descriptor number before it is dropped). */
  op: string;
  target: ShellWord;
  /** A here-document's text (`<<EOF`). */
  body?: string;
}

export interface ShellCommand {
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** `( … )` or `{ …; }`: the group's commands (its `words` are empty). */
  group: ShellScript | null;
}

/** Commands joined by `|`: each one's output is the next one's input. */
export type ShellPipeline = ShellCommand[];

/** A command line: its pipelines, in order. */
export interface ShellScript {
  pipelines: ShellPipeline[];
}

/** A command line the shell could not read either (an unclosed quote or parenthesis). */
export class ShellSyntaxError extends Error {
  override readonly name = 'ShellSyntaxError';
}

/** Deeper nesting than any real command line has; past it the line is refused, not recursed into. */
const MAX_DEPTH = 40;

const BLANK = /[ \t\r]/;
/** Characters that end an unquoted word. */
const WORD_END = /[ \t\r\n;&|<>()]/;
const REDIRECT = /^(?:\d+)?(&>>|&>|>>|>&|>\||<<<|<<-|<<|<&|<>|>|<)/;

/** Reads `source` as a command line; throws {@link ShellSyntaxError} where `sh` would refuse it. */
export function parseShell(source: string): ShellScript {
  return new Reader(source, 0).script(null);
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  redirect: ShellRedirect;
}

class Reader {
  private pos = 0;
  private heredocs: PendingHeredoc[] = [];

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {
    if (depth > MAX_DEPTH) throw new ShellSyntaxError('the command is nested too deeply to read');
  }

  /** Pipelines until the end, or until `end` closes the group or substitution this is in. */
  script(end: ')' | '}' | null): ShellScript {
    const pipelines: ShellPipeline[] = [];
    let current: ShellCommand[] = [];
    const flush = () => {
      if (current.length > 0) pipelines.push(current);
      current = [];
    };
    for (;;) {
      this.skipBlanks();
      const c = this.src[this.pos];
      if (c === undefined) {
        if (end) throw new ShellSyntaxError(`a "${end === ')' ? '(' : '{'}" is not closed`);
        break;
      }
      if (c === '#') {
        this.skipComment();
        continue;
      }
      if (end === ')' && c === ')') {
        this.pos++;
        break;
      }
      if (end === '}' && c === '}' && current.length === 0 && this.endsWord(this.pos + 1)) {
        this.pos++;
        break;
      }
      const op = this.controlOperator();
      if (op === '|') continue;
      if (op !== null) {
        flush();
        continue;
      }
      const command = this.command(end);
      if (command) current.push(command);
      else throw new ShellSyntaxError(`unexpected "${this.src[this.pos]}"`);
    }
    flush();
    return { pipelines };
  }

  private command(end: ')' | '}' | null): ShellCommand | null {
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    let group: ShellScript | null = null;
    this.skipBlanks();
    if (this.src[this.pos] === '(' && this.src[this.pos + 1] !== '(') {
      this.pos++;
      group = this.nested(')');
    } else if (this.src[this.pos] === '{' && this.endsWord(this.pos + 1)) {
      this.pos++;
      group = this.nested('}');
    }
    for (;;) {
      this.skipBlanks();
      const c = this.src[this.pos];
      if (c === undefined || c === '\n' || c === ';' || c === '|' || c === ')') break;
      if (c === '#') {
        this.skipComment();
        continue;
      }
      if (end === '}' && c === '}' && words.length === 0 && group === null && this.endsWord(this.pos + 1)) break;
      const redirect = this.redirect();
      if (redirect) {
        redirects.push(redirect);
        continue;
      }
      if (c === '&') break;
      if (c === '(') {
        // `name()` of a function definition, or `arr=(…)` split off: kept as a word.
        words.push({ text: this.balanced('(', ')'), nested: [] });
        continue;
      }
      const word = this.word();
      if (!word) break;
      words.push(word);
    }
    if (words.length === 0 && redirects.length === 0 && group === null) return null;
    return { words, redirects, group };
  }

  /** `;`, `&&`, `||`, `&`, a newline (all end a pipeline) or `|` / `|&` (joins it); `null` when none is here. */
  private controlOperator(): string | null {
    const rest = this.src.slice(this.pos, this.pos + 3);
    if (rest.startsWith('\n')) {
      this.pos++;
      this.readHeredocs();
      return ';';
    }
    for (const op of [';;&', ';;', ';&', '&&', '||', '|&', ';', '|']) {
      if (rest.startsWith(op)) {
        this.pos += op.length;
        return op === '|&' ? '|' : op;
      }
    }
    if (rest.startsWith('&') && !rest.startsWith('&>')) {
      this.pos++;
      return '&';
    }
    return null;
  }

  private redirect(): ShellRedirect | null {
    const match = REDIRECT.exec(this.src.slice(this.pos, this.pos + 16));
    if (!match) return null;
    const op = match[1] as string;
    // `<(…)` and `>(…)` are process substitutions, read as words.
    if ((op === '<' || op === '>') && this.src[this.pos + match[0].length] === '(') return null;
    this.pos += match[0].length;
    this.skipBlanks();
    const target = this.word();
    if (!target) throw new ShellSyntaxError(`"${op}" needs a target`);
    const redirect: ShellRedirect = { op, target };
    if (op === '<<' || op === '<<-') this.heredocs.push({ delimiter: target.text, stripTabs: op === '<<-', redirect });
    return redirect;
  }

  /** The here-documents started on the line just ended: their text, up to each delimiter line. */
  private readHeredocs(): void {
    for (const heredoc of this.heredocs) {
      const lines: string[] = [];
      for (;;) {
        if (this.pos >= this.src.length) break;
        const newline = this.src.indexOf('\n', this.pos);
        const line = this.src.slice(this.pos, newline === -1 ? this.src.length : newline);
        this.pos = newline === -1 ? this.src.length : newline + 1;
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
        lines.push(line);
      }
      heredoc.redirect.body = lines.join('\n');
    }
    this.heredocs = [];
  }

  private word(): ShellWord | null {
    let text = '';
    const nested: ShellScript[] = [];
    let any = false;
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined) break;
      if ((c === '<' || c === '>') && !any && this.src[this.pos + 1] === '(') {
        const start = this.pos;
        this.pos += 2;
        nested.push(this.nested(')'));
        text += this.src.slice(start, this.pos);
        any = true;
        continue;
      }
      if (c === '(' && text.endsWith('=')) {
        text += this.balanced('(', ')');
        continue;
      }
      if (WORD_END.test(c)) break;
      any = true;
      if (c === '\\') {
        const next = this.src[this.pos + 1];
        this.pos += 2;
        if (next !== undefined && next !== '\n') text += next;
      } else if (c === "'") {
        const close = this.src.indexOf("'", this.pos + 1);
        if (close === -1) throw new ShellSyntaxError('a single quote is not closed');
        text += this.src.slice(this.pos + 1, close);
        this.pos = close + 1;
      } else if (c === '"') {
        this.pos++;
        text += this.doubleQuoted(nested);
      } else if (c === '`') {
        text += this.backticks(nested);
      } else if (c === '$') {
        text += this.dollar(nested);
      } else {
        text += c;
        this.pos++;
      }
    }
    return any ? { text, nested } : null;
  }

  /** After an opening `"`: the text up to the closing one, substitutions read into `nested`. */
  private doubleQuoted(nested: ShellScript[]): string {
    let text = '';
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined) throw new ShellSyntaxError('a double quote is not closed');
      if (c === '"') {
        this.pos++;
        return text;
      }
      if (c === '\\') {
        const next = this.src[this.pos + 1];
        if (next !== undefined && '$`"\\\n'.includes(next)) {
          if (next !== '\n') text += next;
          this.pos += 2;
          continue;
        }
        text += c;
        this.pos++;
      } else if (c === '`') text += this.backticks(nested);
      else if (c === '$') text += this.dollar(nested);
      else {
        text += c;
        this.pos++;
      }
    }
  }

  /** `$(…)`, `$((…))`, `${…}`, `$'…'`, `$"…"` or `$NAME`, as written; a command substitution is read into `nested`. */
  private dollar(nested: ShellScript[]): string {
    const start = this.pos;
    const next = this.src[this.pos + 1];
    if (next === '(' && this.src[this.pos + 2] === '(') {
      this.pos++;
      return `$${this.balanced('(', ')')}`;
    }
    if (next === '(') {
      this.pos += 2;
      nested.push(this.nested(')'));
      return this.src.slice(start, this.pos);
    }
    if (next === '{') {
      this.pos++;
      return `$${this.balanced('{', '}')}`;
    }
    if (next === "'") {
      // ANSI-C quoting: escapes are kept as written but for \' and \\.
      let text = '';
      this.pos += 2;
      for (;;) {
        const c = this.src[this.pos];
        if (c === undefined) throw new ShellSyntaxError('a single quote is not closed');
        if (c === "'") break;
        if (c === '\\' && (this.src[this.pos + 1] === "'" || this.src[this.pos + 1] === '\\')) {
          text += this.src[this.pos + 1];
          this.pos += 2;
          continue;
        }
        text += c;
        this.pos++;
      }
      this.pos++;
      return text;
    }
    if (next === '"') {
      this.pos += 2;
      return this.doubleQuoted(nested);
    }
    const name = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])?/.exec(this.src.slice(this.pos))?.[0] ?? '$';
    this.pos += name.length;
    return name;
  }

  /** `` `…` ``: its commands read into `nested`; the text as written. */
  private backticks(nested: ShellScript[]): string {
    let inner = '';
    let i = this.pos + 1;
    for (;;) {
      const c = this.src[i];
      if (c === undefined) throw new ShellSyntaxError('a backquote is not closed');
      if (c === '`') break;
      if (c === '\\' && '`$\\'.includes(this.src[i + 1] ?? '')) {
        inner += this.src[i + 1];
        i += 2;
        continue;
      }
      inner += c;
      i++;
    }
    this.pos = i + 1;
    nested.push(new Reader(inner, this.depth + 1).script(null));
    return `\`${inner}\``;
  }

  /** A group or substitution's commands, read by a reader one level deeper, up to `end`. */
  private nested(end: ')' | '}'): ShellScript {
    const inner = new Reader(this.src, this.depth + 1);
    inner.pos = this.pos;
    const script = inner.script(end);
    this.pos = inner.pos;
    return script;
  }

  /** From an `open` to its matching `close`, as written (quotes inside respected). */
  private balanced(open: string, close: string): string {
    const start = this.pos;
    let depth = 0;
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined) throw new ShellSyntaxError(`a "${open}" is not closed`);
      if (c === '\\') this.pos += 2;
      else if (c === "'" || c === '"') {
        const close2 = this.src.indexOf(c, this.pos + 1);
        if (close2 === -1) throw new ShellSyntaxError('a quote is not closed');
        this.pos = close2 + 1;
      } else {
        if (c === open) depth++;
        else if (c === close) depth--;
        this.pos++;
        if (depth === 0) return this.src.slice(start, this.pos);
      }
    }
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.src[this.pos];
      if (c !== undefined && BLANK.test(c)) this.pos++;
      else if (c === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2;
      else return;
    }
  }

  private skipComment(): void {
    const newline = this.src.indexOf('\n', this.pos);
    this.pos = newline === -1 ? this.src.length : newline;
  }

  private endsWord(at: number): boolean {
    const c = this.src[at];
    return c === undefined || WORD_END.test(c);
  }
}
