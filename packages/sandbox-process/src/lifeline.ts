/**
 * The lifeline: what the process runtime leaves running dies with the Node process that started
 * it, however that process dies (a SIGKILL and the OOM killer included, which skip every `exit`
 * handler). Node has no `prctl(PR_SET_PDEATHSIG)`, so a keeper does it: one small `sh` per Node
 * process, in a session of its own (so neither a signal to the host's process group nor a
 * SIGSTOP to a sandbox's groups reaches it), whose standard input is a pipe from this process.
 * The pipe's write end is close-on-exec, so no command inherits it: it closes exactly when this
 * process dies. The keeper reads what to clean up, one line each, as it changes:
 *
 * - `+g<pgid>` / `-g<pgid>`: a process group to SIGKILL (every command's, until seen dead);
 * - `+t<dir>` / `-t<dir>`: a directory tree to remove (a sandbox started with `boundToProcess`);
 * - `+e<dir>` / `-e<dir>`: a directory to remove if it is empty (a runtime's own root).
 *
 * At end of file (this process is gone, or no runtime needs the keeper any more and the list is
 * empty) it kills every group still listed, then removes the trees, then the empty directories,
 * and exits. Commands wait, before they run anything, until their group is in the pipe (see
 * `exec-run.ts`), so no command runs unlisted, even for an instant.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { PlatformError } from '@agent-platform/core';

/** The keeper's program (POSIX `sh`: dash, bash, busybox). Its list is newline-separated. */
const KEEPER_SCRIPT = `set -f
nl='
'
list=$nl
while IFS= read -r op; do
  entry=\${op#?}
  case $op in
    +?*) list=$list$entry$nl ;;
    -?*) case $list in *"$nl$entry$nl"*) list=\${list%%"$nl$entry$nl"*}$nl\${list#*"$nl$entry$nl"} ;; esac ;;
  esac
done
IFS=$nl
for entry in $list; do case $entry in g*) kill -9 -"\${entry#g}" ;; esac; done 2>/dev/null
for entry in $list; do case $entry in t/*) d=\${entry#t}
  rm -rf "$d" || { find "$d" -type d -exec chmod u+rwx {} \\; ; rm -rf "$d"; } ;; esac; done >/dev/null 2>&1
for entry in $list; do case $entry in e/*) rmdir "\${entry#e}" ;; esac; done 2>/dev/null
`;

/** A keeper that died on its own is replaced at once, unless it lived less than this. */
const RESPAWN_BACKOFF_MS = 1_000;

/** What the keeper must clean up: `g<pgid>`, `t<dir>`, `e<dir>`. */
const entries = new Set<string>();
/** Callbacks waiting until every line written so far is in the pipe. */
let waiting: ((held: boolean) => void)[] = [];
let keeper: { child: ChildProcess; input: Writable; startedAt: number } | undefined;
/** Runtimes that want the keeper kept even while the list is empty (it costs a spawn to restart). */
let holders = 0;
let respawnTimer: NodeJS.Timeout | undefined;

/** A runtime needs the keeper from now until {@link releaseLifeline}. */
export function holdLifeline(): void {
  holders += 1;
}

/** The runtime no longer needs the keeper; it stops once nothing is left to clean up. */
export function releaseLifeline(): void {
  holders = Math.max(0, holders - 1);
  retireIfIdle();
}

/**
 * Starts the keeper if it is not running. Throws `PlatformError` INTERNAL when it cannot be
 * started: nothing may run without it.
 */
export function ensureLifeline(): void {
  if (keeper !== undefined) return;
  const child = spawn('/bin/sh', ['-c', KEEPER_SCRIPT], {
    cwd: '/',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.on('error', () => undefined); // a failed spawn is handled below; nothing else is sent to it
  const input = child.stdin;
  if (child.pid === undefined || input === null) {
    throw new PlatformError('INTERNAL', 'Could not start the process runtime lifeline (/bin/sh)');
  }
  input.on('error', () => undefined); // EPIPE once it died: `exit` below replaces it
  input.on('drain', () => flushWaiting());
  // Neither keeps this process alive: the keeper is there for when this process ends.
  child.unref();
  (input as Writable & { unref?: () => void }).unref?.();
  const current = { child, input, startedAt: Date.now() };
  keeper = current;
  child.on('exit', () => {
    if (keeper !== current) return; // retired on purpose
    keeper = undefined;
    // Killed from outside: replace it, with everything it held, unless it keeps dying.
    const delay = Date.now() - current.startedAt < RESPAWN_BACKOFF_MS ? RESPAWN_BACKOFF_MS : 0;
    respawnTimer = setTimeout(respawn, delay);
    respawnTimer.unref();
  });
  if (entries.size > 0) input.write([...entries].map((entry) => `+${entry}\n`).join(''));
}

/**
 * Runs `callback(true)` once every line written to the keeper so far is in the pipe (at once,
 * nearly always): a line still buffered in this process would die with it, one in the pipe is
 * read by the keeper even after this process is gone. `callback(false)` when no keeper can be
 * started.
 */
export function afterLifeline(callback: (held: boolean) => void): void {
  if (keeper !== undefined && keeper.input.writableLength === 0) {
    callback(true);
    return;
  }
  waiting.push(callback);
  if (keeper === undefined && respawnTimer === undefined) respawn();
}

/** The keeper kills the group when this process ends, until {@link unbindGroup}. */
export function bindGroup(pgid: number): void {
  add(`g${pgid}`);
}

export function unbindGroup(pgid: number): void {
  remove(`g${pgid}`);
}

/**
 * The keeper removes the directory tree when this process ends, until {@link unbindTree}. An
 * absolute path without a newline (anything else is not bound).
 */
export function bindTree(dir: string): void {
  if (listable(dir)) add(`t${dir}`);
}

export function unbindTree(dir: string): void {
  if (listable(dir)) remove(`t${dir}`);
}

/** The keeper removes the directory, if it is empty, when this process ends. */
export function bindEmptyDir(dir: string): void {
  if (listable(dir)) add(`e${dir}`);
}

export function unbindEmptyDir(dir: string): void {
  if (listable(dir)) remove(`e${dir}`);
}

/** The keeper's pid, for tests. */
export function lifelinePid(): number | undefined {
  return keeper?.child.pid;
}

function listable(dir: string): boolean {
  return dir.startsWith('/') && !dir.includes('\n');
}

/** Lists the entry; without a keeper (none can start now) the next one started gets it. */
function add(entry: string): void {
  if (entries.has(entry)) return;
  entries.add(entry);
  if (keeper !== undefined) {
    keeper.input.write(`+${entry}\n`);
    return;
  }
  try {
    ensureLifeline(); // a new keeper is given every entry, this one included
  } catch {
    // Callers that must not go on without a keeper called ensureLifeline first.
  }
}

function remove(entry: string): void {
  if (!entries.delete(entry)) return;
  keeper?.input.write(`-${entry}\n`);
  retireIfIdle();
}

/** Calls back the waiting once their lines are in the pipe; with false when there is no keeper. */
function flushWaiting(): void {
  if (keeper !== undefined && keeper.input.writableLength > 0) return;
  const callbacks = waiting;
  waiting = [];
  for (const callback of callbacks) callback(keeper !== undefined);
}

function respawn(): void {
  respawnTimer = undefined;
  if (keeper === undefined && (entries.size > 0 || holders > 0 || waiting.length > 0)) {
    try {
      ensureLifeline();
    } catch {
      // Cannot start one now: the next command tries again (and fails if it still cannot).
    }
  }
  flushWaiting();
}

/** Nothing to clean up and no runtime holding it: end the keeper's input, so it exits. */
function retireIfIdle(): void {
  if (holders > 0 || entries.size > 0 || keeper === undefined) return;
  if (respawnTimer !== undefined) clearTimeout(respawnTimer);
  respawnTimer = undefined;
  const { input } = keeper;
  keeper = undefined;
  input.end();
}
