/**
 * The LEDGER: the lines the runs' tool-call commands append (`start|end <run> <tool call> <pid>
 * <ns>`, see `model.ts`), read as they come. A command killed before its `end` line (a cancel,
 * a fenced attempt, a process stopping) writes none, so the ledger also watches each open
 * command's shell in `/proc`: once it is gone (or a zombie, or another process under its pid) the
 * command's end is taken as the moment that was seen, at most one poll (50 ms) late.
 * @module
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';

export interface Execution {
  runId: string;
  toolCallId: string;
  pid: number;
  /** Milliseconds since the epoch (fractional). */
  start: number;
  /** `null` while it runs. */
  end: number | null;
  /** `ledger`: its own `end` line; `vanished`: its shell was seen gone without one. */
  endedBy: 'ledger' | 'vanished' | null;
}

export interface LedgerWatch {
  readonly executions: readonly Execution[];
  /** Executions not ended yet. */
  open(): number;
  /** Reads what is left and stops watching. */
  stop(): Promise<void>;
}

const POLL_MS = 50;

/** The shell is alive, not a zombie, and still the one that ran `toolCallId`. */
async function alive(pid: number, toolCallId: string): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).includes(toolCallId);
  } catch {
    return false;
  }
}

export async function watchLedger(file: string): Promise<LedgerWatch> {
  const handle: FileHandle = await open(file, 'a+');
  const executions: Execution[] = [];
  const running = new Map<string, Execution>();
  let offset = 0;
  let partial = '';
  let stopped = false;

  const readNew = async () => {
    for (;;) {
      const buffer = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      if (bytesRead === 0) return;
      offset += bytesRead;
      const lines = (partial + buffer.subarray(0, bytesRead).toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) take(line);
    }
  };
  const take = (line: string) => {
    const [kind, runId, toolCallId, pid, ns] = line.trim().split(' ');
    if (!kind || !runId || !toolCallId || !pid || !ns) return;
    const at = Number(BigInt(ns) / 1000n) / 1000;
    const key = `${toolCallId} ${pid}`;
    if (kind === 'start') {
      const execution: Execution = { runId, toolCallId, pid: Number(pid), start: at, end: null, endedBy: null };
      executions.push(execution);
      running.set(key, execution);
    } else if (kind === 'end') {
      const execution = running.get(key);
      if (!execution) return;
      running.delete(key);
      execution.end = at;
      execution.endedBy = 'ledger';
    }
  };
  const checkOpen = async () => {
    for (const [key, execution] of running) {
      if (execution.endedBy === 'vanished') continue;
      const seen = Date.now();
      if (await alive(execution.pid, execution.toolCallId)) continue;
      // A shell writes its `end` line before it exits: if the line is not there now, it never will be.
      await readNew();
      if (execution.endedBy !== null) continue;
      execution.end = seen;
      execution.endedBy = 'vanished';
      running.delete(key);
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await readNew();
      await checkOpen();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();

  return {
    executions,
    open: () => executions.filter((execution) => execution.end === null).length,
    async stop() {
      if (stopped) return;
      stopped = true;
      await loop;
      await readNew();
      await handle.close();
    },
  };
}
