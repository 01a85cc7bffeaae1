/**
 * Process-group signalling for the process runtime. Every command runs as the leader of its own
 * process group (`detached: true`), so one signal to `-pgid` reaches the command and everything
 * it started that stayed in the group.
 *
 * A group counts as alive while it has a member that is not a zombie: orphans are reparented to
 * PID 1, and where PID 1 does not reap (a bare container init), a killed group would otherwise
 * look alive forever. On Linux the members are read from `/proc`; elsewhere `kill(-pgid, 0)`
 * decides.
 * @module
 */
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { bindGroup, unbindGroup } from './lifeline.js';

/** Sends `signal` to every process of the group; false when the group is gone (or not ours). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw error;
  }
}

/** Whether the group still has a live (non-zombie) member. */
export async function groupAlive(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

/** Polls until the group has no live member or `timeoutMs` passes; true when it is gone. */
export async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    if (!(await groupAlive(pgid))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(delay);
  }
}

/**
 * Every group any process runtime of this Node process started and has not seen die. When Node
 * exits (normally or through `process.exit`), they are killed at once; the lifeline
 * (`lifeline.ts`) holds the same list and kills them when this process dies any other way (a
 * signal it does not handle, SIGKILL included).
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killAllOnExit(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

/** Tracks the group and hands it to the lifeline (see `afterLifeline` for when it is safely there). */
export function trackGroup(pgid: number): void {
  if (!exitHookInstalled) {
    process.on('exit', killAllOnExit);
    exitHookInstalled = true;
  }
  liveGroups.add(pgid);
  bindGroup(pgid);
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
  unbindGroup(pgid);
}
