/**
 * Why a command failed when a sandbox limit was the cause. Memory: the engine's `oom` events for
 * the container while the command ran (the kernel's OOM killer ended a process at the limit),
 * read from the Engine API. Processes: the kernel's count of forks the pids limit refused
 * (`pids.events`, cgroup v1 or v2), read by a command of shell built-ins only — or the refusal
 * of that very command, when the sandbox cannot start one more process.
 * @module
 */
import type { Duplex, Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import { StreamDemuxer } from './demux.js';
import type { StoppedSandbox } from './docker-exec.js';

/** The first word of every note, so readers (and a run's reason) see who is speaking. */
export const NOTE_PREFIX = 'sandbox: ';
/** The OOM event can reach the engine's log a little after the command's end. */
const OOM_EVENT_GRACE_MS = 250;
/** Prints the `max` count of the sandbox's `pids.events`; built-ins only, so it forks nothing. */
const PIDS_EVENTS =
  'for f in /sys/fs/cgroup/pids.events /sys/fs/cgroup/pids/pids.events; do if [ -r "$f" ]; then ' +
  'while read -r key value; do if [ "$key" = max ]; then echo "$value"; fi; done < "$f"; exit 0; fi; done; exit 1';
/** How the engine words a process it could not start for want of pids. */
const NO_PROCESS = /resource temporarily unavailable|cannot allocate memory|fork/i;

export interface LimitFacts {
  container: Dockerode.Container;
  docker: Dockerode;
  /** When the command started (ms since the epoch). */
  startedAt: number;
  memoryBytes: number | undefined;
  pids: number | undefined;
  /** Refused forks already reported, by container id (the kernel's count only grows). */
  refusedForks: Map<string, number>;
  /** The time (ns, engine clock) of the last OOM event already reported, by container id. */
  reportedOom: Map<string, bigint>;
}

/**
 * One line per limit the command ran into, or null when it ran into none the engine reports.
 * `stopped`: the whole sandbox stopped under the command, as gVisor's does at a limit (its
 * kernel's processes are not the host's: no `pids.events` to read inside, and no process left
 * to read it).
 */
export async function limitNote(facts: LimitFacts, exitCode: number, stopped?: StoppedSandbox): Promise<string | null> {
  const notes: string[] = [];
  let oom = await oomEvents(facts);
  if (stopped) {
    notes.push(
      stopped.oomKilled || oom > 0
        ? `killed: out of memory (the sandbox's memory limit is ${sizeOf(facts.memoryBytes)}): the sandbox stopped`
        : `the sandbox stopped while the command ran (its runtime exited with code ${stopped.exitCode}): ` +
            `under gVisor that is what running into the process limit (${facts.pids ?? 'unset'} processes) does`,
    );
    return notes.map((note) => `${NOTE_PREFIX}${note}\n`).join('');
  }
  // 137 = killed by SIGKILL, the OOM killer's signal: worth a second look if no event is in yet.
  if (oom === 0 && exitCode === 137) {
    await new Promise((resolve) => setTimeout(resolve, OOM_EVENT_GRACE_MS));
    oom = await oomEvents(facts);
  }
  if (oom > 0) notes.push(`killed: out of memory (the sandbox's memory limit is ${sizeOf(facts.memoryBytes)})`);
  if (facts.pids && (await pidsLimitHit(facts))) notes.push(`the process limit was reached (${facts.pids} processes): new processes could not start`);
  return notes.length ? notes.map((note) => `${NOTE_PREFIX}${note}\n`).join('') : null;
}

/** OOM events while the command ran that no earlier note reported. */
async function oomEvents({ docker, container, startedAt, reportedOom }: LimitFacts): Promise<number> {
  try {
    const stream = (await docker.getEvents({
      // Seconds with a fraction, which the engine reads as such.
      since: Number(((startedAt - 100) / 1000).toFixed(3)),
      until: Number((Date.now() / 1000).toFixed(3)),
      filters: { type: ['container'], container: [container.id], event: ['oom'] },
    })) as unknown as Readable;
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    const reported = reportedOom.get(container.id) ?? 0n;
    let latest = reported;
    let count = 0;
    // timeNano passes 2^53: read as text, compared as bigint.
    for (const match of text.matchAll(/"timeNano":(\d+)/g)) {
      const time = BigInt(match[1] ?? '0');
      if (time <= reported) continue;
      count++;
      if (time > latest) latest = time;
    }
    if (count) reportedOom.set(container.id, latest);
    return count;
  } catch {
    return 0;
  }
}

/** Reads of the kernel's count a busy sandbox gets before it is taken as unreadable. */
const READ_ATTEMPTS = 3;
/** A fork bomb frees and takes processes all the time: a moment later there may be room for the read. */
const READ_RETRY_MS = 200;

/** Whether forks were refused since the last look (or the sandbox cannot start a process now). */
async function pidsLimitHit({ container, refusedForks }: LimitFacts): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const read = await readRefusedForks(container);
    if (read.kind === 'count') {
      const seen = refusedForks.get(container.id) ?? 0;
      refusedForks.set(container.id, read.count);
      return read.count > seen;
    }
    if (read.kind === 'no-process') return true;
    if (read.kind === 'absent' || attempt >= READ_ATTEMPTS) return false;
    await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS));
  }
}

/** What a read of the kernel's count of refused forks found. */
export type RefusedForksRead =
  | { kind: 'count'; count: number }
  /** The sandbox could not start even the reading command: it is out of processes. */
  | { kind: 'no-process' }
  /** The kernel keeps no such count here (no `pids.events`). */
  | { kind: 'absent' }
  /** The read failed for another reason. */
  | { kind: 'failed' };

async function readRefusedForks(container: Dockerode.Container): Promise<RefusedForksRead> {
  let output = '';
  try {
    const exec = await container.exec({ Cmd: ['/bin/sh', '-c', PIDS_EVENTS], AttachStdout: true, AttachStderr: false });
    const stream = (await exec.start({ hijack: true, stdin: false })) as Duplex;
    const demuxer = new StreamDemuxer((type, payload) => {
      if (type === 'stdout') output += payload.toString('utf8');
    });
    await new Promise<void>((resolve) => {
      stream.on('data', (chunk: Buffer) => demuxer.write(chunk));
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
  } catch (error) {
    return NO_PROCESS.test(error instanceof Error ? error.message : String(error)) ? { kind: 'no-process' } : { kind: 'failed' };
  }
  return refusedForksOf(output);
}

/**
 * The reading command's output, understood: the count it printed; nothing, when the kernel keeps
 * no count; or — an engine that could not start the command writes why into its output, as
 * `OCI runtime exec failed: … resource temporarily unavailable` — the sandbox out of processes.
 */
export function refusedForksOf(output: string): RefusedForksRead {
  const text = output.trim();
  if (text === '') return { kind: 'absent' };
  if (/^\d+$/.test(text)) return { kind: 'count', count: Number(text) };
  return NO_PROCESS.test(text) ? { kind: 'no-process' } : { kind: 'failed' };
}

function sizeOf(bytes: number | undefined): string {
  if (!bytes) return 'unset';
  return bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

/**
 * Why a command could not even start, when the reason is that its sandbox stopped (gVisor ends its
 * whole sandbox at a limit, and the engine then refuses an exec with its runtime's own error, such
 * as `urpc method "containerManager.WaitPID" failed: EOF`): the same note a command gets when the
 * sandbox stops under it. Null while the container runs, or when it cannot be read.
 */
export async function stoppedSandboxNote(facts: LimitFacts): Promise<string | null> {
  const info = await facts.container.inspect().catch(() => null);
  if (!info || info.State.Running) return null;
  const note = await limitNote(facts, 137, { exitCode: info.State.ExitCode, oomKilled: info.State.OOMKilled });
  return note?.trim() ?? null;
}
