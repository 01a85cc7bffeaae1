/**
 * The programs a command line runs, as the `policy` analyzer weighs them: each command with its
 * wrappers taken off (`sudo`, `env`, `nohup`, `timeout 5`, `xargs`, variable assignments, `!`),
 * and the command lines inside it read too — substitutions, groups, `sh -c '…'`, `eval`,
 * `find -exec`. Pipelines are kept as pipelines, so a rule can see what feeds what.
 * @module
 */
import { parseShell, ShellSyntaxError, type ShellCommand, type ShellRedirect, type ShellScript, type ShellWord } from './shell-script.js';

/** One program run, wrappers off. */
export interface ProgramRun {
  /** Its name without a directory: `curl` for `/usr/bin/curl`. */
  name: string;
  args: ShellWord[];
  redirects: ShellRedirect[];
}

/** A pipeline's stages in order; a stage that is a group holds every program of the group. */
export type Stages = ProgramRun[][];

/** Every pipeline a command line runs, nested ones included; throws a `ShellSyntaxError` for a line `sh` cannot read either. */
export function pipelinesOf(command: string): Stages[] {
  return pipelinesOfScript(parseShell(command));
}

/** Every pipeline a read command line (or a substitution's) runs, nested ones included. */
export function pipelinesOfScript(script: ShellScript): Stages[] {
  const out: Stages[] = [];
  collect(script, out, 0);
  return out;
}

/** The most command lines inside command lines followed (`sh -c "sh -c '…'"`). */
const MAX_NESTING = 8;

function collect(script: ShellScript, out: Stages[], depth: number): void {
  for (const pipeline of script.pipelines) {
    const stages: Stages = [];
    // The pipeline first, then what runs inside it (a substitution runs before its command, but
    // the rules look at a pipeline whole, and at each command on its own).
    const inner: Stages[] = [];
    for (const command of pipeline) stages.push(programsOf(command, inner, depth));
    out.push(stages);
    out.push(...inner);
  }
}

/** The programs of one command (of a group: all of them); what runs inside goes to `inner`. */
function programsOf(command: ShellCommand, inner: Stages[], depth: number): ProgramRun[] {
  const programs: ProgramRun[] = [];
  for (const word of [...command.words, ...command.redirects.map((redirect) => redirect.target)]) {
    for (const script of word.nested) collect(script, inner, depth + 1);
  }
  if (command.group) {
    const grouped: Stages[] = [];
    collect(command.group, grouped, depth + 1);
    inner.push(...grouped);
    for (const stages of grouped) for (const stage of stages) programs.push(...stage);
  }
  const program = unwrap(command.words, command.redirects);
  if (program) {
    programs.push(program);
    for (const line of commandLinesIn(program)) {
      if (depth >= MAX_NESTING) throw new ShellSyntaxError('command lines nested too deeply to read');
      collect(parseShell(line), inner, depth + 1);
    }
    const executed = findExec(program);
    if (executed) inner.push([[executed]]);
  }
  return programs;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
/** Words that start a command without being its program. */
const KEYWORDS = new Set(['!', 'if', 'then', 'else', 'elif', 'while', 'until', 'do', 'time', '{', '(']);
/** Words that end a compound command: nothing runs. */
const CLOSERS = new Set(['fi', 'done', 'esac', '}']);

/** Programs that run the rest of their arguments as a command; options that take a value. */
const WRAPPERS: Record<string, { valued: readonly string[]; positional?: number }> = {
  sudo: { valued: ['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T'] },
  doas: { valued: ['-u', '-C'] },
  nohup: { valued: [] },
  time: { valued: ['-f', '-o'] },
  command: { valued: [] },
  builtin: { valued: [] },
  exec: { valued: ['-a'] },
  nice: { valued: ['-n'] },
  ionice: { valued: ['-c', '-n', '-p'] },
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], positional: 1 },
  stdbuf: { valued: ['-i', '-o', '-e'] },
  chroot: { valued: [], positional: 1 },
  xargs: { valued: ['-I', '-i', '-n', '-P', '-L', '-l', '-s', '-d', '-E', '-e', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs'] },
  env: { valued: ['-u', '-C', '--unset', '--chdir'] },
  busybox: { valued: [] },
  watch: { valued: ['-n', '-d', '--interval'] },
  flock: { valued: ['-w', '-E', '--timeout'], positional: 1 },
};

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The program a command runs, its wrappers and assignments taken off; `null` when it runs none (`FOO=1`, `fi`). */
export function unwrap(words: readonly ShellWord[], redirects: ShellRedirect[]): ProgramRun | null {
  let i = 0;
  for (;;) {
    const word = words[i];
    if (!word) return null;
    if (ASSIGNMENT.test(word.text) || KEYWORDS.has(word.text)) {
      i++;
      continue;
    }
    if (CLOSERS.has(word.text) && i === 0) return null;
    const name = basename(word.text);
    const wrapper = WRAPPERS[name];
    if (!wrapper) return { name, args: words.slice(i + 1), redirects };
    i++;
    // Options (and their values), then the wrapper's own positional arguments (timeout's duration).
    while (words[i]?.text.startsWith('-') && words[i]?.text !== '-') {
      const option = words[i]?.text as string;
      i++;
      if (option === '--') break;
      if (wrapper.valued.includes(option)) i++;
      // `env -S 'cmd args'` splits a string into the command.
      if (name === 'env' && (option === '-S' || option === '--split-string')) {
        const split = words[i]?.text ?? '';
        return unwrap(
          [
            ...split
              .split(/\s+/)
              .filter(Boolean)
              .map((text) => ({ text, nested: [] })),
            ...words.slice(i + 1),
          ],
          redirects,
        );
      }
    }
    i += wrapper.positional ?? 0;
    if (name === 'env') while (words[i] && ASSIGNMENT.test(words[i]?.text ?? '')) i++;
    // A wrapper with nothing after it is the program: `env` alone prints the environment.
    if (!words[i]) return { name, args: [], redirects };
  }
}

/** Shells and what runs their `-c` string. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'fish', 'mksh']);

/** The command lines a program runs from its arguments: `sh -c '…'`, `eval …`, `su -c '…'`. */
function commandLinesIn(program: ProgramRun): string[] {
  const texts = program.args.map((word) => word.text);
  if (program.name === 'eval') return texts.length > 0 ? [texts.join(' ')] : [];
  if (SHELLS.has(program.name) || program.name === 'su') {
    const at = texts.findIndex((text) => text === '-c' || text === '--command' || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(text));
    const line = at >= 0 ? texts.slice(at + 1).find((text) => !text.startsWith('-')) : undefined;
    return line === undefined ? [] : [line];
  }
  return [];
}

/** The command `find … -exec cmd … ;` runs (`-execdir`, `-ok`, `-okdir` too). */
function findExec(program: ProgramRun): ProgramRun | null {
  if (program.name !== 'find') return null;
  const at = program.args.findIndex((word) => ['-exec', '-execdir', '-ok', '-okdir'].includes(word.text));
  if (at === -1) return null;
  const rest = program.args.slice(at + 1);
  const end = rest.findIndex((word) => word.text === ';' || word.text === '+');
  return unwrap(end === -1 ? rest : rest.slice(0, end), []);
}
