/**
 * The `policy` analyzer's rule for `git push`: which branches a push updates on the remote, and
 * whether it rewrites (`--force`, `-f`, `--force-with-lease`, `+ref`, `--mirror`) or deletes
 * them. The default branch — `main`, `master`, or what the remote names its `HEAD` — is what
 * matters: a force push or a deletion there is HIGH, a plain push there MEDIUM (it adds commits,
 * and a revert undoes them); elsewhere a force push or a deletion is MEDIUM, a push LOW. A push
 * with no branch named updates the branch checked out: the one the same command line switched to
 * (`git checkout -b fix && git push -u origin HEAD`), else the sandbox's, read with `git`.
 * @module
 */
import type { SecurityContext } from '../ports/security-analyzer.js';
import type { Finding } from './command-rules.js';
import type { ProgramRun, Stages } from './shell-commands.js';
import { hostsIn, isCodeHost } from './secret-signs.js';

/** A branch a push updates: named, or the one checked out (`branch: null` and not known from the line). */
interface PushTarget {
  branch: string | null;
  force: boolean;
  deletes: boolean;
}

export interface PushIntent {
  targets: PushTarget[];
  /** `--all` / `--mirror`: every branch. */
  everyBranch: { force: boolean } | null;
  /** The remote as a URL on a host that is no code host of the owner's. */
  foreignHost: string | null;
}

/** Global options of `git` that take a value. */
const GIT_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--exec-path']);
/** `git push` options that take a value (when not written `--opt=value`). */
const PUSH_VALUED = new Set(['--repo', '-o', '--push-option', '--receive-pack', '--exec']);

/** A `git` program's subcommand and the arguments after it. */
function subcommand(program: ProgramRun): { name: string; args: string[] } | null {
  if (program.name !== 'git') return null;
  const args = program.args.map((word) => word.text);
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith('-')) i += GIT_VALUED.has(args[i] as string) ? 2 : 1;
  const name = args[i];
  return name === undefined ? null : { name, args: args.slice(i + 1) };
}

/** The pushes of a command line, in order, each with the branch checked out as the line leaves it before the push. */
export function pushesIn(pipelines: Stages[], codeHosts: readonly string[]): PushIntent[] {
  const intents: PushIntent[] = [];
  // The branch the line switched to; `undefined`: it switched to none; `null`: to one it cannot tell (`git checkout -`).
  let switched: string | null | undefined;
  for (const program of pipelines.flatMap((stages) => stages.flat())) {
    const git = subcommand(program);
    if (!git) continue;
    if (git.name === 'checkout' || git.name === 'switch') switched = branchSwitchedTo(git.args, switched);
    if (git.name === 'push') {
      const intent = pushIntent(git.args, switched, codeHosts);
      if (intent) intents.push(intent);
    }
  }
  return intents;
}

function branchSwitchedTo(args: string[], before: string | null | undefined): string | null | undefined {
  const create = args.findIndex((arg) => ['-b', '-B', '-c', '-C', '--orphan', '--create', '--force-create'].includes(arg));
  if (create >= 0) return args[create + 1] ?? null;
  if (args.includes('--') || args.includes('--detach') || args.includes('-p')) return before;
  const positional = args.filter((arg) => !arg.startsWith('-'));
  if (args.includes('-')) return null;
  // `git checkout main` switches; `git checkout file.txt` restores a file (a guess: names with a dot or slash are files).
  return positional.length === 1 && !/[./]/.test(positional[0] as string) ? (positional[0] as string) : before;
}

function pushIntent(args: string[], switched: string | null | undefined, codeHosts: readonly string[]): PushIntent | null {
  let force = false;
  let deletes = false;
  let every = false;
  let mirror = false;
  let tagsOnly = false;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg === '--dry-run' || arg === '-n') return null;
    if (arg === '--force' || arg.startsWith('--force-with-lease')) force = true;
    else if (arg === '--mirror') mirror = true;
    else if (arg === '--all' || arg === '--branches') every = true;
    else if (arg === '--delete') deletes = true;
    else if (arg === '--tags') tagsOnly = true;
    else if (PUSH_VALUED.has(arg)) i++;
    else if (arg.startsWith('--')) continue;
    else if (/^-[a-zA-Z]+$/.test(arg)) {
      if (arg.includes('n')) return null;
      if (arg.includes('f')) force = true;
      if (arg.includes('d')) deletes = true;
      if (arg.endsWith('o')) i++;
    } else positional.push(arg);
  }
  const [remote, ...refspecs] = positional;
  const urlHost = remote && /[:@/]/.test(remote) ? (hostsIn(remote)[0] ?? null) : null;
  const foreignHost = urlHost && !isCodeHost(urlHost, codeHosts) ? urlHost : null;
  const checkedOut = switched === undefined ? null : switched;
  const targets: PushTarget[] = [];
  for (const spec of refspecs) {
    const plus = spec.startsWith('+');
    const ref = plus ? spec.slice(1) : spec;
    const colon = ref.indexOf(':');
    const source = colon === -1 ? ref : ref.slice(0, colon);
    const destination = colon === -1 ? ref : ref.slice(colon + 1) || source;
    if (/^refs\/(?!heads\/)/.test(destination)) continue;
    const name = destination.replace(/^refs\/heads\//, '');
    const current = name === 'HEAD' || name === '@';
    targets.push({ branch: current ? checkedOut : name, force: force || plus, deletes: deletes || (colon !== -1 && source === '') });
  }
  if (refspecs.length === 0 && !every && !mirror && !tagsOnly) targets.push({ branch: checkedOut, force, deletes: false });
  return { targets, everyBranch: every || mirror ? { force: force || mirror } : null, foreignHost };
}

/** A push's verdict, the sandbox asked for the branch checked out and the remote's default branch when the line does not tell. */
export async function pushFinding(intent: PushIntent, git: SecurityContext['git']): Promise<Finding[]> {
  const findings: Finding[] = [];
  const defaults = new Set(['main', 'master']);
  const remoteDefault = await git.defaultBranch().catch(() => null);
  if (remoteDefault) defaults.add(remoteDefault);
  if (intent.everyBranch) {
    findings.push(
      intent.everyBranch.force
        ? { risk: 'HIGH', reason: 'force push of every branch, the default branch among them' }
        : { risk: 'MEDIUM', reason: 'pushes every branch, the default branch among them' },
    );
  }
  if (intent.foreignHost) findings.push({ risk: 'MEDIUM', reason: `pushes to ${intent.foreignHost}, which is not the owner's code host` });
  for (const target of intent.targets) {
    const branch = target.branch ?? (await git.currentBranch().catch(() => null));
    if (branch === null || branch === 'HEAD') {
      findings.push(
        target.force
          ? { risk: 'HIGH', reason: 'force push of the branch checked out, which could not be read' }
          : { risk: 'MEDIUM', reason: 'pushes the branch checked out, which could not be read' },
      );
    } else if (defaults.has(branch)) {
      if (target.deletes) findings.push({ risk: 'HIGH', reason: `deletes ${branch}, the default branch, on the remote` });
      else if (target.force) findings.push({ risk: 'HIGH', reason: `force push to ${branch}` });
      else findings.push({ risk: 'MEDIUM', reason: `pushes to ${branch}, the default branch` });
    } else if (target.deletes) findings.push({ risk: 'MEDIUM', reason: `deletes the branch ${branch} on the remote` });
    else if (target.force) findings.push({ risk: 'MEDIUM', reason: `force push to ${branch}` });
    else findings.push({ risk: 'LOW', reason: `pushes to ${branch}` });
  }
  return findings;
}
