/**
 * Reading one file of a conversation's sandbox workspace (`GET
 * /api/v1/app-conversations/{id}/file`) through the `SandboxRuntime` port, so it works the same
 * in every runtime: one `sh` command resolves the path inside the sandbox (symbolic links
 * included), checks that it stays in the workspace, is a regular file and is not too large, and
 * prints it. Every failure is a clear 4xx, never a 500.
 * @module
 */
import { posix } from 'node:path';
import { PlatformError, validationError } from '../kernel/errors.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';

/** Largest file read: 10 MiB (413 beyond). */
export const MAX_WORKSPACE_FILE_BYTES = 10 * 1024 * 1024;

/** Longest `file_path` accepted. */
const MAX_PATH_LENGTH = 4096;

const READ_TIMEOUT_MS = 30_000;

/** Exit codes of {@link READ_SCRIPT}. */
const EXIT = { directory: 3, missing: 4, outside: 5, notRegular: 6, tooLarge: 7, noWorkspace: 8 } as const;

/**
 * Resolves `$FILE_PATH` (absolute) with every symbolic link followed, and prints the file when it
 * is a regular file inside `$WORKSPACE` of at most `$MAX_BYTES` bytes; otherwise exits with one of
 * {@link EXIT}. POSIX `sh`, `readlink -f` and `wc` (coreutils and busybox both have them).
 */
const READ_SCRIPT = [
  'root=$(cd -- "$WORKSPACE" 2>/dev/null && pwd -P) || exit 8',
  '[ -e "$FILE_PATH" ] || exit 4',
  'real=$(readlink -f -- "$FILE_PATH") || exit 4',
  '[ "$root" = / ] || case "$real" in "$root"/*) ;; *) exit 5 ;; esac',
  '[ -d "$real" ] && exit 3',
  '[ -f "$real" ] || exit 6',
  'size=$(wc -c < "$real") || exit 6',
  '[ "$size" -le "$MAX_BYTES" ] || exit 7',
  'exec cat -- "$real"',
].join('\n');

const badPath = (message: string): PlatformError => validationError(['query', 'file_path'], message);

/**
 * The absolute path `filePath` names in the workspace: absolute as given, or relative to the
 * workspace. 422 for an empty or oversized path, a NUL, or a path that leaves the workspace.
 */
export function workspacePath(workingDir: string, filePath: string): string {
  if (filePath.trim() === '') throw badPath('file_path is required');
  if (filePath.length > MAX_PATH_LENGTH) throw badPath(`file_path is longer than ${MAX_PATH_LENGTH} characters`);
  if (filePath.includes('\u0000')) throw badPath('file_path must not contain NUL');
  const root = posix.normalize(workingDir).replace(/\/+$/, '') || '/';
  const resolved = posix.resolve(root, filePath);
  if (resolved === root || !resolved.startsWith(root === '/' ? '/' : `${root}/`)) {
    throw badPath(`file_path must name a file inside the conversation’s workspace (${root})`);
  }
  return resolved;
}

/**
 * The text of a file in the workspace of a RUNNING sandbox (bytes that are not UTF-8 read as
 * U+FFFD). 404 no such file; 422 a path outside the workspace (a symbolic link leading out
 * included), a directory or not a regular file; 413 over {@link MAX_WORKSPACE_FILE_BYTES}; 409
 * the sandbox is gone or not running; 503 the read timed out.
 */
export async function readWorkspaceFile(runtime: SandboxRuntime, sandboxId: string, workingDir: string, filePath: string): Promise<string> {
  const path = workspacePath(workingDir, filePath);
  let stdout = '';
  let stderr = '';
  let result: { exitCode: number | null; timedOut: boolean; truncated: boolean } | null = null;
  try {
    for await (const event of runtime.exec(sandboxId, {
      command: READ_SCRIPT,
      env: { FILE_PATH: path, WORKSPACE: workingDir, MAX_BYTES: String(MAX_WORKSPACE_FILE_BYTES) },
      timeoutMs: READ_TIMEOUT_MS,
      // One byte more than the limit: a file that grew past it after the size check shows as truncated.
      maxOutputBytes: MAX_WORKSPACE_FILE_BYTES + 1,
    })) {
      if (event.type === 'stdout') stdout += event.data;
      else if (event.type === 'stderr') stderr += event.data;
      else result = event.result;
    }
  } catch (error) {
    if (error instanceof PlatformError && (error.code === 'NOT_FOUND' || error.code === 'CONFLICT')) {
      throw new PlatformError('CONFLICT', 'The conversation’s sandbox is not running: its files cannot be read', { cause: error });
    }
    throw error;
  }
  if (!result || result.timedOut) throw new PlatformError('UNAVAILABLE', 'Reading the file timed out');
  switch (result.exitCode) {
    case 0:
      if (result.truncated) throw tooLarge();
      return stdout;
    case EXIT.missing:
      throw new PlatformError('NOT_FOUND', `No file at ${path} in the conversation’s workspace`);
    case EXIT.directory:
      throw badPath(`${path} is a directory`);
    case EXIT.outside:
      throw badPath(`${path} leads outside the conversation’s workspace (${workingDir})`);
    case EXIT.notRegular:
      throw badPath(`${path} is not a regular file`);
    case EXIT.tooLarge:
      throw tooLarge();
    case EXIT.noWorkspace:
      throw new PlatformError('CONFLICT', 'The conversation’s workspace is gone from its sandbox');
    default:
      throw badPath(`${path} could not be read${stderr.trim() ? `: ${stderr.trim().slice(0, 300)}` : ''}`);
  }
}

const tooLarge = (): PlatformError => new PlatformError('PAYLOAD_TOO_LARGE', `The file is larger than ${MAX_WORKSPACE_FILE_BYTES} bytes (10 MiB)`);
