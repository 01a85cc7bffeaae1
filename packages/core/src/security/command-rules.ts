/**
 * The `policy` analyzer's rules over a terminal command's programs (git pushes aside, see
 * `git-push.ts`): what destroys (`rm -rf /`, `mkfs`, `dd of=/dev/…`, writing a disk), what runs
 * code it downloads (`curl … | sh`, `bash -c "$(wget -O- …)"`, a script fetched then run), and
 * what sends credentials out of the sandbox (the environment or a credential file piped to
 * `curl` or `nc`, `curl -d @~/.git-credentials`, a token sent to a host that is no code host).
 * @module
 */
import type { SecurityContext } from '../ports/security-analyzer.js';
import { pipelinesOfScript, type ProgramRun, type Stages } from './shell-commands.js';
import type { ShellWord } from './shell-script.js';
import { hostsIn, isCodeHost, namesCredentialFile, secretVariablesIn } from './secret-signs.js';

/** A rule's verdict on part of a command. */
export interface Finding {
  risk: 'LOW' | 'MEDIUM' | 'HIGH';
  reason: string;
}

type Facts = Pick<SecurityContext, 'secretVariables' | 'codeHosts'>;

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'fish', 'mksh']);
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'perl', 'ruby', 'node', 'nodejs', 'php', 'lua', 'deno', 'bun']);
/** Options that give an interpreter its code inline (then its input is data, not code). */
const INLINE_CODE: Record<string, RegExp> = { shell: /^-[a-zA-Z]*c/, python: /^-[a-zA-Z]*[cm]/, other: /^-[a-zA-Z]*[eErp]|^--(eval|print)/ };
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'xh', 'aria2c', 'lwp-download']);
const SENDERS = new Set([...DOWNLOADERS, 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ssh', 'scp', 'sftp', 'rsync', 'ftp', 'openssl']);
const DISK_TOOLS = new Set(['mkfs', 'mke2fs', 'mkswap', 'wipefs', 'fdisk', 'sfdisk', 'cfdisk', 'parted', 'sgdisk']);
/** Devices that are not disks: writing them destroys nothing. */
const HARMLESS_DEVICES = /^\/dev\/(?:null|zero|full|random|urandom|tty\w*|pts\/\w+|stdout|stderr|stdin|fd\/\d+|shm\/.*)$/;

const texts = (words: readonly ShellWord[]): string[] => words.map((word) => word.text);
const baseName = (path: string): string => path.replace(/\/+$/, '').slice(path.replace(/\/+$/, '').lastIndexOf('/') + 1);
/** `python3.12` → `python3`; `bash` stays. */
const family = (name: string): string => name.replace(/(?<=\D)\d+(?:\.\d+)*$/, '') || name;

/** What every rule finds in a command's pipelines. */
export function commandFindings(pipelines: Stages[], facts: Facts): Finding[] {
  const findings: Finding[] = [];
  const downloaded = new Set<string>();
  for (const stages of pipelines) {
    findings.push(...pipelineFindings(stages, facts));
    for (const program of stages.flat()) {
      findings.push(...programFindings(program, facts));
      const ran = runsDownloaded(program, downloaded);
      if (ran) findings.push({ risk: 'HIGH', reason: `runs ${ran}, which it downloaded` });
      for (const file of downloadsTo(program)) downloaded.add(file);
    }
  }
  return findings;
}

/** A download piped into a shell; secrets piped into a program that sends them. */
function pipelineFindings(stages: Stages, facts: Facts): Finding[] {
  const findings: Finding[] = [];
  stages.forEach((stage, index) => {
    const later = stages.slice(index + 1).flat();
    const downloader = stage.find((program) => DOWNLOADERS.has(program.name));
    const shell = later.find(executesInput);
    if (downloader && shell) findings.push({ risk: 'HIGH', reason: `pipes a download (${downloader.name}) into ${shell.name}` });
    const secret = stage.map((program) => secretsRead(program, facts)).find((what) => what !== null);
    const sender = later.find((program) => SENDERS.has(program.name));
    if (secret && sender) findings.push({ risk: 'HIGH', reason: `sends ${secret} out of the sandbox (${sender.name})` });
  });
  return findings;
}

function programFindings(program: ProgramRun, facts: Facts): Finding[] {
  const findings: Finding[] = [];
  const args = texts(program.args);
  const { name } = program;
  if (name === 'rm' && recursive(args)) {
    const broad = args.find((arg) => !arg.startsWith('-') && broadPath(arg));
    if (broad !== undefined || args.includes('--no-preserve-root')) findings.push({ risk: 'HIGH', reason: `deletes ${broad ?? '/'} recursively` });
  }
  if (['chmod', 'chown', 'chgrp'].includes(name) && recursive(args)) {
    const broad = args.slice(1).find((arg) => !arg.startsWith('-') && broadPath(arg, false));
    if (broad !== undefined) findings.push({ risk: 'HIGH', reason: `${name} of everything under ${broad}` });
  }
  if (DISK_TOOLS.has(name.replace(/\..*$/, ''))) findings.push({ risk: 'HIGH', reason: `formats or partitions a disk (${name})` });
  if (name === 'dd') {
    const device = args.find((arg) => arg.startsWith('of=/dev/') && !HARMLESS_DEVICES.test(arg.slice(3)));
    if (device) findings.push({ risk: 'HIGH', reason: `overwrites the device ${device.slice(3)} (dd)` });
  }
  if (name === 'shred' && args.some((arg) => arg.startsWith('/dev/') && !HARMLESS_DEVICES.test(arg))) {
    findings.push({ risk: 'HIGH', reason: 'shreds a device' });
  }
  for (const redirect of program.redirects) {
    const target = redirect.target.text;
    if (/>/.test(redirect.op) && target.startsWith('/dev/') && !HARMLESS_DEVICES.test(target)) {
      findings.push({ risk: 'HIGH', reason: `writes over the device ${target}` });
    }
  }
  // Code fetched and run without a pipe: `bash -c "$(curl …)"`, `sh <(wget -O- …)`, `eval "$(curl …)"`.
  if (SHELLS.has(name) || INTERPRETERS.has(family(name)) || name === 'source' || name === '.' || name === 'eval') {
    const fetched = program.args.flatMap((word) => word.nested).find((script) => runsProgram(script, (inner) => DOWNLOADERS.has(inner.name)));
    if (fetched) findings.push({ risk: 'HIGH', reason: `runs code it downloads (${name})` });
  }
  if (SENDERS.has(name)) {
    const sent = sentSecrets(program, facts);
    if (sent) findings.push({ risk: 'HIGH', reason: `sends ${sent} out of the sandbox (${name})` });
  }
  return findings;
}

const recursive = (args: readonly string[]): boolean => args.some((arg) => arg === '--recursive' || (/^-[a-zA-Z]+$/.test(arg) && /[rR]/.test(arg)));

/**
 * `/`, `~`, `$HOME`, a top-level directory (`/usr`, `/workspace`; not `/tmp`), and with
 * `workspace` the working directory whole too (`.`, `..`, `*`).
 */
function broadPath(arg: string, workspace = true): boolean {
  const path = arg.replace(/(?:\/\*?)+$/, '');
  if (path === '' || path === '~' || /^\$(?:HOME|\{HOME\})$/.test(path)) return true;
  if (workspace && ['.', '..', '*', '.*'].includes(path)) return true;
  return /^\/[^/]+$/.test(path) && path !== '/tmp';
}

/** Whether a program runs what comes on its input as code: `sh`, `bash -s`, `python3 -`, `node`. */
function executesInput(program: ProgramRun): boolean {
  const kind = SHELLS.has(program.name)
    ? 'shell'
    : INTERPRETERS.has(family(program.name))
      ? family(program.name).startsWith('python')
        ? 'python'
        : 'other'
      : null;
  if (!kind) return false;
  let fromInput = false;
  for (const arg of texts(program.args)) {
    if (arg === '-') return true;
    if (kind === 'shell' && /^-[a-zA-Z]*s/.test(arg)) fromInput = true;
    if ((INLINE_CODE[kind] as RegExp).test(arg)) return false;
    // A script file: its input is data (unless `sh -s`, whose arguments are the script's).
    if (!arg.startsWith('-')) return fromInput;
  }
  return true;
}

/** Whether a program of `script` (nested ones included) passes `test`. */
const runsProgram = (script: Parameters<typeof pipelinesOfScript>[0], test: (program: ProgramRun) => boolean): boolean =>
  pipelinesOfScript(script).some((stages) => stages.flat().some(test));

/** What secret a program reads, for a pipeline to carry on: the environment, a credential file, a secret variable. */
function secretsRead(program: ProgramRun, facts: Facts): string | null {
  const args = texts(program.args);
  if (program.name === 'printenv') {
    if (args.length === 0) return 'the environment';
    const named = args.flatMap((arg) => secretVariablesIn(`$${arg}`, facts.secretVariables))[0];
    if (named) return `$${named}`;
  }
  if (['env', 'set', 'export', 'declare', 'typeset', 'compgen'].includes(program.name) && args.every((arg) => arg.startsWith('-'))) return 'the environment';
  if (program.name === 'git' && args.includes('credential')) return 'git credentials';
  if (program.name === 'gh' && args[0] === 'auth' && (args[1] === 'token' || args.includes('--show-token') || args.includes('-t'))) return 'the GitHub token';
  return secretIn([...program.args, ...program.redirects.filter((redirect) => redirect.op.startsWith('<')).map((redirect) => redirect.target)], facts);
}

/** A credential file or secret variable among `words` (their substitutions included). */
function secretIn(words: readonly ShellWord[], facts: Facts): string | null {
  for (const word of words) {
    const file = word.text.split(/[\s=@]/).find((part) => namesCredentialFile(part));
    if (file !== undefined || namesCredentialFile(word.text)) return file || word.text;
    const variable = secretVariablesIn(word.text, facts.secretVariables)[0];
    if (variable) return `$${variable}`;
    for (const script of word.nested) {
      for (const stages of pipelinesOfScript(script)) {
        const read = stages
          .flat()
          .map((program) => secretsRead(program, facts))
          .find((what) => what !== null);
        if (read) return read;
      }
    }
  }
  return null;
}

/**
 * What a network program sends that is secret: a credential file it uploads or reads its input
 * from, or a secret in its arguments. A token in a request to the owner's code host (and nowhere
 * else) authenticates: that is what it is for.
 */
function sentSecrets(program: ProgramRun, facts: Facts): string | null {
  const inputs = program.redirects.filter((redirect) => redirect.op.startsWith('<')).map((redirect) => redirect.target);
  const fromInput = secretIn(inputs, facts);
  if (fromInput) return fromInput;
  const secret = secretIn(program.args, facts);
  if (!secret) return null;
  const credentialFile = !secret.startsWith('$') || program.args.some((word) => namesCredentialFile(word.text));
  if (credentialFile) return secret;
  const hosts = program.args.flatMap((word) => hostsIn(word.text));
  const onlyCodeHosts = hosts.length > 0 && hosts.every((host) => isCodeHost(host, facts.codeHosts));
  return onlyCodeHosts && DOWNLOADERS.has(program.name) ? null : secret;
}

/** The files a download writes: `curl -o f`, `curl -O url`, `wget url`, `wget -O f url`. */
function downloadsTo(program: ProgramRun): string[] {
  if (program.name !== 'curl' && program.name !== 'wget') return [];
  const args = texts(program.args);
  const files: string[] = [];
  const urls = args.filter((arg) => /^[a-z]+:\/\//i.test(arg));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (program.name === 'curl' && (arg === '-o' || arg === '--output') && next) files.push(next);
    else if (program.name === 'curl' && (arg === '-O' || arg === '--remote-name')) files.push(...urls.map(baseName));
    else if (program.name === 'wget' && (arg === '-O' || arg === '--output-document') && next && next !== '-') files.push(next);
  }
  if (program.name === 'wget' && !args.some((arg) => arg === '-O' || arg.startsWith('-O') || arg.startsWith('--output-document')))
    files.push(...urls.map(baseName));
  return files.filter((file) => file !== '' && file !== '-').map(baseName);
}

/** The downloaded file a program runs (`./install.sh`, `sh install.sh`), if it runs one. */
function runsDownloaded(program: ProgramRun, downloaded: ReadonlySet<string>): string | null {
  if (downloaded.size === 0) return null;
  if (downloaded.has(program.name)) return program.name;
  if (SHELLS.has(program.name) || INTERPRETERS.has(family(program.name)) || program.name === 'source' || program.name === '.') {
    const script = texts(program.args).find((arg) => !arg.startsWith('-'));
    if (script !== undefined && downloaded.has(baseName(script))) return baseName(script);
  }
  return null;
}
